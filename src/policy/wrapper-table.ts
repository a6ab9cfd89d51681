// The exec wrappers the checker strips (`timeout 5 rm …` is checked as `rm …`): each one's getopt table, as its
// source or man page states it (coreutils 9.1-9.9, util-linux 2.38-2.41, procps-ng 4.0, findutils 4.9, shadow 4.13,
// strace 6.1, systemd 252, sudo, doas, busybox, polkit, fakeroot), and how the command it runs follows its options.
// Where versions disagree on whether an option takes an argument, the option is left out, so it asks.
import type { OptionTable } from './getopt.js';

export interface WrapperSpec {
  options: OptionTable;
  /** Words between its options and the command (`timeout DURATION`); `priority`: chrt's optional priority. */
  operands?: number | 'priority';
  /** What runs when no command follows: nothing, or an interactive shell that reads its standard input. */
  bare?: 'nothing' | 'shell';
  /** Options after which it runs no command (`taskset -p`). */
  stops?: readonly string[];
  /** Options whose value names a program or file that decides what runs (`fakeroot --faked`): these ask. */
  opaque?: readonly string[];
  /** Options whose value is a `NAME=value` for the command's environment (`strace -E`). */
  environment?: readonly string[];
  /** `NAME=value` words before the command set its environment (env, sudo). */
  assignments?: boolean;
  /** How the command follows, where that is not operands then argv (see wrappers.ts). */
  form?: 'coproc' | 'env' | 'flock' | 'sg' | 'newgrp' | 'watch' | 'su' | 'runuser' | 'script' | 'setarch' | 'runcon' | 'xargs' | 'busybox' | 'pkexec' | 'strace' | 'systemd-run';
}

const none = 'none';
const required = 'required';
const optional = 'optional';

/** setarch's personality flags (util-linux), shared by its architecture-named links. */
const SETARCH: OptionTable = {
  short: '+hVv3BFILRSTXZp:',
  long: {
    help: [none, 'h'], version: [none, 'V'], verbose: [none, 'v'], 'addr-no-randomize': [none, 'R'], 'fdpic-funcptrs': [none, 'F'],
    'mmap-page-zero': [none, 'Z'], 'addr-compat-layout': [none, 'L'], 'read-implies-exec': [none, 'X'], '32bit': [none, 'B'],
    'short-inode': [none, 'I'], 'whole-seconds': [none, 'S'], 'sticky-timeouts': [none, 'T'], '3gb': [none, '3'], '4gb': none,
    'uname-2.6': none, list: none, show: optional, pid: [required, 'p'],
  },
  abbreviations: true,
};
const setarch: WrapperSpec = { options: SETARCH, form: 'setarch', bare: 'shell', stops: ['h', 'V', 'list', 'show', 'p'] };

/** su and runuser share su-common.c's table (options permute). */
const SU: OptionTable = {
  short: 'c:fg:G:lmpPTs:u:hVw:',
  long: {
    command: [required, 'c'], 'session-command': [required, 'C'], fast: [none, 'f'], login: [none, 'l'], 'preserve-environment': [none, 'p'],
    pty: [none, 'P'], 'no-pty': [none, 'T'], shell: [required, 's'], group: [required, 'g'], 'supp-group': [required, 'G'],
    user: [required, 'u'], 'whitelist-environment': [required, 'w'], help: [none, 'h'], version: [none, 'V'],
  },
  abbreviations: true,
};

