// A Cordis app composed from shellring's plugins alone, on real bash: activation, the jobs swap, disposal.
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Context, ScopeStatus, type ForkScope } from 'cordis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bashLocal,
  jobsLocal,
  shellEnv,
  systemPrompt,
  toolBash,
  toolJobs,
  tools,
  whenClosed,
  type JobNotice,
  type PromptRegistry,
  type ToolRegistry,
} from '../../src/cordis/index.js';
import type { LocalExecutor } from '../../src/executor/local.js';
import { alive, processesWith } from '../helpers/processes.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'shellring-cordis-')));
const session = { sessionId: 'cordis-session', cwd: work };
const marker = `shellring-cordis-${process.pid}-${Date.now()}`;
const BASH_GUIDANCE = 'Check the [exit code: N] marker on every bash result; investigate failures before moving on.';
const UNAVAILABLE = 'Error: background jobs unavailable: this runtime has no job registry (enable jobs, or load the jobsLocal and toolJobs plugins)';

function text(result: { content: { text: string }[] }): string {
  return result.content.map((part) => part.text).join('');
}

function bashSchema(registry: ToolRegistry): Record<string, unknown> {
  const listed = registry.list().find((tool) => tool.name === 'bash');
  if (!listed) throw new Error('bash is not registered');
  return listed.inputSchema.properties as Record<string, unknown>;
}

function names(registry: ToolRegistry): string[] {
  return registry
    .list()
    .map((tool) => tool.name)
    .sort();
}

const apps: Context[] = [];
function app(): Context {
  const created = new Context();
  apps.push(created);
  return created;
}

afterAll(async () => {
  // Only reached with work left over when a test failed midway: never leave workers or processes behind.
  for (const created of apps) {
    await created.stop();
    await whenClosed(created);
  }
});

describe('tool-bash plugin activation', () => {
  it('exports only the plugin contract, with the documented defaults', () => {
    expect(Object.keys(toolBash).sort()).toEqual(['Config', 'apply', 'inject', 'name']);
    expect(toolBash.inject).toEqual({
      required: ['tools', 'shell', 'systemPrompt', 'shellEnv'],
      optional: ['jobs', 'sandboxPolicy', 'approval'],
    });
    expect(toolBash.Config()).toEqual({ enableRunInBackground: true, promoteOnTimeout: true });
    expect(toolBash.Config({ enableRunInBackground: false })).toEqual({ enableRunInBackground: false, promoteOnTimeout: true });
  });

  it('stays pending until an executor is provided, and returns to pending when it goes', async () => {
    const ctx = app();
    ctx.plugin(tools);
    ctx.plugin(systemPrompt);
    ctx.plugin(shellEnv, { dshHome: work });
    const bash = ctx.plugin(toolBash);
    await ctx.lifecycle.flush();
    const registry: ToolRegistry = ctx.get('tools')!;
    const prompt: PromptRegistry = ctx.get('systemPrompt')!;
    expect(bash.status).toBe(ScopeStatus.PENDING);
    expect(bash.isActive).toBe(false);
    expect(registry.has('bash')).toBe(false);
    expect(prompt.get('tool:bash')).toBeUndefined();

    const executor = ctx.plugin(bashLocal, { cwd: work, graceMs: 500, threads: 1 });
    await ctx.lifecycle.flush();
    expect(bash.status).toBe(ScopeStatus.ACTIVE);
    expect(bash.isActive).toBe(true);
    expect(prompt.get('tool:bash')).toEqual({ name: 'tool:bash', order: 1000, text: BASH_GUIDANCE });
    const result = await registry.call('bash', { command: 'printf "%s\\n" "$PWD" "$DSH_HOME"', description: 'Print the directory and home' }, session);
    expect(text(result)).toBe(`${work}\n${work}\n`);
    // No job registry composed: foreground only.
    expect(bashSchema(registry)).not.toHaveProperty('run_in_background');

    executor.dispose();
    await ctx.lifecycle.flush();
    // Cordis 3 leaves `status` at ACTIVE when a dependency goes; `ready` and `isActive` say it waits again.
    expect(bash.ready).toBe(false);
    expect(bash.isActive).toBe(false);
    expect(registry.has('bash')).toBe(false);
    expect(prompt.get('tool:bash')).toBeUndefined();
    await whenClosed(ctx);

    ctx.plugin(bashLocal, { cwd: work, threads: 1 });
    await ctx.lifecycle.flush();
    expect(bash.isActive).toBe(true);
    const again = await registry.call('bash', { command: 'exit 7', description: 'Exit with a chosen code' }, session);
    expect(text(again)).toBe('(no output)\n[exit code: 7]');

    // Stopping the app disposes every plugin; the executor's close is asynchronous and awaited through whenClosed.
    const second: LocalExecutor = ctx.get('shell')!;
    await ctx.stop();
    await whenClosed(ctx);
    expect(registry.has('bash')).toBe(false);
    expect(second.threads).toHaveLength(0);
    expect(() => second.start(second.resolve({ command: 'true' }))).toThrow('the executor is closed');
  });
});

