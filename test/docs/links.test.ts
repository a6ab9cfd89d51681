// Every link and picture of README.md and docs/ resolves: the file exists, and a `#anchor` names a heading of it as
// GitHub makes anchors; every page of docs/ is reachable from the README.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repo } from '../faces/helpers.js';
import { pages, prose } from './pages.js';

/** GitHub's anchor of a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a Markdown file offers: one per heading, a repeated one numbered (`-1`, `-2`) as GitHub does. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Links and pictures outside code: `[text](target)` and `![alt](target)`, with their targets. */
function links(text: string): string[] {
  const outside = prose(text).replace(/`[^`\n]*`/g, '');
  return [...outside.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

describe('links of README.md and docs/', () => {
  it.each(pages().map((page) => [page.file, page.text]))('%s: every link names a file that exists, and a heading of it', (file, text) => {
    const found = links(text);
    for (const target of found) {
      if (/^(https?|mailto):/.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? join(repo, file) : normalize(join(repo, dirname(file), decodeURIComponent(path)));
      expect(relative(repo, resolved).startsWith('..'), `${file}: ${target} leaves the repository`).toBe(false);
      expect(existsSync(resolved), `${file}: ${target}`).toBe(true);
      if (anchor !== undefined) {
        expect(resolved.endsWith('.md'), `${file}: ${target} has an anchor into a file that is not Markdown`).toBe(true);
        expect([...anchors(resolved)], `${file}: ${target}`).toContain(anchor);
      }
    }
  });

  it('reaches every page of docs/ from the README', () => {
    const readme = pages().find((page) => page.file === 'README.md')!;
    const linked = new Set(links(readme.text).map((target) => target.split('#')[0]));
    for (const { file } of pages()) if (file !== 'README.md') expect(linked, file).toContain(file);
  });

  it('shows every picture of docs/ somewhere', () => {
    const shown = new Set(
      pages().flatMap(({ file, text }) => links(text).map((target) => normalize(join(dirname(file), target.split('#')[0]!)))),
    );
    const pictures = readdirSync(join(repo, 'docs'), { recursive: true, encoding: 'utf8' }).filter((file) => /\.(png|svg)$/.test(file));
    for (const picture of pictures) expect(shown, `docs/${picture} is shown by no page`).toContain(join('docs', picture));
  });

  it('makes anchors as GitHub does', () => {
    expect(anchorOf('`serve`: the HTTP server\'s section of a `--config` file')).toBe('serve-the-http-servers-section-of-a---config-file');
    expect(anchorOf('Use it in an MCP client')).toBe('use-it-in-an-mcp-client');
    expect(anchorOf('Scheduling: the event loop before the commands')).toBe('scheduling-the-event-loop-before-the-commands');
  });
});
