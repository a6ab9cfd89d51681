// The tools whose sub-command follows global options: each one's global option table (from its own help or
// source: git 2.47, docker 28, podman 5, kubectl 1.32, helm 3, npm 11, pnpm 9, yarn 1 and 4, cargo 1.95, go 1.24,
// pip 23-25, systemctl 252, gh 2), its built-in aliases, and, for tools whose configuration can define aliases,
// the sub-commands it has, so that any other name may be an alias and is not taken at its word.
import type { OptionTable } from './getopt.js';

export interface ToolSpec {
  /** Global options before the sub-command, parsed up to the first operand. */
  options: OptionTable;
  /** Options that stand for a sub-command (`--version` is `version`) and end the global options. */
  commands?: Readonly<Record<string, string>>;
  /** Options after which no sub-command runs (`cargo --list`). */
  stops?: readonly string[];
  /** Options whose value names a program, a plugin directory or configuration that decides what runs: these ask. */
  opaque?: readonly string[];
  /** Built-in abbreviations: `cargo b` is `cargo build`. */
  aliases?: Readonly<Record<string, string>>;
  /** Its sub-commands, where a configuration file may define aliases: any other word may be one. */
  known?: ReadonlySet<string>;
}

const none = 'none';
const required = 'required';
const optional = 'optional';

/** Git's commands (git --list-cmds=builtins,main,nohelpers, 2.47) and git-lfs. */
export const GIT_COMMANDS: ReadonlySet<string> = new Set(
  [
    'add', 'am', 'annotate', 'apply', 'archimport', 'archive', 'bisect', 'blame', 'branch', 'bugreport', 'bundle',
    'cat-file', 'check-attr', 'check-ignore', 'check-mailmap', 'check-ref-format', 'checkout', 'checkout-index',
    'cherry', 'cherry-pick', 'clean', 'clone', 'column', 'commit', 'commit-graph', 'commit-tree', 'config',
    'count-objects', 'credential', 'credential-cache', 'credential-store', 'cvsexportcommit', 'cvsimport', 'cvsserver',
    'daemon', 'describe', 'diagnose', 'diff', 'diff-files', 'diff-index', 'diff-tree', 'difftool', 'fast-export',
    'fast-import', 'fetch', 'fetch-pack', 'filter-branch', 'fmt-merge-msg', 'for-each-ref', 'for-each-repo',
    'format-patch', 'fsck', 'fsck-objects', 'gc', 'get-tar-commit-id', 'grep', 'hash-object', 'help', 'hook',
    'http-backend', 'http-fetch', 'http-push', 'imap-send', 'index-pack', 'init', 'init-db', 'instaweb',
    'interpret-trailers', 'log', 'ls-files', 'ls-remote', 'ls-tree', 'mailinfo', 'mailsplit', 'maintenance', 'merge',
    'merge-base', 'merge-file', 'merge-index', 'merge-octopus', 'merge-one-file', 'merge-ours', 'merge-recursive',
    'merge-recursive-ours', 'merge-recursive-theirs', 'merge-resolve', 'merge-subtree', 'merge-tree', 'mergetool',
    'mktag', 'mktree', 'multi-pack-index', 'mv', 'name-rev', 'notes', 'p4', 'pack-objects', 'pack-redundant',
    'pack-refs', 'patch-id', 'pickaxe', 'prune', 'prune-packed', 'pull', 'push', 'quiltimport', 'range-diff',
    'read-tree', 'rebase', 'receive-pack', 'reflog', 'refs', 'remote', 'remote-ext', 'remote-fd', 'remote-ftp',
    'remote-ftps', 'remote-http', 'remote-https', 'repack', 'replace', 'replay', 'request-pull', 'rerere', 'reset',
    'restore', 'rev-list', 'rev-parse', 'revert', 'rm', 'send-email', 'send-pack', 'shell', 'shortlog', 'show',
    'show-branch', 'show-index', 'show-ref', 'sparse-checkout', 'stage', 'stash', 'status', 'stripspace', 'submodule',
    'svn', 'switch', 'symbolic-ref', 'tag', 'unpack-file', 'unpack-objects', 'update-index', 'update-ref',
    'update-server-info', 'upload-archive', 'upload-pack', 'var', 'verify-commit', 'verify-pack', 'verify-tag',
    'version', 'whatchanged', 'worktree', 'write-tree', 'lfs',
  ],
);

