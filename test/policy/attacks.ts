// The attack families under a deny-list policy (deny `git push`, deny `rm`, ask `npm publish`, everything else
// allowed): generated shapes that must resolve to the denied command or ask, never allow, and the harmless shapes
// next to them that must stay allowed. The differential test runs every one the checker allows under strace.
import type { PolicyConfig } from '../../src/index.js';

export const DENY_POLICY: PolicyConfig = {
  rules: [
    { decision: 'deny', command: ['git', 'push'], message: 'pushing is not allowed here' },
    { decision: 'deny', command: ['rm'], message: 'removing files is not allowed here' },
    { decision: 'ask', command: ['npm', 'publish'], message: 'publishing needs a person' },
  ],
};

export interface Attack {
  command: string;
  /** `refused`: deny or ask, never allow. */
  expected: 'refused' | 'allow';
  family: string;
}

const refused = (family: string, command: string): Attack => ({ family, command, expected: 'refused' });
const allowed = (family: string, command: string): Attack => ({ family, command, expected: 'allow' });

/** git's global options (git.c), each with its argument. */
const GIT_GLOBALS = [
  '-C .', '--git-dir=.git', '--git-dir .git', '--work-tree=.', '--work-tree .', '-c user.name=x', '-c color.ui=never', '--no-pager',
  '-P', '-p', '--paginate', '--namespace=x', '--namespace x', '--no-replace-objects', '--literal-pathspecs', '--glob-pathspecs',
  '--icase-pathspecs', '--no-optional-locks', '--no-lazy-fetch', '--no-advice', '--exec-path=/usr/lib/git-core', '--attr-source=HEAD',
  '-C . --no-pager -c user.email=x@y',
];

/** Exec wrappers of util-linux, coreutils, procps, findutils, shadow, strace, GNU time and systemd, with options. */
const WRAPPED = [
  'setsid', 'setsid -w', 'setsid --fork --wait', 'taskset 1', 'taskset -c 0', 'chrt -o 0', 'chrt --other 0', 'chrt -b 0', 'flock f',
  'flock -n f', 'flock --timeout 5 f', 'prlimit --nofile=100', 'prlimit -n100', 'setpriv --reuid=0', 'setpriv --no-new-privs',
  'strace -o /dev/null', 'strace -f -qq -o /dev/null', 'unshare', 'unshare -r', 'unshare --user --map-root-user', 'watch -x',
  'watch -n 1 -x', 'nsenter -t 1', 'runuser -u nobody --', 'chroot /', 'chroot --userspec=0:0 /', 'ionice -c3', 'ionice --class 2',
  'nice', 'nice -n 5', 'nice -5', 'nice --adjustment=5', 'nohup', 'env', 'env -i', 'env -u HOME', 'env --ignore-signal',
  'env --default-signal=PIPE', 'env -C /', 'env X=1', 'env - X=1', 'timeout 5', 'timeout -k 1 5', 'timeout --preserve-status 5',
  'timeout --sig=KILL 5', 'stdbuf -oL', 'stdbuf -i0 -o0', 'time', 'time -p', 'time -o /dev/null', 'command', 'exec', 'exec -a name',
  'linux64', 'setarch x86_64', 'setarch x86_64 -R', 'uclampset -m 0', 'choom -n 0 --', 'runcon -t t', 'fakeroot', 'busybox',
  'systemd-run --user', 'systemd-cat', 'systemd-inhibit', 'pkexec', 'sudo', 'sudo -u root', 'sudo -E', 'doas',
  '/usr/bin/timeout 5', '/usr/bin/env', '/usr/bin/nice', '/bin/setsid -w', 'timeout 5 nice -n 1 env X=1 setsid',
];

/** Wrappers that give the command to a shell as one script. */
const SCRIPTED = [
  "script -qc 'rm victim' /dev/null", "script -q /dev/null -c 'rm victim'", "su -c 'rm victim'", "su nobody -s /bin/bash -c 'rm victim'",
  "flock f -c 'rm victim'", "sg adm 'rm victim'", "sg adm -c 'rm victim'", 'watch rm victim', "watch 'rm victim'",
  "strace -o '|rm victim' true", 'busybox sh -c "rm victim"', 'env sh -c "rm victim"', 'timeout 5 bash -c "rm victim"',
];

