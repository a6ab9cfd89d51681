// What the model reads about each tool's parameters and about the job tools themselves.

export const bashParamDocs = {
  command: 'The bash command to run, as one `bash -c` script.',
  description:
    'What the command does, in 5-10 words of active voice (for example "List files in the build directory"); shown to the user.',
  timeoutMsPromotes:
    'Milliseconds to wait for the command (default 120000, at most 600000). A command still running then keeps running as a background job whose id the result gives.',
  timeoutMs: 'Milliseconds before the command is killed (default 120000, at most 600000).',
  workdir:
    'Directory to run in, absolute or relative to the session directory. Use this instead of `cd`: no shell state survives between calls.',
  runInBackground:
    'Start the command as a background job and return its id at once; read it with job_output, stop it with job_kill.',
  sandboxPermissions:
    'Only after a command was denied by the sandbox: the narrowest wider mode it needs, for this one call. The user is asked to approve.',
  justification:
    'With sandbox_permissions: one sentence, in the language of the current user request, telling the user why this exact command needs the wider access.',
};

export const jobToolDocs = {
  jobOutput:
    'Read the newest output of one of your background jobs: only what you have not read yet, then its status line ([status: running] or how it ended). With wait: true, first wait for the job to finish.',
  jobList: 'List your background jobs, one line each: id, kind, status and label.',
  jobKill: 'Stop one of your background jobs (TERM to its processes, KILL after a grace period).',
  jobId: 'The job id, as `started background job <id>` or a hand-off named it (for example "bash-1").',
  wait: 'Block until the job finishes or timeout_ms passes, then read. Prefer this to calling job_output repeatedly.',
  timeoutMs: 'With wait: how long to wait, in milliseconds (default 30000, at most 600000).',
  reason: 'Why the job is no longer needed; kept in its status.',
};
