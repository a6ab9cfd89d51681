// The CLI's help, the documentation and the code name the same commands and options: each command's --help lists
// exactly the options its parser takes; each option that sets a configuration path sets exactly the paths it
// declares, which docs/configuration.md and the zod schema hold; every command and option a page of README.md or
// docs/ names exists (or is another program's, listed below with where it is checked).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { composeConfig, RUNTIME_FLAGS, serveConfigSchema } from '../../src/cli/config.js';
import { runtimeOptionsSchema } from '../../src/runtime/options.js';
import { cli, repo } from '../faces/helpers.js';

const shellring = (...args: string[]) => execFileSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
const scratch = mkdtempSync(join(tmpdir(), 'shellring-help-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The options a help text lists, one per line in its option tables: `--name` and its short form. */
function listed(help: string): Map<string, string | undefined> {
  const options = new Map<string, string | undefined>();
  for (const line of help.split('\n')) {
    const match = /^ {2}(?:-(\w), )?--([a-z][\w-]*)/.exec(line);
    if (match) options.set(match[2]!, match[1]);
  }
  return options;
}

/** Every `--name` a text mentions. */
function mentioned(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
}

/** Leaf paths of a value (arrays are leaves), with their values as JSON. */
function leaves(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) out.set(prefix, JSON.stringify(value));
  return out;
}

/** Every path of a zod object schema's JSON form, objects and their fields. */
function schemaPaths(schema: z.ZodType, prefix: string): Set<string> {
  const paths = new Set<string>();
  type Node = { properties?: Record<string, Node>; anyOf?: Node[] };
  const walk = (node: Node, at: string) => {
    const object = node.properties ? node : node.anyOf?.find((variant) => variant.properties);
    for (const [key, child] of Object.entries(object?.properties ?? {})) {
      const path = at ? `${at}.${key}` : key;
      paths.add(path);
      walk(child, path);
    }
  };
  walk(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node, prefix);
  return paths;
}

const configurationPage = readFileSync(join(repo, 'docs/configuration.md'), 'utf8');
/** docs/configuration.md's rows: path -> the flag cell. */
const documented = new Map(
  [...configurationPage.matchAll(/^\| `([^`]+)` \|[^|\n]*\|[^|\n]*\| ([^|\n]*) \|/gm)].map((m) => [m[1]!, m[2]!]),
);

describe('the CLI help names what the code does', () => {
  it('lists the commands the CLI dispatches, and prints each command help from the table', () => {
    const top = shellring('--help');
    const commands = [...top.split('Commands:\n')[1]!.split('\n\n')[0]!.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]);
    expect(commands).toEqual(Object.keys(COMMANDS));
    for (const [name, command] of Object.entries(COMMANDS)) expect(shellring(name, '--help'), name).toBe(command.help);
    const none = spawnSync(process.execPath, [cli], { encoding: 'utf8' });
    expect(none.stderr).toContain(`missing command (${commands.slice(0, -1).join(', ')} or ${commands.at(-1)})`);
    // The top help's own options.
    expect([...listed(top)]).toEqual([
      ['help', 'h'],
      ['version', 'v'],
    ]);
    expect(shellring('--version').trim()).toBe(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version);
  });

  it.each(Object.keys(COMMANDS))('%s --help lists exactly the options its parser takes, and mentions no other', (name) => {
    const { flags, help } = COMMANDS[name]!;
    const inHelp = listed(help);
    expect([...inHelp.keys()].sort()).toEqual(Object.keys(flags).sort());
    for (const [flag, spec] of Object.entries(flags)) expect(inHelp.get(flag), `--${flag}`).toBe(spec.short);
    for (const flag of mentioned(help)) expect(Object.keys(flags), `--${flag} in ${name}'s help`).toContain(flag);
    // And the parser refuses what the help does not list.
    const refused = spawnSync(process.execPath, [cli, name, '--no-such-option'], { encoding: 'utf8', input: '' });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain("unknown option '--no-such-option'");
  });
});

