// The tests a cargo target holds, read from its sources without building it: each `#[test]` function's path
// (`module::tests::name`), which is the text a `cargo test <filter>` filter is a substring of.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The crate directory of each workspace package, by package name. */
export function workspacePackages(repo) {
  const packages = new Map();
  for (const entry of readdirSync(join(repo, 'crates'), { withFileTypes: true })) {
    const manifest = join(repo, 'crates', entry.name, 'Cargo.toml');
    if (!entry.isDirectory() || !existsSync(manifest)) continue;
    const name = /^\[package\][^[]*?^name\s*=\s*"([^"]+)"/ms.exec(readFileSync(manifest, 'utf8'))?.[1];
    if (name) packages.set(name, dirname(manifest));
  }
  return packages;
}

/** The root source file of a target: `lib` or `test` (an integration test by name), or undefined. */
export function targetRoot(crate, kind, name) {
  const manifest = readFileSync(join(crate, 'Cargo.toml'), 'utf8');
  if (kind === 'lib') {
    const path = /^\[lib\][^[]*?^path\s*=\s*"([^"]+)"/ms.exec(manifest)?.[1] ?? 'src/lib.rs';
    return existsSync(join(crate, path)) ? join(crate, path) : undefined;
  }
  for (const section of manifest.split(/^\[\[test\]\]/m).slice(1)) {
    if (/^name\s*=\s*"([^"]+)"/m.exec(section)?.[1] === name) {
      const path = /^path\s*=\s*"([^"]+)"/m.exec(section)?.[1];
      if (path) return join(crate, path);
    }
  }
  return [join(crate, 'tests', `${name}.rs`), join(crate, 'tests', name, 'main.rs')].find((path) => existsSync(path));
}

/** Every test function's path in the module tree rooted at `root` (a crate root: lib.rs, main.rs or tests/x.rs). */
export function cargoTests(root) {
  const found = [];
  readModule(root, dirname(root), [], found);
  return found;
}

/** `dir` is where this file's `mod x;` children live. */
function readModule(file, dir, path, found) {
  const code = stripped(readFileSync(file, 'utf8'));
  const stack = [{ path, depth: 0 }];
  let depth = 0;
  let pendingTest = false;
  const token = /#\s*\[\s*(?:[\w:]+::)?test\s*\]|\bmod\s+(\w+)\s*([;{])|\bfn\s+(\w+)|[{}]/g;
  for (let m = token.exec(code); m; m = token.exec(code)) {
    const [text, mod, end, fn] = m;
    const current = stack.at(-1).path;
    if (text === '{') depth += 1;
    else if (text === '}') {
      depth -= 1;
      if (stack.length > 1 && depth < stack.at(-1).depth) stack.pop();
    } else if (mod && end === ';') {
      const child = [join(dir, `${mod}.rs`), join(dir, mod, 'mod.rs')].find((candidate) => existsSync(candidate));
      if (child) readModule(child, join(dir, mod), [...current, mod], found);
    } else if (mod) {
      depth += 1;
      stack.push({ path: [...current, mod], depth });
    } else if (fn) {
      if (pendingTest) found.push([...current, fn].join('::'));
      pendingTest = false;
    } else pendingTest = true;
  }
  return found;
}

/** The code without comments, string, byte-string, raw-string and char literals (each replaced by a space), so the
 * braces and names left are the code's own. */
function stripped(code) {
  return code.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|b?r(#*)"[\s\S]*?"\1|b?"(?:\\[\s\S]|[^"\\])*"|b?'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^'\\])'/g,
    ' ',
  );
}
