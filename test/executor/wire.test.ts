// Every format that crosses between this side and shellring-runner is described the same by both: the runner's own
// description (`--wire`, made by the same encoders that write its bytes) equals this side's, field by field, so a
// field, word, frame kind, code or token added on either side alone fails here; and each status word parses here as
// what it is.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runnerPath } from '../../src/native/assets.js';
import { wireSpec } from '../../src/executor/wire/spec.js';
import { parse, type STATUS_WORDS } from '../../src/executor/wire/status.js';

const runner = JSON.parse(execFileSync(runnerPath(), ['--wire'], { encoding: 'utf8' })) as Record<string, unknown>;
const host = JSON.parse(JSON.stringify(wireSpec())) as Record<string, unknown>;

describe('the wire between the host and the runner', () => {
  it('covers the same formats on both sides', () => {
    expect(Object.keys(host)).toEqual(Object.keys(runner));
  });

  for (const format of Object.keys(runner)) {
    it(`describes ${format} alike`, () => {
      expect(host[format]).toEqual(runner[format]);
    });
  }

  it('parses every status word as itself', () => {
    const samples: Record<keyof typeof STATUS_WORDS, string> = {
      runner: 'runner 12',
      started: 'started 13 full',
      exit: 'exit 3 2',
      signal: 'signal 15 1',
      workdir: 'workdir 2',
      error: 'error RUNNER_SPAWN exec 2 No such file or directory',
      screen: `screen 80 2 1 1 3 ${Buffer.from('>>> 1\n2').toString('hex')}`,
    };
    for (const [word, line] of Object.entries(samples)) expect(parse(line).type).toBe(word);
  });
});