/** A value of each runtime option flag, for composing a configuration with it. */
const SAMPLES: Record<string, string | boolean> = {
  timeout: '5',
  'max-timeout': '6',
  'max-output-bytes': '7',
  'max-spill-bytes': '8',
  'max-jobs': '9',
  sandbox: 'workspace-write',
  'sandbox-backend': 'bubblewrap',
  network: 'deny',
  'network-allow': 'registry.npmjs.org,*.example.org:443',
  'network-deny': 'evil.example',
  'network-presets': 'npm,pypi',
  'network-ask': true,
  'allow-unix-sockets': true,
  'env-inherit': 'none',
  'env-exclude': 'A*',
  'env-include-only': 'B*',
  policy: 'POLICY_FILE',
  'ssh-host': 'agent@build-1:2222',
};

describe('options, configuration paths and docs/configuration.md', () => {
  const policyFile = join(scratch, 'policy.json');
  writeFileSync(policyFile, JSON.stringify({ default: 'ask', rules: [] }));
  const schema = new Set([...schemaPaths(runtimeOptionsSchema, ''), ...schemaPaths(serveConfigSchema, 'serve')]);

  it.each(Object.keys(RUNTIME_FLAGS).filter((flag) => flag !== 'config'))('--%s sets exactly the paths it declares', (flag) => {
    const sample = SAMPLES[flag];
    expect(sample, `add a sample value of --${flag} to SAMPLES`).toBeDefined();
    const base = leaves(composeConfig({}).runtime);
    const set = leaves(composeConfig({ [flag]: sample === 'POLICY_FILE' ? policyFile : sample }).runtime);
    const changed = [...set].filter(([path, value]) => base.get(path) !== value).map(([path]) => path);
    const declared = RUNTIME_FLAGS[flag]!.sets ?? [];
    expect(changed.length, `--${flag} changes nothing`).toBeGreaterThan(0);
    for (const path of changed) expect(declared.some((d) => path === d || path.startsWith(`${d}.`)), `--${flag} sets ${path}`).toBe(true);
    for (const path of declared) expect(changed.some((c) => c === path || c.startsWith(`${path}.`)), `--${flag} declares ${path}`).toBe(true);
  });

  it('documents every path an option sets, under the option, and names no option on a row it does not set', () => {
    const setters = new Map<string, Set<string>>();
    for (const { flags } of Object.values(COMMANDS)) {
      for (const [flag, spec] of Object.entries(flags)) for (const path of spec.sets ?? []) setters.set(path, new Set([...(setters.get(path) ?? []), flag]));
    }
    for (const [path, flags] of setters) {
      expect(schema.has(path), `${path} is in the schema`).toBe(true);
      expect(documented.has(path), `${path} is in docs/configuration.md`).toBe(true);
      expect(mentioned(documented.get(path)!), path).toEqual(flags);
    }
    for (const [path, cell] of documented) if (!setters.has(path)) expect(cell, path).toBe('—');
  });

  it("reads every serve flag's setting from the serve section too: each section field has its flag, or says it is the file's alone", () => {
    const serveOnly = Object.entries(COMMANDS.serve!.flags).filter(([flag]) => !(flag in RUNTIME_FLAGS));
    const source = readFileSync(join(repo, 'src/cli/serve.ts'), 'utf8');
    for (const [flag, spec] of serveOnly) {
      if (flag === 'help') continue;
      expect(spec.sets, `--${flag} declares the serve field it sets`).toHaveLength(1);
      const [, key, inner] = /^serve\.(\w+)(?:\.(\w+))?$/.exec(spec.sets![0]!)!;
      // The command reads the flag and, under it, the config file's field.
      expect(source).toMatch(new RegExp(`values(\\.${flag}\\b|\\['${flag}'\\])`));
      expect(source).toMatch(new RegExp(inner ? `file\\.${key}|oauth\\.${inner}` : `file\\.${key}\\b`));
    }
    const reached = new Set(serveOnly.flatMap(([, spec]) => spec.sets ?? []));
    // serve.oauth's two fields with no flag are the config file's alone, as its row says.
    const fileOnly = ['serve.oauth', 'serve.oauth.scopesSupported', 'serve.oauth.resourceDocumentation'];
    for (const path of schemaPaths(serveConfigSchema, 'serve')) expect(reached.has(path) || fileOnly.includes(path), path).toBe(true);
  });
});