export const WRAPPERS: Readonly<Record<string, WrapperSpec>> = {
  // coreutils
  timeout: {
    options: {
      short: '+fk:ps:v',
      long: { foreground: [none, 'f'], 'kill-after': [required, 'k'], 'preserve-status': [none, 'p'], signal: [required, 's'], verbose: [none, 'v'], help: none, version: none },
      abbreviations: true,
    },
    operands: 1,
    stops: ['help', 'version'],
  },
  nice: { options: { short: '+n:', long: { adjustment: [required, 'n'], help: none, version: none }, abbreviations: true, numeric: true }, stops: ['help', 'version'], bare: 'nothing' },
  nohup: { options: { short: '+', long: { help: none, version: none }, abbreviations: true }, stops: ['help', 'version'] },
  env: {
    options: {
      short: '+a:C:iS:u:v0 \t\n\v\f\r',
      long: {
        argv0: [required, 'a'], 'ignore-environment': [none, 'i'], 'env0-from': required, null: [none, '0'], unset: [required, 'u'], chdir: [required, 'C'],
        'default-signal': optional, 'ignore-signal': optional, 'block-signal': optional, 'list-signal-handling': none, debug: [none, 'v'],
        'split-string': [required, 'S'], help: none, version: none,
      },
      abbreviations: true,
    },
    form: 'env',
    opaque: ['env0-from'],
    stops: ['help', 'version'],
    assignments: true,
    bare: 'nothing',
  },
  stdbuf: { options: { short: '+i:o:e:', long: { input: [required, 'i'], output: [required, 'o'], error: [required, 'e'], help: none, version: none }, abbreviations: true }, stops: ['help', 'version'] },
  chroot: {
    options: { short: '+', long: { groups: required, userspec: required, 'skip-chdir': none, help: none, version: none }, abbreviations: true },
    operands: 1,
    bare: 'shell',
    stops: ['help', 'version'],
  },
  runcon: {
    options: {
      short: '+r:t:u:l:c',
      long: { role: [required, 'r'], type: [required, 't'], user: [required, 'u'], range: [required, 'l'], compute: [none, 'c'], help: none, version: none },
      abbreviations: true,
    },
    form: 'runcon',
    stops: ['help', 'version'],
  },
  // util-linux
  setsid: { options: { short: '+Vhcfw', long: { ctty: [none, 'c'], fork: [none, 'f'], wait: [none, 'w'], version: [none, 'V'], help: [none, 'h'] }, abbreviations: true }, stops: ['V', 'h'] },
  taskset: {
    options: { short: '+apchV', long: { 'all-tasks': [none, 'a'], pid: [none, 'p'], 'cpu-list': [none, 'c'], help: [none, 'h'], version: [none, 'V'] }, abbreviations: true },
    operands: 1,
    stops: ['p', 'h', 'V'],
  },
  chrt: {
    options: {
      short: '+abdD:efiphmoOP:T:rRU:X:GvV',
      long: {
        'all-tasks': [none, 'a'], batch: [none, 'b'], 'clamp-min': [required, 'U'], 'clamp-max': [required, 'X'], deadline: [none, 'd'],
        'deadline-overrun': [none, 'O'], ext: [none, 'e'], fifo: [none, 'f'], idle: [none, 'i'], pid: [none, 'p'], help: [none, 'h'], max: [none, 'm'],
        other: [none, 'o'], rr: [none, 'r'], 'sched-runtime': [required, 'T'], 'sched-period': [required, 'P'], 'sched-deadline': [required, 'D'],
        'reset-on-fork': [none, 'R'], 'reclaim-grub': [none, 'G'], verbose: [none, 'v'], version: [none, 'V'],
      },
      abbreviations: true,
    },
    operands: 'priority',
    // Not -p: `chrt -p 0 rm 0` runs rm (pid 0 is chrt itself).
    stops: ['m', 'h', 'V'],
  },
  flock: {
    options: {
      short: '+sexnoFuw:E:hV',
      long: {
        shared: [none, 's'], exclusive: [none, 'x'], unlock: [none, 'u'], nonblocking: [none, 'n'], nb: [none, 'n'], timeout: [required, 'w'],
        wait: [required, 'w'], 'conflict-exit-code': [required, 'E'], close: [none, 'o'], 'no-fork': [none, 'F'], verbose: none, fcntl: none,
        start: required, length: required, fd: required, help: [none, 'h'], version: [none, 'V'],
      },
      abbreviations: true,
    },
    form: 'flock',
    stops: ['h', 'V'],
  },
  prlimit: {
    options: {
      short: '+c::d::e::f::i::l::m::n::q::r::s::t::u::v::x::y::p:o:vVh',
      long: {
        pid: [required, 'p'], output: [required, 'o'], as: [optional, 'v'], core: [optional, 'c'], cpu: [optional, 't'], data: [optional, 'd'],
        fsize: [optional, 'f'], locks: [optional, 'x'], memlock: [optional, 'l'], msgqueue: [optional, 'q'], nice: [optional, 'e'], nofile: [optional, 'n'],
        nproc: [optional, 'u'], rss: [optional, 'm'], rtprio: [optional, 'r'], rttime: [optional, 'y'], sigpending: [optional, 'i'], stack: [optional, 's'],
        version: [none, 'V'], help: [none, 'h'], noheadings: none, raw: none, verbose: none,
      },
      abbreviations: true,
    },
    bare: 'nothing',
    stops: ['p', 'V', 'h'],
  },
  setpriv: {
    options: {
      short: '+dhV',
      long: {
        dump: [none, 'd'], nnp: none, 'no-new-privs': none, 'inh-caps': required, 'ambient-caps': required, 'list-caps': none, ruid: required,
        euid: required, rgid: required, egid: required, reuid: required, regid: required, 'clear-groups': none, 'keep-groups': none,
        'init-groups': none, groups: required, 'bounding-set': required, securebits: required, pdeathsig: required, ptracer: required,
        'selinux-label': required, 'apparmor-profile': required, 'landlock-access': required, 'landlock-rule': required, 'landlock-support': none,
        'list-landlock-access': none, 'list-landlock-rights': required, 'seccomp-filter': required, help: [none, 'h'], 'reset-env': none, version: [none, 'V'],
      },
      abbreviations: true,
    },
    stops: ['d', 'h', 'V', 'list-caps', 'landlock-support', 'list-landlock-access', 'list-landlock-rights'],
  },
  unshare: {
    options: {
      short: '+fhVmuinpCTUrR:w:S:G:cl:',
      long: {
        help: [none, 'h'], version: [none, 'V'], mount: [optional, 'm'], uts: [optional, 'u'], ipc: [optional, 'i'], net: [optional, 'n'], pid: [optional, 'p'],
        user: [optional, 'U'], cgroup: [optional, 'C'], time: [optional, 'T'], fork: [none, 'f'], 'kill-child': optional, 'forward-signals': none,
        'mount-proc': optional, 'mount-binfmt': optional, 'map-user': required, 'map-users': required, 'map-group': required, 'map-groups': required,
        'map-root-user': [none, 'r'], 'map-current-user': [none, 'c'], 'map-auto': none, 'map-subids': none, owner: required, propagation: required,
        setgroups: required, 'keep-caps': none, setuid: [required, 'S'], setgid: [required, 'G'], root: [required, 'R'], wd: [required, 'w'],
        monotonic: required, boottime: required, 'load-interp': [required, 'l'], 'clear-env': none, 'whitelist-env': required,
      },
      abbreviations: true,
    },
    bare: 'shell',
    stops: ['h', 'V'],
    // A binfmt_misc interpreter registered for the namespace runs in place of the programs it matches.
    opaque: ['l'],
  },
  nsenter: {
    options: {
      // -W is left out: 2.38 takes its argument as the next word, 2.40 only attached.
      short: '+ahVt:m::u::i::n::N:p::C::U::T::S:G:r::w::ecFZ',
      long: {
        all: [none, 'a'], help: [none, 'h'], version: [none, 'V'], target: [required, 't'], mount: [optional, 'm'], uts: [optional, 'u'], ipc: [optional, 'i'],
        net: [optional, 'n'], 'net-socket': [required, 'N'], pid: [optional, 'p'], user: [optional, 'U'], cgroup: [optional, 'C'], time: [optional, 'T'],
        setuid: [required, 'S'], setgid: [required, 'G'], root: [optional, 'r'], wd: [optional, 'w'], env: [none, 'e'], 'no-fork': [none, 'F'],
        'join-cgroup': [none, 'c'], 'preserve-credentials': none, 'keep-caps': none, 'user-parent': none, 'follow-context': [none, 'Z'],
      },
      abbreviations: true,
    },
    bare: 'shell',
    stops: ['h', 'V'],
  },
  ionice: {
    options: {
      short: '+n:c:p:P:u:tVh',
      long: { classdata: [required, 'n'], class: [required, 'c'], help: [none, 'h'], ignore: [none, 't'], pid: [required, 'p'], pgid: [required, 'P'], uid: [required, 'u'], version: [none, 'V'] },
      abbreviations: true,
    },
    bare: 'nothing',
    stops: ['p', 'P', 'u', 'V', 'h'],
  },
  uclampset: {
    options: {
      short: '+asRp:hm:M:vV',
      long: { 'all-tasks': [none, 'a'], pid: [required, 'p'], system: [none, 's'], 'reset-on-fork': [none, 'R'], help: [none, 'h'], verbose: [none, 'v'], version: [none, 'V'] },
      abbreviations: true,
    },
    bare: 'nothing',
    stops: ['p', 's', 'h', 'V'],
  },
  choom: {
    options: { short: 'hn:p:V', long: { adjust: [required, 'n'], pid: [required, 'p'], help: [none, 'h'], version: [none, 'V'] }, abbreviations: true },
    bare: 'nothing',
    stops: ['p', 'h', 'V'],
  },
  setarch,
  linux32: setarch,
  linux64: setarch,
  i386: setarch,
  x86_64: setarch,
  su: { options: SU, form: 'su', stops: ['h', 'V'] },
  runuser: { options: SU, form: 'runuser', stops: ['h', 'V'] },
  script: {
    options: {
      short: 'aB:c:eE:fI:O:o:qm:T:t::Vh',
      long: {
        append: [none, 'a'], command: [required, 'c'], echo: [required, 'E'], return: [none, 'e'], flush: [none, 'f'], force: none, 'log-in': [required, 'I'],
        'log-out': [required, 'O'], 'log-io': [required, 'B'], 'log-timing': [required, 'T'], 'logging-format': [required, 'm'], 'output-limit': [required, 'o'],
        quiet: [none, 'q'], timing: [optional, 't'], version: [none, 'V'], help: [none, 'h'],
      },
      abbreviations: true,
    },
    form: 'script',
    stops: ['V', 'h'],
  },
  // procps-ng
  watch: {
    options: {
      short: '+bced::ghq:n:pvtwx',
      long: {
        beep: [none, 'b'], color: [none, 'c'], 'no-color': none, differences: [optional, 'd'], errexit: [none, 'e'], chgexit: [none, 'g'], equexit: [required, 'q'],
        exec: [none, 'x'], help: [none, 'h'], interval: [required, 'n'], precise: [none, 'p'], 'no-linewrap': [none, 'w'], 'no-title': [none, 't'],
        'no-wrap': [none, 'w'], version: [none, 'v'],
      },
      abbreviations: true,
    },
    form: 'watch',
    stops: ['h', 'v'],
  },
  // findutils
  xargs: {
    options: {
      short: '+0a:E:e::i::I:l::L:n:oprs:txP:d:',
      long: {
        null: [none, '0'], 'arg-file': [required, 'a'], delimiter: [required, 'd'], eof: [optional, 'e'], replace: [optional, 'i'], 'max-lines': [optional, 'l'],
        'max-args': [required, 'n'], 'open-tty': [none, 'o'], interactive: [none, 'p'], 'no-run-if-empty': [none, 'r'], 'max-chars': [required, 's'],
        verbose: [none, 't'], 'show-limits': none, exit: [none, 'x'], 'max-procs': [required, 'P'], 'process-slot-var': required, help: none, version: none,
      },
      abbreviations: true,
    },
    form: 'xargs',
    stops: ['help', 'version'],
  },
  // shadow (login)
  sg: { options: { short: '+' }, form: 'sg' },
  newgrp: { options: { short: '+' }, form: 'newgrp' },
  // GNU time (bash's `time` keyword takes -p alone, a subset)
  time: {
    options: {
      short: '+af:o:pqvV',
      long: { append: [none, 'a'], format: [required, 'f'], output: [required, 'o'], portability: [none, 'p'], quiet: [none, 'q'], verbose: [none, 'v'], help: none, version: [none, 'V'] },
      abbreviations: true,
    },
    stops: ['help', 'V'],
    bare: 'nothing',
  },
  strace: {
    options: {
      short: '+a:Ab:cCdDe:E:fFhiI:knNo:O:p:P:qrs:S:tTu:U:vVwxX:yYzZ',
      long: {
        columns: [required, 'a'], 'output-append-mode': [none, 'A'], 'detach-on': [required, 'b'], 'summary-only': [none, 'c'], summary: [none, 'C'],
        debug: [none, 'd'], daemonize: optional, daemonised: optional, daemonized: optional, env: [required, 'E'], 'follow-forks': [none, 'f'],
        'output-separately': none, help: [none, 'h'], 'instruction-pointer': [none, 'i'], interruptible: [required, 'I'], 'stack-traces': [none, 'k'],
        'stack-trace': [none, 'k'], 'syscall-number': [none, 'n'], 'syscall-limit': required, output: [required, 'o'],
        'summary-syscall-overhead': [required, 'O'], attach: [required, 'p'], 'trace-path': [required, 'P'], 'relative-timestamps': [optional, 'r'],
        'string-limit': [required, 's'], 'summary-sort-by': [required, 'S'], 'absolute-timestamps': [optional, 't'], timestamps: optional,
        'syscall-times': [optional, 'T'], user: [required, 'u'], 'summary-columns': [required, 'U'], 'no-abbrev': [none, 'v'], version: [none, 'V'],
        'summary-wall-clock': [none, 'w'], 'strings-in-hex': optional, 'const-print-style': [required, 'X'], 'pidns-translation': none,
        'successful-only': [none, 'z'], 'failed-only': [none, 'Z'], 'failing-only': [none, 'Z'], 'seccomp-bpf': none, tips: optional,
        trace: required, abbrev: required, verbose: required, raw: required, signals: required, status: required, read: required, write: required,
        fault: required, inject: required, kvm: required, quiet: optional, silent: optional, silence: optional, 'decode-fds': optional,
        'decode-pids': required, secontext: optional, 'trace-fds': required, 'namespace-translation': none,
      },
      abbreviations: true,
    },
    form: 'strace',
    environment: ['E'],
    stops: ['h', 'V'],
  },
  // systemd 252: the command runs in a transient unit, on this host or another (-H, -M).
  'systemd-run': {
    options: {
      short: '+hrH:M:E:p:tPqGdSu:',
      long: {
        help: [none, 'h'], version: none, user: none, system: none, scope: none, unit: [required, 'u'], description: required, slice: required,
        'slice-inherit': none, 'remain-after-exit': [none, 'r'], 'send-sighup': none, 'service-type': required, uid: required, gid: required,
        nice: required, 'working-directory': required, 'same-dir': [none, 'd'], setenv: [required, 'E'], 'no-ask-password': none,
        'no-block': none, wait: none, collect: [none, 'G'], host: [required, 'H'], machine: [required, 'M'], property: [required, 'p'],
        pty: [none, 't'], pipe: [none, 'P'], shell: [none, 'S'], quiet: [none, 'q'], 'on-active': required, 'on-boot': required,
        'on-startup': required, 'on-unit-active': required, 'on-unit-inactive': required, 'on-calendar': required, 'on-clock-change': none,
        'on-timezone-change': none, 'path-property': required, 'socket-property': required, 'timer-property': required,
      },
    },
    form: 'systemd-run',
    environment: ['E'],
    stops: ['h', 'version'],
  },
  'systemd-cat': {
    options: {
      short: '+hVt:p:',
      long: { help: [none, 'h'], version: [none, 'V'], identifier: [required, 't'], priority: [required, 'p'], 'stderr-priority': required, 'level-prefix': required, namespace: required },
    },
    bare: 'nothing',
    stops: ['h', 'V'],
  },
  'systemd-inhibit': {
    options: { short: '+h', long: { help: [none, 'h'], version: none, what: required, who: required, why: required, mode: required, list: none, 'no-pager': none, 'no-legend': none } },
    stops: ['h', 'version', 'list'],
  },
  'systemd-socket-activate': {
    options: {
      short: '+hl:aE:d',
      long: { help: [none, 'h'], version: none, datagram: [none, 'd'], seqpacket: none, listen: [required, 'l'], accept: [none, 'a'], setenv: [required, 'E'], fdname: required, inetd: none },
    },
    environment: ['E'],
    stops: ['h', 'version'],
  },
  // fakeroot's own getopt line: -l preloads a library and --faked runs a daemon of the caller's choosing.
  fakeroot: {
    options: { short: '+l:f:i:s:ub:vh', long: { lib: [required, 'l'], faked: [required, 'f'], 'unknown-is-real': [none, 'u'], 'fd-base': [required, 'b'], version: [none, 'v'], help: [none, 'h'] } },
    bare: 'shell',
    opaque: ['l', 'f'],
    stops: ['v', 'h'],
  },
  'dbus-run-session': {
    options: { short: '+', long: { 'config-file': required, 'dbus-daemon': required, help: none, version: none } },
    opaque: ['dbus-daemon'],
    stops: ['help', 'version'],
  },
  // Privilege: sudo, doas, pkexec; the evaluation notes what passed through them.
  sudo: {
    options: {
      short: '+Aa:BbC:c:D:Eeg:Hh::iKklNnPp:R:r:SsT:t:U:u:Vv',
      long: {
        user: [required, 'u'], group: [required, 'g'], 'close-from': [required, 'C'], chdir: [required, 'D'], host: [required, 'h'], prompt: [required, 'p'],
        role: [required, 'r'], type: [required, 't'], 'command-timeout': [required, 'T'], 'other-user': [required, 'U'], chroot: [required, 'R'],
        askpass: [none, 'A'], background: [none, 'b'], 'preserve-env': [optional, 'E'], 'set-home': [none, 'H'], login: [none, 'i'],
        'remove-timestamp': [none, 'K'], 'reset-timestamp': [none, 'k'], 'non-interactive': [none, 'n'], 'preserve-groups': [none, 'P'],
        stdin: [none, 'S'], shell: [none, 's'], list: [none, 'l'], validate: [none, 'v'], version: [none, 'V'], help: none, edit: [none, 'e'],
        'auth-type': [required, 'a'], bell: [none, 'B'], 'login-class': [required, 'c'], 'no-update': [none, 'N'],
      },
      abbreviations: true,
    },
    assignments: true,
    // `sudo -s` and `sudo -i` with no command start a shell.
    bare: 'shell',
    // Not -k: `sudo -k rm x` resets the timestamp and runs rm.
    stops: ['e', 'K', 'l', 'v', 'V'],
  },
  doas: { options: { short: '+nsLu:C:' }, bare: 'shell', stops: ['C', 'L'] },
  pkexec: { options: { short: '+' }, form: 'pkexec' },
  // bash builtins and keywords
  command: { options: { short: '+pvV' } },
  builtin: { options: { short: '+' } },
  exec: { options: { short: '+cla:' } },
  coproc: { options: { short: '+' }, form: 'coproc' },
  // moreutils, cgroup-tools, sshpass and cross-env: each runs the command after its options.
  chronic: { options: { short: '+ev' } },
  ifne: { options: { short: '+n' } },
  'run-one': { options: { short: '+' } },
  sshpass: { options: { short: '+p:f:d:eP:vhV' }, stops: ['h', 'V'] },
  cgexec: { options: { short: '+g:', long: { sticky: none } } },
  'cross-env': { options: { short: '+' }, assignments: true },
  // busybox runs its applet: `busybox rm x` is `rm x`.
  busybox: { options: { short: '+' }, form: 'busybox' },
};

