// `shellring demo`: a short walk through the runtime, printing each call and exactly what a model would see.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../runtime/runtime.js';
import { parseCommand, } from './args.js';
import { DEMO_HELP } from './help.js';
import { write, type CliIO } from './io.js';
import { DEMO_FLAGS } from './flags.js';

const STEPS: { tool: string; args: Record<string, unknown> }[] = [
  { tool: 'bash', args: { command: 'echo "building"; echo "error: missing config.toml" >&2; exit 3', description: 'Run a failing build step' } },
  { tool: 'bash', args: { command: 'seq 1 100000', description: 'Print a long numbered stream' } },
  { tool: 'bash', args: { command: 'for i in 1 2 3; do echo "step $i"; sleep 0.2; done', description: 'Count three steps slowly', run_in_background: true } },
  { tool: 'job_list', args: {} },
  { tool: 'job_output', args: { job_id: '$JOB', wait: true } },
  { tool: 'bash', args: { command: 'for i in 1 2 3 4; do echo "tick $i"; sleep 0.3; done', description: 'Tick past the timeout', timeoutMs: 500 } },
  { tool: 'job_output', args: { job_id: '$JOB', wait: true } },
];

export async function demoCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(argv, DEMO_FLAGS);
  if (values.help) {
    await write(io.stdout, DEMO_HELP);
    return 0;
  }
  const cwd = mkdtempSync(join(tmpdir(), 'shellring-demo-'));
  // Spill files stay, so the path printed in the truncated result can be opened afterwards.
  const runtime = await createRuntime({ executor: { keepSpills: true, maxOutputBytes: 200 } });
  const notices: string[] = [];
  runtime.on('notice', (notice) => notices.push(notice.text));
  try {
    const session = runtime.session({ id: 'demo', cwd });
    let job = '';
    for (const step of STEPS) {
      const args = step.args.job_id === '$JOB' ? { ...step.args, job_id: job } : step.args;
      await write(io.stdout, `>>> ${step.tool} ${JSON.stringify(args)}\n`);
      const result = await session.callTool(step.tool, args);
      const jobId = result.structuredContent?.jobId;
      if (typeof jobId === 'string') job = jobId;
      await write(io.stdout, `${result.content.map((part) => part.text).join('')}\n\n`);
    }
    for (const notice of notices) await write(io.stdout, `>>> notice\n${notice}\n\n`);
    return 0;
  } finally {
    await runtime.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}
