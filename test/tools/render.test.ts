// The pure renderers: every golden through renderForeground, parseExitStatus (the exit pill from text alone),
// presentCall/presentResult (the exit pill from structuredContent).
import { describe, expect, it } from 'vitest';
import { parseExitStatus, presentCall, presentResult, renderForeground, type ToolResult } from '../../src/index.js';
import { appendLine, Lines } from '../../src/contract/markers.js';
import { golden, goldenCases } from './golden.js';

describe('renderForeground', () => {
  it.each(goldenCases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(renderForeground(c.facts, c.escalationAdvertised ?? false)).toBe(c.text);
  });

  it('holds the five goldens of the contract, byte for byte', () => {
    expect(goldenCases.filter((c) => c.golden).map((c) => c.text)).toEqual([
      'out\n[stderr]\nerr\n',
      'failing\n[exit code: 3]',
      '(no output)\n[timed out after 100ms]\n[killed by signal: SIGTERM]',
      'tail\n[output truncated; full output: (unavailable)]',
      '(no output)\n[stopped: cancelled by the user]\n[killed by signal: SIGTERM]',
    ]);
  });

  it('says on the next line why a cut stream has no spill file, on stdout and on stderr', () => {
    const cut = { text: 'tail', truncated: true, spillUnavailable: 'the stream passed 10 bytes, the most one spill file may hold (maxSpillBytes)' };
    const facts = { exitCode: 1, signal: null, timedOut: false, timeoutMs: 1000, stdout: cut, stderr: cut };
    expect(renderForeground(facts)).toBe(
      'tail\n[output truncated; full output: (unavailable)]\n[spill unavailable: the stream passed 10 bytes, the most one spill file may hold (maxSpillBytes)]\n' +
        '[stderr]\ntail\n[output truncated; full output: (unavailable)]\n[spill unavailable: the stream passed 10 bytes, the most one spill file may hold (maxSpillBytes)]\n' +
        '[exit code: 1]',
    );
    // A complete spill names its file and needs no reason.
    expect(renderForeground({ ...facts, stderr: { text: '', truncated: false }, stdout: { ...cut, spillPath: '/s/1.log' } })).toBe(
      'tail\n[output truncated; full output: /s/1.log]\n[exit code: 1]',
    );
  });

  it('joins lines as appendLine does, for every sequence of empty, open and newline-ended pieces', () => {
    const pieces = ['', 'a', 'b\n', '\n', 'c\nd'];
    const sequences = (n: number): string[][] => (n === 0 ? [[]] : sequences(n - 1).flatMap((s) => pieces.map((p) => [...s, p])));
    for (const sequence of sequences(4)) {
      const lines = new Lines();
      for (const piece of sequence) lines.add(piece);
      expect(lines.text, JSON.stringify(sequence)).toBe(sequence.reduce(appendLine, ''));
    }
  });

  it('renders a cut stderr whose tail kept nothing under its own header', () => {
    const facts = {
      exitCode: 2,
      signal: null,
      timedOut: false,
      timeoutMs: 1000,
      stdout: { text: 'out', truncated: false },
      stderr: { text: '', truncated: true, spillPath: '/s/err' },
    };
    expect(renderForeground(facts)).toBe('out\n[stderr]\n[output truncated; full output: /s/err]\n[exit code: 2]');
  });

  it('never shows the escalation hint unless escalation is advertised', () => {
    const denied = goldenCases.find((c) => c.name === 'sandbox denial with the escalation hint when escalation is advertised')!;
    expect(renderForeground(denied.facts, false)).toBe(
      '[stderr]\ndenied\n[sandbox: file access denied under workspace-write mode]\n[exit code: 1]',
    );
  });
});

