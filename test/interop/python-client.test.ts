// The MCP contract suite driven by the official Python SDK client (PyPI `mcp` 2.3.0) over stdio (the built CLI)
// and streamable HTTP (serveHttp), at both revisions: 2025-11-25 by its initialize handshake (mode `legacy`) and
// 2026-07-28, which it negotiates by itself (mode `auto`). Texts judged byte for byte.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobTexts } from '../../src/contract/index.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { cli, workdir } from '../faces/helpers.js';
import { installClients, interop, python, run } from './helpers.js';

/** Each stream keeps up to 8 MB here, so a 5 MB output comes back whole. */
const MAX_OUTPUT = 8_000_000;
const BIG = 5_000_000;

interface Shown {
  text: string;
  isError: boolean;
  structured: Record<string, unknown> | null;
}
type Report = Record<string, unknown> & { progress: { progress: number; total: number | null; message: string }[]; asked: string[] };

async function contract(config: Record<string, unknown>): Promise<Report> {
  const result = await run(python, [join(interop, 'python/contract.py'), JSON.stringify(config)], 240_000);
  if (result.status !== 0) throw new Error(`contract.py failed (${result.status}):\n${result.stderr}`);
  return JSON.parse(result.stdout) as Report;
}

const shown = (report: Report, step: string) => report[step] as Shown;
const jobOf = (report: Report, step: string) => (shown(report, step).structured as { jobId: string }).jobId;

interface Revision {
  version: string;
  /** The Python client's `mode`. */
  mode: 'legacy' | 'auto';
  tools: string[];
}

const REVISIONS: Revision[] = [
  { version: '2025-11-25', mode: 'legacy', tools: ['bash', 'job_output', 'job_list', 'job_kill', 'job_input'] },
  { version: '2026-07-28', mode: 'auto', tools: ['bash', 'job_output', 'job_list', 'job_kill', 'job_input', 'session_open'] },
];

/** The judgement every transport and revision must pass. */
function judge(report: Report, work: string, revision: Revision): void {
  expect(report.protocolVersion).toBe(revision.version);
  expect(report.tools).toEqual(revision.tools);
  expect(report.escalationListed).toBe(true);

  expect(shown(report, 'bash')).toMatchObject({ text: 'hello\n[stderr]\noops\n[exit code: 3]', isError: false, structured: { kind: 'foreground', exitCode: 3 } });

  const background = jobOf(report, 'background');
  expect(shown(report, 'background').text).toBe(jobTexts.started(background));
  expect(shown(report, 'backgroundOutput').text).toBe('background done\n[status: completed, exit code: 0]');

  const sleeper = jobOf(report, 'sleeper');
  expect(shown(report, 'sleeperUp').text).toBe('up\n[status: running]');
  expect(shown(report, 'kill').text).toBe(jobTexts.killRequested(sleeper));
  expect(shown(report, 'killedOutput').text).toBe('(no new output)\n[status: killed, signal: SIGTERM]');

  expect(report.big).toEqual({ isError: false, length: BIG, onlyA: true, structuredLength: BIG });

  const promoted = jobOf(report, 'promoted');
  // 2026-07-28 sends no completion notice, and its hand-off promises none.
  expect(shown(report, 'promoted').text).toBe(`early\n${jobTexts.promoted(300, promoted, revision.version === '2025-11-25')}`);
  expect(shown(report, 'promotedOutput').text).toBe('late\n[status: completed, exit code: 0]');

  expect(shown(report, 'withProgress').text).toBe('x\n');
  expect(report.progress.length).toBeGreaterThanOrEqual(1);
  for (const [i, notice] of report.progress.entries()) {
    expect(notice.message).toMatch(/^2 bytes of output after \d+ s$/);
    expect(notice.total).toBeNull();
    if (i > 0) expect(notice.progress).toBeGreaterThan(report.progress[i - 1]!.progress);
  }

  expect(shown(report, 'allowed')).toMatchObject({ text: 'written\n', isError: false });
  expect(readFileSync(join(work, 'allowed.txt'), 'utf8')).toBe('written\n');
  expect(shown(report, 'rejected')).toEqual({ text: 'Error: the user rejected escalating this command to "workspace-write"', isError: true, structured: null });
  expect(existsSync(join(work, 'rejected.txt'))).toBe(false);
  expect(report.asked).toEqual(
    ['allowed.txt', 'rejected.txt'].map((file) =>
      [
        'The bash tool asks to escalate sandbox to workspace-write: the task needs this file.',
        `Command: echo written > ${file} && cat ${file}`,
        `Working directory: ${work}`,
        'Sandbox: workspace-write for this one call (otherwise read-only).',
        'Allow it once?',
      ].join('\n'),
    ),
  );
}

beforeAll(installClients, 900_000);

describe.each(REVISIONS)('the Python SDK client at $version', (revision) => {
  it('runs the contract suite over stdio', async () => {
    const work = workdir('python-stdio');
    try {
      const report = await contract({
        stdio: { command: process.execPath, args: [cli, 'mcp', '--cwd', work, '--sandbox', 'read-only', '--max-output-bytes', String(MAX_OUTPUT)] },
        mode: revision.mode,
        // The CLI reports progress every 15 s: the call outlasts one interval.
        progressSeconds: 17,
      });
      judge(report, work, revision);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 240_000);

  describe('over streamable HTTP', () => {
    const work = workdir('python-http');
    let server: HttpServer;

    beforeAll(async () => {
      server = await serveHttp({
        port: 0,
        cwd: work,
        sandboxMode: 'read-only',
        progressIntervalMs: 500,
        runtimeOptions: { executor: { maxOutputBytes: MAX_OUTPUT } },
      });
    });

    afterAll(async () => {
      await server.close();
      rmSync(work, { recursive: true, force: true });
    });

    it('runs the contract suite, the client reading SSE events of any size', async () => {
      judge(await contract({ http: { url: server.url, token: server.token, maxSseEventSize: null }, mode: revision.mode }), work, revision);
    }, 240_000);

    it('gets a 5 MB result past the client’s default 1 MiB SSE event limit only at 2026-07-28 (2025: one SSE event)', async () => {
      const report = await contract({ http: { url: server.url, token: server.token }, mode: revision.mode, only: ['big'] });
      expect(report.big).toEqual(
        revision.mode === 'legacy'
          ? { exception: 'MCPError: SSE stream failed: Server-sent event exceeded the 1048576 byte limit.' }
          : { isError: false, length: BIG, onlyA: true, structuredLength: BIG },
      );
    }, 240_000);
  });
});
