// The deliberate bugs of `npm run test:mutants`: one per safety layer, each a single text replacement, with the
// tests that must fail because of it (each runs alone, so a catch is never another layer's).

/** Every test named here must pass on the code as it is and fail with the bug in. */
export const BUGS = [
  {
    name: 'grace ends with TERM instead of KILL',
    file: 'workers/supervisor.ts',
    find: "signalGroup(pgid, 'SIGKILL');",
    replace: "signalGroup(pgid, 'SIGTERM');",
    tests: [{ vitest: 'test/safety/without-host-sweep.test.ts', name: 'the grace ends' }],
  },
  {
    name: "the runner's tree kill spares every process outside the group",
    file: 'crates/runner/src/proc_tree.rs',
    find: 'for &pid in &left {\n            let _ = kill(pid, Signal::SIGKILL);\n        }',
    replace: 'for &_pid in &left {}',
    tests: [
      { cargo: ['-p', 'shellring-runner', '--lib', 'proc_tree::tests::finds_and_kills_a_whole_tree_including_a_new_session'] },
      { cargo: ['-p', 'shellring-runner', '--test', 'runner', 'a_lost_lifeline_kills_every_descendant_even_in_a_new_session'] },
      { vitest: 'test/safety/without-host-sweep.test.ts', name: "the runner's own tree kill" },
    ],
  },
  {
    name: 'the Landlock ruleset lets files be made anywhere',
    file: 'crates/runner/src/landlock.rs',
    find: 'let read = AccessFs::from_read(TARGET);',
    replace: 'let read = AccessFs::from_read(TARGET) | AccessFs::MakeReg;',
    tests: [
      { cargo: ['-p', 'shellring-runner', '--test', 'layers', 'the_seccomp_fallback_refuses_metadata_everywhere_and_says_partial'] },
      { vitest: 'test/safety/sandbox-layers.test.ts', name: 'the Landlock ruleset alone' },
    ],
  },
  {
    name: 'the mount layer leaves the mounts writable',
    file: 'crates/runner/src/mount_ns.rs',
    find: 'attr_set: MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID,',
    replace: 'attr_set: MOUNT_ATTR_NOSUID,',
    tests: [
      { cargo: ['-p', 'shellring-runner', '--test', 'layers', 'landlock_with_its_mount_layer_keeps_metadata_kernel_and_state_out_of_reach'] },
      { vitest: 'test/safety/sandbox-layers.test.ts', name: 'the read-only mounts alone' },
    ],
  },
  {
    name: 'the seccomp fallback lets metadata change',
    file: 'crates/runner/src/seccomp.rs',
    find: 'compile(METADATA.iter().chain(LEGACY_METADATA).chain(SYSV_IPC).map(',
    replace: 'compile(SYSV_IPC.iter().map(',
    tests: [
      { cargo: ['-p', 'shellring-runner', '--test', 'layers', 'the_seccomp_fallback_refuses_metadata_everywhere_and_says_partial'] },
      { vitest: 'test/safety/sandbox-layers.test.ts', name: 'the seccomp filter alone' },
    ],
  },
  {
    name: "the fork server leaves a dead runner's strays running",
    file: 'crates/runner/src/serve.rs',
    find: 'if runner_ended {\n            self.end_strays();',
    replace: 'if runner_ended && false {\n            self.end_strays();',
    tests: [
      { cargo: ['-p', 'shellring-runner', '--test', 'serve', 'what_a_killed_runner_left_is_ended_and_the_server_ends_with_its_socket'] },
      { vitest: 'test/safety/without-host-sweep.test.ts', name: 'the fork server ends' },
    ],
  },
  {
    name: 'the spill file is not back-filled at the first overflow',
    file: 'crates/core/src/spill.rs',
    find: 'file.write_all(a).is_ok() && file.write_all(b).is_ok() && file.write_all(data).is_ok();',
    replace: '{ let _ = (a, b); file.write_all(data).is_ok() };',
    tests: [
      { cargo: ['-p', 'shellring-core', '--test', 'spill'] },
      { vitest: 'test/executor/output.test.ts', name: 'back-fills the spill file' },
    ],
  },
  {
    name: 'no continuation line for a running job',
    file: 'src/jobs/registry.ts',
    find: 'if (unreadBytes > 0) body +=',
    replace: 'if (unreadBytes > 0 && settled(job.state)) body +=',
    tests: [{ vitest: 'test/jobs/job-tools.test.ts', name: 'says more output is waiting for a job still running' }],
  },
  {
    name: 'no continuation line for a finished job',
    file: 'src/jobs/registry.ts',
    find: 'if (unreadBytes > 0) body +=',
    replace: 'if (unreadBytes > 0 && !settled(job.state)) body +=',
    tests: [{ vitest: 'test/jobs/job-tools.test.ts', name: 'says more output is waiting when a read reached its maximum' }],
  },
];