describe('parseExitStatus', () => {
  it.each([
    ['clean output has exit 0 and stays whole', 'out\n', { output: 'out\n', exitCode: 0 }],
    ['(no output) has exit 0', '(no output)', { output: '(no output)', exitCode: 0 }],
    ['a final exit code marker', 'failing\n[exit code: 3]', { output: 'failing', exitCode: 3 }],
    ['a negative exit code', '(no output)\n[exit code: -1]', { output: '(no output)', exitCode: -1 }],
    ['a null exit code', 'x\n[exit code: null]', { output: 'x', exitCode: null }],
    ['a final signal marker', '(no output)\n[killed by signal: SIGKILL]', { output: '(no output)', signal: 'SIGKILL' }],
    [
      'only the final marker goes; the timeout marker stays in the body',
      '(no output)\n[timed out after 100ms]\n[killed by signal: SIGTERM]',
      { output: '(no output)\n[timed out after 100ms]', signal: 'SIGTERM' },
    ],
    [
      'the stopped marker stays in the body',
      '(no output)\n[stopped: cancelled by the user]\n[killed by signal: SIGTERM]',
      { output: '(no output)\n[stopped: cancelled by the user]', signal: 'SIGTERM' },
    ],
    ['a marker that is not last is output', 'x\n[exit code: 3]\nmore', { output: 'x\n[exit code: 3]\nmore', exitCode: 0 }],
    ['a marker followed by a newline is output', 'x\n[exit code: 3]\n', { output: 'x\n[exit code: 3]\n', exitCode: 0 }],
    ['a marker without its own line is output', 'x[exit code: 3]', { output: 'x[exit code: 3]', exitCode: 0 }],
    ['a malformed code is output', 'x\n[exit code: three]', { output: 'x\n[exit code: three]', exitCode: 0 }],
    [
      'a truncation line stays in the body',
      'tail\n[output truncated; full output: (unavailable)]',
      { output: 'tail\n[output truncated; full output: (unavailable)]', exitCode: 0 },
    ],
  ])('%s', (_name, input, expected) => {
    expect(parseExitStatus(input)).toEqual(expected);
  });

  it('round-trips every golden: the body plus the removed marker is the text', () => {
    for (const c of goldenCases) {
      const parsed = parseExitStatus(c.text);
      const marker =
        'signal' in parsed ? `\n[killed by signal: ${parsed.signal}]` : parsed.exitCode === 0 ? '' : `\n[exit code: ${parsed.exitCode}]`;
      expect(parsed.output + marker, c.name).toBe(c.text);
    }
  });
});

const result = (text: string, structuredContent?: Record<string, unknown>, isError?: boolean): ToolResult => ({
  content: [{ type: 'text', text }],
  ...(structuredContent ? { structuredContent } : {}),
  ...(isError ? { isError } : {}),
});

describe('presentCall', () => {
  it('shows a foreground call as a terminal card', () => {
    expect(presentCall({ command: 'ls -la', description: 'List the files here', workdir: 'src' })).toEqual({
      type: 'terminal',
      title: 'ls -la',
      description: 'List the files here',
      cwd: 'src',
    });
    expect(presentCall({ command: 'ls', description: 'List files' })).toEqual({
      type: 'terminal',
      title: 'ls',
      description: 'List files',
    });
  });

  it('names the resolved working directory, with or without a workdir, given the session directory', () => {
    const session = { cwd: '/srv/project' };
    expect(presentCall({ command: 'ls', description: 'List files' }, session)).toEqual({
      type: 'terminal',
      title: 'ls',
      description: 'List files',
      cwd: '/srv/project',
    });
    expect(presentCall({ command: 'ls', description: 'List files', workdir: 'src/../lib' }, session).cwd).toBe('/srv/project/lib');
    expect(presentCall({ command: 'ls', description: 'List files', workdir: '/tmp/x/' }, session).cwd).toBe('/tmp/x');
    // Without the session directory a relative workdir is shown as given.
    expect(presentCall({ command: 'ls', description: 'List files', workdir: '/tmp/x/..' }).cwd).toBe('/tmp');
  });

  it('shows a background start as a generic card', () => {
    expect(presentCall({ command: 'npm run dev', description: 'Start the dev server', run_in_background: true })).toEqual({
      type: 'generic',
      title: 'npm run dev',
      description: 'Start the dev server',
    });
  });

  it('is total over malformed arguments (replay of anything recorded)', () => {
    expect(presentCall({ command: 42, description: null })).toEqual({ type: 'terminal', title: '', description: undefined });
    expect(presentCall(null)).toEqual({ type: 'terminal', title: '', description: undefined });
    expect(presentCall({ command: 'ls', workdir: 7 }, { cwd: 'relative' })).toEqual({ type: 'terminal', title: 'ls', description: undefined });
  });
});