/** The next spellings an attacker takes once `git push` and `rm` are refused. */
const NEIGHBOURS = [
  'command git push', 'command -p git push', 'builtin command git push', "env -S 'git push'", "env --split-string='git push'",
  'nice -n5 git -C . push', 'time git push', 'time -p git push', 'exec git push', 'exec -a x git -C . push', 'git -C. push',
  "g''it push", "$'git' push", '\\git push', 'gi\\t push', '"git" "push"', "git pu''sh", "git $'push'",
  'f() { git push; }; f', 'f() { git "$@"; }; f push', 'p() { "$@"; }; p git push', 'eval git push', "eval 'git push'",
  'eval "$(echo git push)"', 'sudo -u x git push', 'sudo -u x -- git -C . push', "sh <<< 'git push'", "bash <<< 'git -C . push'",
  'echo victim | xargs -I{} sh -c {}', "echo victim | xargs -I{} sh -c 'rm {}'", 'find . -maxdepth 0 -exec git push \\;',
  "find . -maxdepth 0 -exec sh -c 'rm victim' \\;", "busybox sh -c 'git push'", 'env -i git push',
  'env -i PATH=/usr/bin:/bin rm victim', 'nohup git push', 'timeout 5 git push', 'timeout -s 9 5 git -C . push', 'stdbuf -oL git push',
  'ionice -c3 git push', 'ionice -c 3 -n 7 rm victim', 'chroot / git push', 'doas git push', 'doas -u x rm victim',
  'x=rm; $x victim', 'rm${IFS}victim', '{rm,victim}', 'GIT_DIR=.git git push',
];

/** Package managers' sub-commands and other programs that run the command after their options. */
const RUNNERS = [
  'npx rm victim', 'npx -y -p x rm victim', "npx -c 'rm victim'", "npx --call='git push'", 'npm exec -- rm victim', "npm exec -c 'rm victim'",
  'npm x git push', 'npm --prefix . exec rm victim', 'pnpm exec rm victim', "pnpm exec -c 'rm victim'", 'pnpm -r exec git push',
  'yarn exec rm victim', "yarn exec 'rm victim'", 'uv run rm victim', 'uv run --with x -p 3.12 git push', 'uv --directory x run rm victim',
  'bundle exec rm victim', 'poetry run git push', 'pipenv run rm victim', 'conda run -n x rm victim', 'cross-env A=1 rm victim',
  'chronic rm victim', 'ifne rm victim', 'run-one rm victim', 'sshpass -p x rm victim', 'cgexec -g cpu:x rm victim', 'perf stat rm victim',
  'gdb --args rm victim', "at now <<< 'rm victim'", "crontab - <<< '* * * * * rm victim'", 'npx --frob rm victim', 'npx "$X" victim',
];