/** Cobra/pflag tools: a short option's value may follow `=`; no abbreviations. */
const pflag = (long: OptionTable['long'], short: string): OptionTable => ({ short: `+${short}`, long, shortEquals: true });

export const TOOLS: Readonly<Record<string, ToolSpec>> = {
  docker: {
    options: pflag(
      {
        config: required, context: [required, 'c'], debug: [none, 'D'], host: [required, 'H'], 'log-level': [required, 'l'], tls: none,
        tlscacert: required, tlscert: required, tlskey: required, tlsverify: none, version: [none, 'v'], help: [none, 'h'],
      },
      'c:DH:l:vh',
    ),
    commands: { v: 'version', h: 'help' },
    // The client configuration directory holds plugin directories and aliases.
    opaque: ['config'],
  },
  podman: {
    options: pflag(
      {
        'cgroup-manager': required, conmon: required, connection: [required, 'c'], 'events-backend': required, 'hooks-dir': required,
        identity: required, imagestore: required, 'log-level': required, module: required, 'network-cmd-path': required,
        'network-config-dir': required, out: required, remote: [none, 'r'], root: required, runroot: required, runtime: required,
        'runtime-flag': required, ssh: required, 'storage-driver': required, 'storage-opt': required, syslog: none, tmpdir: required,
        'transient-store': none, url: required, volumepath: required, 'cdi-spec-dir': required, help: [none, 'h'], version: [none, 'v'],
        debug: [none, 'D'], config: required,
      },
      'c:rhvD',
    ),
    commands: { v: 'version', h: 'help' },
    // Programs it runs for the containers it starts, and configuration that names more of them.
    opaque: ['conmon', 'hooks-dir', 'network-cmd-path', 'runtime', 'module', 'config', 'cdi-spec-dir'],
  },
  kubectl: {
    options: pflag(
      {
        as: required, 'as-group': required, 'as-uid': required, 'cache-dir': required, 'certificate-authority': required,
        'client-certificate': required, 'client-key': required, cluster: required, context: required, 'disable-compression': none,
        'insecure-skip-tls-verify': none, kubeconfig: required, 'log-flush-frequency': required, 'match-server-version': none,
        namespace: [required, 'n'], password: required, profile: required, 'profile-output': required, 'request-timeout': required,
        server: [required, 's'], 'tls-server-name': required, token: required, user: required, username: required, v: [required, 'v'],
        vmodule: required, 'warnings-as-errors': none, help: [none, 'h'],
      },
      'n:s:v:h',
    ),
    commands: { h: 'help' },
    // A kubeconfig's exec credential plugins run programs.
    opaque: ['kubeconfig'],
  },
  helm: {
    options: pflag(
      {
        'burst-limit': required, debug: none, 'kube-apiserver': required, 'kube-as-group': required, 'kube-as-user': required,
        'kube-ca-file': required, 'kube-context': required, 'kube-insecure-skip-tls-verify': none, 'kube-tls-server-name': required,
        'kube-token': required, kubeconfig: required, namespace: [required, 'n'], qps: required, 'registry-config': required,
        'repository-cache': required, 'repository-config': required, 'content-cache': required, color: required, colour: required,
        help: [none, 'h'],
      },
      'n:h',
    ),
    commands: { h: 'help' },
    opaque: ['kubeconfig'],
  },
  npm: {
    options: {
      short: '+C:w:gsqdlyfDhv',
      long: {
        prefix: [required, 'C'], workspace: [required, 'w'], workspaces: none, 'include-workspace-root': none, global: [none, 'g'],
        location: required, loglevel: required, silent: [none, 's'], quiet: [none, 'q'], verbose: none, registry: required, cache: required,
        yes: [none, 'y'], json: none, 'dry-run': none, force: [none, 'f'], offline: none, 'prefer-offline': none, 'prefer-online': none,
        color: optional, 'no-color': none, 'ignore-scripts': none, 'foreground-scripts': none, 'no-audit': none, 'no-fund': none,
        'no-progress': none, progress: none, fund: none, audit: none, otp: required, tag: required, access: required, 'legacy-peer-deps': none,
        long: [none, 'l'], 'save-dev': [none, 'D'], usage: [none, 'h'], version: [none, 'v'], help: none,
        // Files and programs that decide what its scripts run.
        userconfig: required, globalconfig: required, 'script-shell': required, 'node-options': required, shell: required, editor: required,
      },
      abbreviations: true,
    },
    commands: { v: 'version', h: 'help', help: 'help' },
    opaque: ['userconfig', 'globalconfig', 'script-shell', 'node-options', 'shell', 'editor'],
    // npm 11's lib/utils/cmd-list.js.
    aliases: {
      author: 'owner', home: 'docs', issues: 'bugs', info: 'view', show: 'view', find: 'search', add: 'install', unlink: 'uninstall',
      remove: 'uninstall', rm: 'uninstall', r: 'uninstall', un: 'uninstall', rb: 'rebuild', list: 'ls', ln: 'link', create: 'init',
      i: 'install', it: 'install-test', cit: 'install-ci-test', u: 'update', up: 'update', c: 'config', s: 'search', se: 'search',
      tst: 'test', t: 'test', ddp: 'dedupe', v: 'view', 'run-script': 'run', 'clean-install': 'ci', 'clean-install-test': 'install-ci-test',
      x: 'exec', why: 'explain', la: 'll', verison: 'version', ic: 'ci', innit: 'init', in: 'install', ins: 'install', inst: 'install',
      insta: 'install', instal: 'install', isnt: 'install', isnta: 'install', isntal: 'install', isntall: 'install', 'install-clean': 'ci',
      'isntall-clean': 'ci', hlep: 'help', 'dist-tags': 'dist-tag', upgrade: 'update', udpate: 'update', rum: 'run', sit: 'install-ci-test',
      urn: 'run', ogr: 'org', 'add-user': 'adduser',
    },
  },
  pnpm: {
    options: {
      short: '+C:F:wrsh',
      long: {
        dir: [required, 'C'], filter: [required, 'F'], 'filter-prod': required, 'workspace-root': [none, 'w'], recursive: [none, 'r'],
        silent: [none, 's'], reporter: required, loglevel: required, color: none, 'no-color': none, 'aggregate-output': none, stream: none,
        parallel: none, sequential: none, 'workspace-concurrency': required, 'use-stderr': none, 'resume-from': required,
        'fail-if-no-match': none, 'changed-files-ignore-pattern': required, 'test-pattern': required, 'ignore-workspace': none,
        'include-workspace-root': none, 'no-bail': none, bail: none, 'report-summary': none, 'sort': none, 'no-sort': none, reverse: none,
        'frozen-lockfile': none, offline: none, 'prefer-offline': none, help: [none, 'h'], version: none, 'config-dir': required,
      },
    },
    commands: { h: 'help', help: 'help', version: 'version' },
    opaque: ['config-dir'],
    aliases: { i: 'install', add: 'add', rm: 'remove', un: 'remove', uninstall: 'remove', up: 'update', upgrade: 'update', t: 'test', ls: 'list', x: 'exec', dlx: 'dlx', ln: 'link', 'run-script': 'run' },
  },
  yarn: {
    options: {
      short: '+sv',
      long: {
        cwd: required, verbose: none, offline: none, 'prefer-offline': none, silent: [none, 's'], json: none, 'no-progress': none,
        registry: required, 'cache-folder': required, 'modules-folder': required, mutex: required, 'network-timeout': required,
        'frozen-lockfile': none, 'pure-lockfile': none, 'ignore-scripts': none, 'ignore-engines': none, 'no-default-rc': none,
        'use-yarnrc': required, 'global-folder': required, 'link-folder': required, emoji: optional, 'non-interactive': none, version: [none, 'v'],
        help: none,
      },
    },
    commands: { v: 'version', help: 'help' },
    // A yarnrc can name the yarn to run (yarnPath) and the shell scripts run in.
    opaque: ['use-yarnrc'],
  },
  cargo: {
    options: {
      short: '+VvqC:Z:h',
      long: {
        version: [none, 'V'], list: none, explain: required, verbose: [none, 'v'], quiet: [none, 'q'], color: required, locked: none, offline: none,
        frozen: none, config: required, help: [none, 'h'],
      },
    },
    commands: { V: 'version', h: 'help' },
    stops: ['list', 'explain'],
    // --config can define aliases, runners and compiler wrappers.
    opaque: ['config'],
    aliases: { b: 'build', c: 'check', d: 'doc', r: 'run', t: 'test', rm: 'remove' },
    known: new Set(
      [
        'add', 'bench', 'build', 'check', 'clean', 'clippy', 'config', 'doc', 'fetch', 'fix', 'fmt',
        'generate-lockfile', 'git-checkout', 'help', 'info', 'init', 'install', 'locate-project', 'login', 'logout',
        'metadata', 'miri', 'new', 'nextest', 'owner', 'package', 'pkgid', 'publish', 'read-manifest', 'remove',
        'report', 'run', 'rustc', 'rustdoc', 'search', 'test', 'tree', 'uninstall', 'update', 'vendor',
        'verify-project', 'version', 'yank',
      ],
    ),
  },
  go: { options: { short: '+C:' } },
  pip: {
    options: {
      short: '+hvVq',
      long: {
        help: [none, 'h'], debug: none, isolated: none, 'require-virtualenv': none, python: required, verbose: [none, 'v'], version: [none, 'V'],
        quiet: [none, 'q'], log: required, 'no-input': none, 'keyring-provider': required, proxy: required, retries: required, timeout: required,
        'exists-action': required, 'trusted-host': required, cert: required, 'client-cert': required, 'cache-dir': required, 'no-cache-dir': none,
        'disable-pip-version-check': none, 'no-color': none, 'no-python-version-warning': none, 'use-feature': required, 'use-deprecated': required,
        'resume-retries': required,
      },
      abbreviations: true,
    },
    commands: { h: 'help', V: 'version' },
    // pip runs itself again under the interpreter --python names.
    opaque: ['python'],
  },
  systemctl: {
    options: {
      short: 'ht:p:P:alqfs:H:M:n:o:iTr',
      long: {
        help: [none, 'h'], version: none, type: [required, 't'], property: [required, 'p'], all: [none, 'a'], 'reverse': none, after: none, before: none,
        'show-types': none, failed: none, full: [none, 'l'], 'job-mode': required, fail: none, wait: none, 'ignore-dependencies': none,
        'check-inhibitors': required, 'ignore-inhibitors': none, 'no-block': none, 'no-legend': none, 'legend': required, 'no-pager': none,
        'no-wall': none, root: required, image: required, runtime: none, 'force': [none, 'f'], 'no-reload': none, 'no-ask-password': none,
        global: none, user: none, system: none, 'kill-whom': required, 'kill-value': required, signal: [required, 's'], what: required,
        'no-warn': none, host: [required, 'H'], machine: [required, 'M'], lines: [required, 'n'], output: [required, 'o'], plain: none,
        state: required, 'firmware-setup': none, 'boot-loader-menu': required, 'boot-loader-entry': required, 'reboot-argument': required,
        'recursive': [none, 'r'], 'preset-mode': required, quiet: [none, 'q'], 'value': none, now: none, message: required,
        'show-transaction': [none, 'T'], 'with-dependencies': none, 'dry-run': none, timestamp: required, mkdir: none, marked: none,
        'read-only': none, 'drop-in': required, when: required,
      },
    },
  },
  gh: {
    options: { short: '+h', long: { help: [none, 'h'], version: none } },
    commands: { h: 'help', help: 'help', version: 'version' },
    known: new Set(
      [
        'agent-task', 'alias', 'api', 'attestation', 'auth', 'browse', 'cache', 'co', 'codespace', 'completion',
        'config', 'copilot', 'extension', 'gist', 'gpg-key', 'help', 'issue', 'label', 'org', 'pr', 'preview',
        'project', 'release', 'repo', 'ruleset', 'run', 'search', 'secret', 'ssh-key', 'status', 'variable', 'version',
        'workflow',
      ],
    ),
    aliases: { co: 'pr checkout' },
  },
};

/** Names a tool also goes by: `pip3`, `pip3.11` are pip. */
export function toolName(base: string): string | undefined {
  if (Object.hasOwn(TOOLS, base)) return base;
  if (/^pip\d+(\.\d+)?$/.test(base)) return 'pip';
  return undefined;
}
