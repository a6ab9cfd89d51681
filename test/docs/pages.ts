// The documentation's pages (README.md and docs/*.md) as the tests that check them read them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repo } from '../faces/helpers.js';

export interface Page {
  /** Relative to the repository: `README.md`, `docs/sandbox.md`. */
  file: string;
  text: string;
}

export function pages(): Page[] {
  const docs = readdirSync(join(repo, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`);
  return ['README.md', ...docs.sort()].map((file) => ({ file, text: readFileSync(join(repo, file), 'utf8') }));
}

export interface Block {
  lang: string;
  /** The block's text, without its fences. */
  body: string;
}

const FENCED = /^```([^\n]*)\n([\s\S]*?)^```/gm;

export function blocks(text: string): Block[] {
  return [...text.matchAll(FENCED)].map((m) => ({ lang: m[1]!.trim(), body: m[2]! }));
}

/** The text outside fenced blocks (links and headings live there). */
export function prose(text: string): string {
  return text.replace(FENCED, '');
}