export const ATTACKS: Attack[] = [
  // Attack 1: git's global options, aliases, git-<sub>, words from stdin.
  ...GIT_GLOBALS.flatMap((options) => [refused('git global options', `git ${options} push`), allowed('git global options', `git ${options} status`)]),
  refused('git alias', 'git -c alias.p=push p'),
  refused('git alias', 'git -c alias.p=push -c alias.q=p q'),
  refused('git alias', "git -c alias.p='!git push' p"),
  refused('git alias', "git -c alias.p='!rm victim' p"),
  refused('git alias', 'git -c Alias.P=push P'),
  allowed('git alias', 'git -c alias.s=status s'),
  refused('git alias', 'git psuh'),
  refused('git alias', 'git config alias.x "!rm victim"'),
  refused('git config', "git -c core.pager='rm victim' -p log"),
  refused('git config', 'git -c core.sshCommand=rm fetch'),
  refused('git config', 'git -c include.path=./cfg status'),
  refused('git config', 'git -c help.autocorrect=immediate psuh'),
  refused('git config', 'git --config-env=alias.p=P p'),
  allowed('git config', 'git -c core.pager=cat log -1'),
  refused('git subcommand', "git rebase -x 'rm victim' HEAD"),
  refused('git subcommand', 'git bisect run rm victim'),
  refused('git subcommand', "git submodule foreach 'rm victim'"),
  refused('git subcommand', "git fetch --upload-pack='rm victim' origin"),
  refused('git-<sub>', 'git-push'),
  refused('git-<sub>', '/usr/lib/git-core/git-push'),
  refused('git-<sub>', '/usr/lib/git-core/git-push origin HEAD'),
  allowed('git-<sub>', '/usr/lib/git-core/git-status'),
  refused('xargs', 'echo push | xargs git'),
  refused('xargs', 'echo push | xargs -n1 git'),
  refused('xargs', 'echo victim | xargs rm'),
  refused('xargs', 'echo victim | xargs -I{} rm {}'),
  refused('xargs', 'echo victim | xargs --replace=% rm %'),
  allowed('xargs', 'echo x | xargs echo'),
  allowed('xargs', 'printf "a\\nb\\n" | xargs -n1 echo'),
  ...NEIGHBOURS.map((command) => refused('neighbour', command)),
  ...RUNNERS.map((command) => refused('runner', command)),
  allowed('runner', "npx -c 'echo hi'"),
  allowed('runner', 'cross-env A=1 true'),
  // Attack 2: exec wrappers.
  ...WRAPPED.flatMap((wrapper) => [refused('wrapper', `${wrapper} rm victim`), allowed('wrapper', `${wrapper} true`)]),
  ...SCRIPTED.map((command) => refused('wrapper script', command)),
  refused('wrapper', 'capsh -- -c "rm victim"'),
  refused('wrapper', 'bwrap --bind / / rm victim'),
  refused('wrapper', 'setsid --frobnicate rm victim'),
  // A privilege wrapper with no command starts a shell that reads its standard input.
  refused('wrapper shell', "echo 'rm victim' | sudo -s"),
  refused('wrapper shell', 'sudo -i <<< "rm victim"'),
  refused('wrapper shell', 'sudo -u root -s'),
  allowed('wrapper shell', 'sudo -v'),
  allowed('wrapper shell', 'sudo -l'),
  refused('wrapper shell', "echo 'rm victim' | doas -s"),
  refused('wrapper shell', "echo 'rm victim' | chroot /"),
  // A command name that is not literal after a wrapper's options or assignments.
  refused('wrapper name', 'sudo "$X" rm victim'),
  refused('wrapper name', 'sudo -- "$X" victim'),
  refused('wrapper name', 'sudo A=1 "$X" victim'),
  refused('wrapper name', 'doas -u root "$X" victim'),
  refused('wrapper name', 'env A=1 "$X" victim'),
  refused('wrapper name', 'timeout 5 "$X" victim'),
  // Attack 2: shells that read their script from elsewhere than -c.
  refused('shell stdin', "echo 'rm victim' | bash"),
  refused('shell stdin', "echo 'rm victim' | sh -s"),
  refused('shell stdin', "printf 'rm victim' | bash -"),
  refused('shell stdin', "bash <<'E'\nrm victim\nE"),
  refused('shell stdin', 'bash <<E\nrm victim\nE'),
  refused('shell stdin', 'bash <<-E\n\trm victim\n\tE'),
  refused('shell stdin', "bash <<< 'rm victim'"),
  refused('shell stdin', 'sh 0<<< "rm victim"'),
  refused('shell stdin', 'bash /dev/stdin <<< "rm victim"'),
  refused('shell stdin', "bash <(echo 'rm victim')"),
  refused('source', 'source /dev/stdin <<< "rm victim"'),
  refused('source', '. /dev/stdin <<< "rm victim"'),
  refused('source', '. <(echo rm victim)'),
  refused('source', 'source <(echo rm victim)'),
  refused('startup', 'BASH_ENV=./e.sh bash -c true'),
  refused('startup', 'export BASH_ENV=./e.sh; bash -c true'),
  refused('startup', 'env BASH_ENV=./e.sh bash -c true'),
  refused('startup', 'ENV=./e.sh sh -i -c true'),
  refused('startup', "env 'BASH_FUNC_ls%%=() { rm victim; }' bash -c ls"),
  refused('startup', "SHELLOPTS=xtrace PS4='$(rm victim)' bash -c true"),
  refused('startup', "GIT_SSH_COMMAND='rm victim' git fetch"),
  // Every command's environment sets GIT_CONFIG_COUNT (src/env/non-interactive.ts): a numbered key alone is configuration.
  refused('startup', "GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm victim' git status"),
  refused('startup', "export GIT_CONFIG_KEY_1=core.pager GIT_CONFIG_VALUE_1='rm victim'; git -p log"),
  refused('startup', "env GIT_CONFIG_KEY_1=core.sshCommand 'GIT_CONFIG_VALUE_1=rm victim' git fetch"),
  refused('startup', 'read GIT_CONFIG_KEY_0 <<< core.fsmonitor; GIT_CONFIG_VALUE_0="rm victim" git status'),
  allowed('startup', 'GIT_CONFIG_NOSYSTEM=1 git status'),
  allowed('shell stdin', "bash <<'E'\necho hi\nE"),
  allowed('shell stdin', 'bash <<< "echo hi"'),
  // What the grammar reads differently from bash.
  refused('grammar', 'git >/dev/null push'),
  refused('grammar', 'env >/dev/null rm victim'),
  refused('grammar', 'git ""\\push'),
  refused('grammar', '""\\rm victim'),
  refused('grammar', 'git pu\\\nsh'),
  refused('grammar', 'true\n\\rm victim'),
  refused('grammar', 'true | cat | cat\nrm victim >/dev/null'),
  refused('grammar', 'A="a"b$1 rm victim'),
  refused('glob name', '/bin/r* victim'),
  refused('glob name', '/usr/bin/r? victim'),
  refused('find', 'find . -name victim -exec rm {} \\;'),
  refused('find', 'find . -name victim -execdir rm -f {} +'),
  allowed('find', 'find . -name victim -exec ls {} \\;'),
  refused('path name', '/bin/rm victim'),
  refused('path name', '/usr/local/bin/git push'),
  refused('path name', './../../../../bin/rm victim'),
  // Shapes bash runs that the grammar or a builtin hides: aliases, coproc, names rebound, callbacks, subscripts.
  refused('alias', 'alias g=git; g push'),
  refused('alias', "set -o posix\nalias g='rm'\ng victim"),
  refused('alias', "sh -c 'alias g=rm\ng victim'"),
  refused('alias', "bash -ic 'alias g=git\ng push' </dev/null"),
  refused('alias', "bash -o posix -c 'alias g=rm\ng victim'"),
  refused('alias', "POSIXLY_CORRECT=1 bash -c 'alias g=rm\ng victim'"),
  refused('alias', "alias s='sudo ' g=rm; s g victim"),
  allowed('alias', "alias ll='ls -la'"),
  refused('coproc', 'coproc X { rm victim; }; wait'),
  refused('coproc', 'coproc { git push; }; wait'),
  refused('coproc', 'coproc while true; do rm victim; break; done; wait'),
  refused('coproc', 'coproc rm victim; wait'),
  allowed('coproc', 'coproc true; wait'),
  refused('builtin', 'hash -p /bin/rm ls; ls victim'),
  refused('builtin', 'enable -f ./x.so rm'),
  refused('builtin', "mapfile -C 'rm victim;:' -c 1 a <<< line"),
  refused('builtin', 'readarray -C rm -c 1 a <<< victim'),
  refused('builtin', "mapfile -C 'git push;:' -c 1 a <<< line"),
  allowed('builtin', "mapfile -C 'echo' -c 1 a <<< line"),
  refused('subscript', "test -v 'a[$(rm victim)]'"),
  refused('subscript', "[ -v 'a[$(rm victim)]' ]"),
  refused('subscript', "printf -v 'a[$(rm victim)]' x"),
  refused('subscript', "let 'x=a[$(rm victim)]'"),
  refused('subscript', "declare -n r='a[$(rm victim)]'; echo $r"),
  refused('subscript', "x='a[$(rm victim)]'; echo $(( x ))"),
  refused('subscript', "x='a[`rm victim`]'; echo ${!x}"),
  refused('subscript', "x='a[$(rm victim)]'; [[ $x -eq 1 ]]"),
  refused('subscript', "declare 'a[$(git push)]=1'"),
  allowed('subscript', "echo 'a[$((1+1))]' '$(rm victim)'"),
  // Harmless shapes stay allowed.
  allowed('harmless', 'ls -la'),
  allowed('harmless', 'git status'),
  allowed('harmless', 'git log --oneline -3 | cat'),
  allowed('harmless', 'timeout 5 ls | wc -l'),
  allowed('harmless', 'python3 -m json.tool <<< "{}"'),
  allowed('harmless', 'kubectl -n x version --client'),
  allowed('harmless', 'FOO=1 env | grep FOO'),
  allowed('harmless', 'bash -c "echo \\$HOME"'),
];