/** A golden's text with the structured facts a real foreground result carries beside it. */
const foreground = (name: string): ToolResult => {
  const { facts } = goldenCases.find((c) => c.name === name)!;
  return result(golden(name), { kind: 'foreground', exitCode: facts.exitCode, signal: facts.signal });
};

describe('presentResult', () => {
  it('turns a foreground result into output and its exit pill', () => {
    expect(presentResult(foreground('non-zero exit code marker'))).toEqual({
      type: 'terminal',
      output: 'failing',
      exitCode: 3,
    });
    expect(presentResult(foreground('timed out and killed'))).toEqual({
      type: 'terminal',
      output: '(no output)\n[timed out after 100ms]',
      signal: 'SIGTERM',
    });
    expect(presentResult(result('out\n', { kind: 'foreground', exitCode: 0, signal: null }))).toEqual({ type: 'terminal', output: 'out\n', exitCode: 0 });
  });

  it('takes the exit pill from structuredContent, never from text that looks like a marker', () => {
    // A command that exited 0 after printing a line shaped like the exit marker: that line is its output.
    expect(presentResult(result('done\n[exit code: 3]', { kind: 'foreground', exitCode: 0, signal: null }))).toEqual({
      type: 'terminal',
      output: 'done\n[exit code: 3]',
      exitCode: 0,
    });
    // A signal the text's last line does not match leaves the text whole.
    expect(presentResult(result('x\n[exit code: 1]', { kind: 'foreground', exitCode: null, signal: 'SIGKILL' }))).toEqual({
      type: 'terminal',
      output: 'x\n[exit code: 1]',
      signal: 'SIGKILL',
    });
  });

  it('round-trips every golden: the output plus the marker its facts name is the text', () => {
    for (const c of goldenCases) {
      const card = presentResult(foreground(c.name));
      if (card.type !== 'terminal') throw new Error(c.name);
      const marker = 'signal' in card ? `\n[killed by signal: ${card.signal}]` : card.exitCode === 0 ? '' : `\n[exit code: ${card.exitCode}]`;
      expect(card.output + marker, c.name).toBe(c.text);
      expect('signal' in card ? card.signal : card.exitCode, c.name).toEqual(c.facts.signal ?? c.facts.exitCode);
    }
  });

  it('renders background starts, promotions and errors as a fenced console block', () => {
    expect(presentResult(result('started background job bash-1', { kind: 'background', jobId: 'bash-1' }))).toEqual({
      type: 'console',
      text: '```console\nstarted background job bash-1\n```',
    });
    expect(presentResult(result('1\n[still running after 100ms; moved to background job bash-2]', { kind: 'promoted' }))).toEqual({
      type: 'console',
      text: '```console\n1\n[still running after 100ms; moved to background job bash-2]\n```',
    });
    expect(presentResult(result('Error: tool call aborted', undefined, true))).toEqual({
      type: 'console',
      text: '```console\nError: tool call aborted\n```',
    });
  });

  it('uses a fence longer than any backtick run in the text', () => {
    const card = presentResult(result('a ```` b', { kind: 'background' }));
    expect(card).toEqual({ type: 'console', text: '`````console\na ```` b\n`````' });
  });

  it('is replay-safe: presenting the same result twice gives the same card', () => {
    const r = foreground('stopped by a person');
    expect(presentResult(r)).toEqual(presentResult(r));
    expect(r.content[0]!.text).toBe(golden('stopped by a person'));
  });
});