describe('an app composed from the plugins', () => {
  const ctx = app();
  let registry: ToolRegistry;
  let prompt: PromptRegistry;
  let executor: LocalExecutor;
  let jobs: ForkScope<Context>;
  const forks: ForkScope<Context>[] = [];

  it('runs a bash call and a background job', async () => {
    // Consumers first: activation follows the services, not the order plugins were added in.
    forks.push(ctx.plugin(toolBash), ctx.plugin(toolJobs));
    forks.push(ctx.plugin(tools), ctx.plugin(systemPrompt), ctx.plugin(shellEnv, { dshHome: work }));
    forks.push(ctx.plugin(bashLocal, { cwd: work, graceMs: 500 }));
    jobs = ctx.plugin(jobsLocal, { pollMs: 20 });
    await ctx.lifecycle.flush();
    registry = ctx.get('tools')!;
    prompt = ctx.get('systemPrompt')!;
    executor = ctx.get('shell')!;
    expect(names(registry)).toEqual(['bash', 'job_input', 'job_kill', 'job_list', 'job_output']);
    expect(prompt.sections().map((section) => [section.name, section.order])).toEqual([
      ['tool:bash', 1000],
      ['tool:jobs', 1010],
    ]);
    expect(prompt.render().startsWith(`${BASH_GUIDANCE}\n\n`)).toBe(true);

    const failing = await registry.call(
      'bash',
      { command: 'echo out; echo err >&2; exit 3', description: 'Print to both streams and fail' },
      session,
    );
    expect(text(failing)).toBe('out\n[stderr]\nerr\n[exit code: 3]');
    expect(failing.isError).toBeUndefined();

    const started = await registry.call(
      'bash',
      { command: 'sleep 0.3; echo finished', description: 'Finish after a short pause', run_in_background: true },
      session,
    );
    const id = /^started background job (bash-\d+)$/.exec(text(started))?.[1];
    expect(id, text(started)).toBeDefined();
    const output = await registry.call('job_output', { job_id: id, wait: true, timeout_ms: 20_000 }, session);
    expect(text(output)).toBe('finished\n[status: completed, exit code: 0]');

    // Nobody waits on this one: its owner hears of it through the app's event.
    const notice = new Promise<JobNotice>((resolve) => {
      const off = ctx.on('jobs/notice', (received) => {
        off();
        resolve(received);
      });
    });
    const quiet = await registry.call(
      'bash',
      { command: 'echo noted', description: 'Finish without anyone waiting', run_in_background: true },
      session,
    );
    const quietId = /^started background job (bash-\d+)$/.exec(text(quiet))![1];
    expect(await notice).toEqual({
      sessionId: session.sessionId,
      jobId: quietId,
      text: `background job ${quietId} (bash: echo noted) finished [status: completed, exit code: 0]. Read its output with job_output.`,
    });
  });

  it('swaps bash to the foreground-only registration when the job runtime goes, and back when it returns', async () => {
    expect(bashSchema(registry)).toHaveProperty('run_in_background');

    jobs.dispose();
    await ctx.lifecycle.flush();
    expect(bashSchema(registry)).not.toHaveProperty('run_in_background');
    expect(registry.has('job_output')).toBe(false);
    expect(prompt.get('tool:jobs')).toBeUndefined();
    expect(prompt.get('tool:bash')?.text).toBe(BASH_GUIDANCE);
    const forced = await registry.call(
      'bash',
      { command: 'echo never', description: 'Try to start a background job', run_in_background: true },
      session,
    );
    expect(text(forced)).toBe(UNAVAILABLE);
    expect(forced.isError).toBe(true);
    const foreground = await registry.call('bash', { command: 'echo still here', description: 'Run in the foreground' }, session);
    expect(text(foreground)).toBe('still here\n');
    await whenClosed(ctx);

    jobs = ctx.plugin(jobsLocal, { pollMs: 20 });
    await ctx.lifecycle.flush();
    expect(bashSchema(registry)).toHaveProperty('run_in_background');
    expect(names(registry)).toEqual(['bash', 'job_input', 'job_kill', 'job_list', 'job_output']);
    const started = await registry.call(
      'bash',
      { command: 'echo again', description: 'Start a background job again', run_in_background: true },
      session,
    );
    const id = /^started background job (bash-\d+)$/.exec(text(started))?.[1];
    expect(id, text(started)).toBeDefined();
    const output = await registry.call('job_output', { job_id: id, wait: true, timeout_ms: 20_000 }, session);
    expect(text(output)).toBe('again\n[status: completed, exit code: 0]');
  });

  it('leaves no process and no executor behind once disposed', async () => {
    const started = await registry.call(
      'bash',
      { command: `sleep 60 & echo $!; wait; : ${marker}`, description: 'Hold a process until disposal', run_in_background: true },
      session,
    );
    const id = /^started background job (bash-\d+)$/.exec(text(started))![1];
    let pid = 0;
    for (let tries = 0; tries < 200 && !pid; tries++) {
      const read = text(await registry.call('job_output', { job_id: id }, session));
      pid = Number(/^(\d+)\n/.exec(read)?.[1] ?? 0);
      if (!pid) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(alive(pid)).toBe(true);
    expect(processesWith(marker)).not.toEqual([]);

    jobs.dispose();
    for (const fork of forks) fork.dispose();
    await whenClosed(ctx);
    expect(registry.list()).toEqual([]);
    expect(prompt.sections()).toEqual([]);
    expect(alive(pid)).toBe(false);
    expect(processesWith(marker)).toEqual([]);
    expect(executor.threads).toHaveLength(0);
    expect(() => executor.start(executor.resolve({ command: 'true' }))).toThrow('the executor is closed');
  });
});