/**
 * Programs that run a command in a way this table does not model (a sandbox's own options, a daemon, a
 * recorded session, a directory of scripts, a debugger): any use of them asks.
 */
export const OPAQUE_RUNNERS: ReadonlySet<string> = new Set([
  'capsh', 'bwrap', 'firejail', 'nsjail', 'start-stop-daemon', 'run-parts', 'scriptlive', 'ssh-agent', 'chpst', 'softlimit', 'setuidgid',
  'envdir', 'envuidgid', 'setlock', 'pgrphack', 'numactl', 'valgrind', 'ltrace', 'catchsegv', 'torsocks', 'proxychains', 'proxychains4',
  'xvfb-run', 'unbuffer', 'eatmydata', 'nocache', 'faketime', 'cpulimit', 'trickle', 'parallel', 'sem', 'flatpak-spawn', 'systemd-nspawn',
  'machinectl', 'lxc-attach', 'lxc-execute', 'daemonize', 'switch_root', 'agetty', 'getty', 'sulogin', 'login',
  // A debugger, a profiler, a readline wrapper, Tcl's expect, a job queue, environments that run a script, and the
  // schedulers, whose commands run later, outside the call.
  'gdb', 'perf', 'rlwrap', 'expect', 'tsp', 'nix-shell', 'nix', 'direnv', 'at', 'batch', 'crontab',
]);
