// Loads test/tools/golden.json: the foreground result texts every renderer and every real run must match.
import { readFileSync } from 'node:fs';
import type { renderForeground } from '../../src/index.js';

export interface GoldenCase {
  name: string;
  golden?: boolean;
  escalationAdvertised?: boolean;
  facts: Parameters<typeof renderForeground>[0];
  text: string;
}

export const goldenCases: GoldenCase[] = JSON.parse(readFileSync(new URL('./golden.json', import.meta.url), 'utf8')).cases;

/** The expected text of the case with this name. */
export function golden(name: string): string {
  const found = goldenCases.find((c) => c.name === name);
  if (!found) throw new Error(`no golden case named ${JSON.stringify(name)}`);
  return found.text;
}
