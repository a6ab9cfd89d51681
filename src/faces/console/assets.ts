// The page's static files (no build step) and the pinned browser libraries, served from node_modules.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ShellringError } from '../../errors.js';
import { facePeerError } from '../peers.js';

export interface Asset {
  body: Buffer;
  type: string;
}

const PAGE = new URL('./page/', import.meta.url);

/** The ES module files of the pinned packages, served at the paths the page's import map names. */
const VENDOR: Record<string, [pkg: string, file: string]> = {
  'preact.js': ['preact', 'dist/preact.mjs'],
  'preact-hooks.js': ['preact', 'hooks/dist/hooks.mjs'],
  'htm.js': ['htm', 'dist/htm.mjs'],
  'htm-preact.js': ['htm', 'preact/index.mjs'],
  'ansi_up.js': ['ansi_up', 'ansi_up.js'],
};

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

export class Assets {
  readonly #files = new Map<string, Asset>();
  readonly #index: string;
  /** The Content-Security-Policy of every page response: no inline code except the import map, by hash. */
  readonly csp: string;

  constructor() {
    // Every script and stylesheet of the page (index.html is served with its CSRF value, below).
    for (const name of readdirSync(PAGE).filter((file) => /\.(js|css)$/.test(file))) {
      this.#files.set(`console/${name}`, { body: readFileSync(new URL(name, PAGE)), type: TYPES[name.split('.').pop()!]! });
    }
    for (const [name, [pkg, file]] of Object.entries(VENDOR)) {
      this.#files.set(`console/vendor/${name}`, { body: readFileSync(join(packageRoot(pkg), file)), type: TYPES.js! });
    }
    this.#index = readFileSync(new URL('index.html', PAGE), 'utf8');
    const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(this.#index)![1]!;
    const hash = createHash('sha256').update(map).digest('base64');
    this.csp = [
      "default-src 'none'",
      `script-src 'self' 'sha256-${hash}'`,
      "style-src 'self'",
      // ansi_up colours 256-colour and true-colour runs with a style attribute.
      "style-src-attr 'unsafe-inline'",
      "connect-src 'self'",
      "img-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');
  }

  get(path: string): Asset | undefined {
    return this.#files.get(path);
  }

  /** The page, carrying its CSRF value (attribute-safe: base64url). */
  index(csrf: string): Buffer {
    return Buffer.from(this.#index.replace('__CSRF__', csrf));
  }
}

/** A dependency's directory, found from its entry point (its exports map may not expose package.json). */
function packageRoot(name: string): string {
  let dir: string;
  try {
    dir = dirname(createRequire(import.meta.url).resolve(name));
  } catch (error) {
    throw facePeerError(error, 'The web console', ['console']);
  }
  while (!existsSync(join(dir, 'package.json')) || !dir.endsWith(name)) {
    const parent = dirname(dir);
    if (parent === dir) throw new ShellringError('SHELLRING_INVALID_CONFIG', `cannot find the installed package ${name}`);
    dir = parent;
  }
  return dir;
}
