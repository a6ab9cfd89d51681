// The contract module is a leaf every layer may use, and no import runs upward from jobs into tools.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const src = join(import.meta.dirname, '../../src');

function imports(dir: string): { file: string; from: string }[] {
  return readdirSync(join(src, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      [...readFileSync(join(src, dir, file), 'utf8').matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gms)].map((m) => ({
        file: `${dir}/${file}`,
        from: m[1]!,
      })),
    );
}

describe('the contract module', () => {
  it('imports nothing outside itself', () => {
    const outside = imports('contract').filter(({ from }) => !from.startsWith('./'));
    expect(outside).toEqual([]);
  });

  it('is where the jobs layer gets its renderers: nothing in src/jobs imports the tools', () => {
    const upward = imports('jobs').filter(({ from }) => from.includes('/tools/'));
    expect(upward).toEqual([]);
  });

  it('replaces the scattered string modules', () => {
    const scattered = ['strings.ts', 'tools/strings.ts', 'jobs/strings.ts', 'tools/render.ts', 'jobs/render.ts'];
    const left = scattered.filter((file) => {
      try {
        readFileSync(join(src, file));
        return true;
      } catch {
        return false;
      }
    });
    expect(left).toEqual([]);
  });
});