/**
 * Options of other programs that the pages name, and how each is known to be that program's: its help or source,
 * read here, or (for a program not installed here) where its own documentation says so.
 */
const FOREIGN: Record<string, { program: string; check: (() => string) | { unchecked: string } }> = {};
const helpOf = (command: string, ...args: string[]) => () => {
  const out = spawnSync(command, args, { encoding: 'utf8' });
  return `${out.stdout}${out.stderr}`;
};
const sourceOf = (...files: string[]) => () => files.map((file) => readFileSync(join(repo, file), 'utf8')).join('\n');
for (const flag of ['unshare-pid', 'unshare-net', 'unshare-ipc', 'ro-bind', 'tmpfs', 'seccomp', 'cap-drop']) FOREIGN[flag] = { program: 'bwrap', check: helpOf('bwrap', '--help') };
FOREIGN.force = { program: 'git push', check: helpOf('git', 'push', '-h') };
FOREIGN['no-edit'] = { program: 'git commit', check: helpOf('git', 'commit', '-h') };
// cargo clippy takes cargo check's options, as its help says.
FOREIGN.workspace = { program: 'cargo clippy', check: helpOf('cargo', 'check', '--help') };
const runnerSource = () => {
  const dir = join(repo, 'crates/runner/src');
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.rs'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
};
for (const flag of ['stdio', 'serve', 'check-request', 'completed', 'wire']) FOREIGN[flag] = { program: 'shellring-runner', check: runnerSource };
for (const flag of ['transport', 'header']) {
  FOREIGN[flag] = { program: 'claude mcp add', check: { unchecked: 'Claude Code is not installed here; `claude mcp add --help` lists it' } };
}
for (const flag of ['json', 'max-load', 'load-wait']) FOREIGN[flag] = { program: 'npm run bench', check: sourceOf('bench/run.ts') };
// The batch forms of full-screen programs, which the stand-in lets through.
for (const flag of ['headless', 'version', 'batch']) FOREIGN[flag] = { program: 'a full-screen program', check: sourceOf('src/env/bin/shellring-full-screen') };
for (const flag of ['out', 'artifacts', 'all-targets']) FOREIGN[flag] = { program: 'npm run package:platforms', check: sourceOf('.ci/package-platforms.mjs') };
FOREIGN.target = { program: 'npm run release:build', check: sourceOf('.ci/release-build.mjs') };
// npm's own options, as its documentation (installed with it) names them.
// Found beside the npm on PATH: another Node line's prefix (`npm root -g`) may hold no npm of its own.
const npmDocs = () => {
  const cli = realpathSync(execFileSync('bash', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());
  return readFileSync(join(dirname(cli), '../docs/content/using-npm/config.md'), 'utf8');
};
for (const flag of ['silent', 'provenance', 'omit']) FOREIGN[flag] = { program: 'npm', check: npmDocs };
// The options docs/policies.md names where it says which global options the checker passes over and which ask.
for (const flag of ['git-dir', 'work-tree', 'namespace', 'no-pager', 'exec-path', 'config-env']) FOREIGN[flag] = { program: 'git', check: helpOf('git', '--help') };
FOREIGN['receive-pack'] = { program: 'git push', check: helpOf('git', 'push', '-h') };
FOREIGN['upload-pack'] = { program: 'git fetch', check: helpOf('git', 'fetch', '-h') };
for (const flag of ['locked', 'offline', 'color']) FOREIGN[flag] = { program: 'cargo', check: helpOf('cargo', '--help') };
for (const flag of ['userconfig', 'script-shell']) FOREIGN[flag] = { program: 'npm', check: npmDocs };
FOREIGN.faked = { program: 'fakeroot', check: { unchecked: 'not installed by .ci/run; fakeroot(1) lists --faked' } };
FOREIGN['load-interp'] = { program: 'unshare', check: { unchecked: 'util-linux 2.39 and later; unshare(1) lists --load-interp' } };
FOREIGN.kubeconfig = { program: 'kubectl', check: { unchecked: 'not installed by .ci/run; kubectl options lists --kubeconfig' } };
for (const flag of ['conmon', 'runtime', 'hooks-dir']) FOREIGN[flag] = { program: 'podman', check: { unchecked: 'not installed here; podman(1) lists it' } };
FOREIGN.python = { program: 'pip', check: { unchecked: 'pip 22.3 and later; pip --help lists --python' } };
FOREIGN['use-yarnrc'] = { program: 'yarn', check: { unchecked: 'yarn 1 is not installed here; its CLI documentation lists --use-yarnrc' } };

function pages(): { file: string; text: string }[] {
  const docs = readdirSync(join(repo, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`);
  return ['README.md', ...docs].map((file) => ({ file, text: readFileSync(join(repo, file), 'utf8') }));
}

/** The code of a page: fenced blocks and inline code spans. */
function codeOf(text: string): string[] {
  const fenced = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  const prose = text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '');
  return [...fenced, ...[...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)];
}

describe('the pages name the commands and options that exist', () => {
  const all = new Set(Object.values(COMMANDS).flatMap(({ flags }) => Object.keys(flags)));

  it.each(pages().map((page) => page.file))('%s: each `shellring <command> --option` exists', (file) => {
    const { text } = pages().find((page) => page.file === file)!;
    for (const code of codeOf(text)) {
      for (const line of code.split('\n')) {
        for (const m of line.matchAll(/(?:^|[\s"'(])shellring[ \t]+([a-z][a-z0-9-]*)(?=\s|$)([^|;&#>]*)/g)) {
          const command = COMMANDS[m[1]!];
          expect(command, `${file}: shellring ${m[1]} in: ${line}`).toBeDefined();
          // Options up to a lone `--` (run's command follows it).
          const options = m[2]!.split(/\s--(?:\s|$)/)[0]!;
          for (const flag of mentioned(options)) expect(Object.keys(command!.flags), `${file}: shellring ${m[1]} --${flag}`).toContain(flag);
        }
        for (const m of line.matchAll(/"shellring",\s*"([a-z][a-z0-9-]*)"((?:,\s*"[^"]*")*)/g)) {
          const command = COMMANDS[m[1]!];
          expect(command, `${file}: "shellring", "${m[1]}"`).toBeDefined();
          for (const flag of mentioned(m[2]!)) expect(Object.keys(command!.flags), `${file}: shellring ${m[1]} --${flag}`).toContain(flag);
        }
      }
    }
  });

  it.each(pages().map((page) => page.file))('%s: every --option named is one of shellring, or a listed program', (file) => {
    const { text } = pages().find((page) => page.file === file)!;
    for (const flag of mentioned(text)) {
      if (all.has(flag)) continue;
      expect(FOREIGN[flag], `${file} names --${flag}: no shellring command takes it (a typo, or an option that went away?)`).toBeDefined();
    }
  });

  it('checks each listed program option against that program', () => {
    // git writes a negatable option as --[no-]force; npm's documentation heads each option `#### \`omit\``.
    for (const [flag, { program, check }] of Object.entries(FOREIGN)) {
      if (typeof check !== 'function') continue;
      const negated = flag.replace(/^no-/, '');
      expect(check(), `--${flag} of ${program}`).toMatch(new RegExp(`--(\\[no-\\])?${flag}\\b|--\\[no-\\]${negated}\\b|#### \`${flag}\``));
    }
  });
});
