// Network by name suite: a 1 GiB download through the session's proxy against the same download with the network
// allowed and through a bare C relay (the ceiling of any relay here), the time a small request takes through the
// proxy and without it (p50, p99), and what an idle session with a domain policy costs the host.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRuntime, type Runtime, type Session } from '../../src/index.js';
import { asyncRounds, roundRatios } from '../lib/async-rounds.js';
import { spread } from '../lib/percentiles.js';
import { readTree } from '../lib/process-tree.js';
import { find, target, withRatios } from '../lib/rows.js';
import { withTempDir } from '../lib/tempdir.js';
import type { SuiteResult } from '../lib/types.js';
import { fmt, GiB, KiB, median } from '../lib/units.js';

const ROUNDS = 3;
const REQUESTS = 200;
const SESSIONS = 50;
const ALLOWED = 'network allow';
const PROXIED = 'network domains (through the proxy)';
const RELAY = 'network allow, through a bare TCP relay (C)';
const RELAY_SOURCE = path.resolve(import.meta.dirname, '../../../bench/lib/tcp-relay.c');

/** Serves `/big` (1 GiB of zeros, from one 1 MiB buffer) and `/small` (a few bytes). */
async function server(): Promise<{ server: Server; port: number }> {
  const chunk = Buffer.alloc(1024 * 1024);
  const s = createServer((req, res) => {
    if (req.url !== '/big') return void res.end('ok\n');
    res.writeHead(200, { 'content-length': GiB });
    let left = GiB / chunk.length;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return { server: s, port: (s.address() as { port: number }).port };
}

async function output(session: Session, command: string): Promise<string> {
  const result = await session.callTool('bash', { command, description: 'network bench', timeoutMs: 600_000 });
  const facts = result.structuredContent as { exitCode?: number } | undefined;
  if (result.isError || facts?.exitCode !== 0) throw new Error(String(result.content[0]?.text));
  return result.content[0]!.text;
}

interface Subject {
  name: string;
  runtime: Runtime;
  session: Session;
  host: string;
}

/** The C relay to 127.0.0.1:`port`, compiled in `dir`, and the port it accepts on. */
async function relay(dir: string, port: number): Promise<{ child: ChildProcess; port: number }> {
  const binary = join(dir, 'tcp-relay');
  execFileSync('cc', ['-O2', '-pthread', '-o', binary, RELAY_SOURCE]);
  const child = spawn(binary, [String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return { child, port: Number(line) };
}

async function subjects(dir: string, port: number, relayPort: number): Promise<Subject[]> {
  const make = async (name: string, network: unknown, host: string): Promise<Subject> => {
    const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', network } as never });
    const cwd = join(dir, name.replace(/\W+/g, '-'));
    mkdirSync(cwd);
    return { name, runtime, session: runtime.session({ id: 'bench', cwd }), host: `${host}:${port}` };
  };
  return [
    // The host's own loopback, reached directly: the ceiling a proxied download is measured against.
    await make(ALLOWED, 'allow', '127.0.0.1'),
    // Two TCP connections and a copy between them, and nothing else: what any relay, the proxy included, can reach.
    { ...(await make(RELAY, 'allow', '127.0.0.1')), host: `127.0.0.1:${relayPort}` },
    await make(PROXIED, { mode: 'domains', allow: ['bench.test'], testHostMap: { 'bench.test': '127.0.0.1' } }, 'bench.test'),
  ];
}

export async function run(): Promise<SuiteResult> {
  const { server: httpServer, port } = await server();
  try {
    return await withTempDir('network', async (dir) => {
      const bare = await relay(dir, port);
      const all = await subjects(dir, port, bare.port);
      try {
        const downloads = await asyncRounds(
          all.map((s) => ({
            name: s.name,
            once: async () => {
              const text = await output(s.session, `curl -sS -o /dev/null -w '%{size_download} %{time_total}' http://${s.host}/big`);
              const [size, seconds] = text.trim().split(' ').map(Number) as [number, number];
              if (size !== GiB) throw new Error(`downloaded ${size} bytes`);
              return GiB / seconds / 1e6;
            },
          })),
          ROUNDS,
        );
        const latency = new Map<string, number[]>();
        for (const s of all.filter((s) => s.name !== RELAY)) {
          const text = await output(s.session, `for i in $(seq ${REQUESTS}); do curl -sS -o /dev/null -w '%{time_total}\\n' http://${s.host}/small; done`);
          latency.set(s.name, text.trim().split('\n').map((t) => Number(t) * 1000));
        }
        const memory = await idleCost(dir);
        return result(downloads, latency, memory);
      } finally {
        bare.child.kill();
        await Promise.all(all.map((s) => s.runtime.close()));
      }
    });
  } finally {
    httpServer.close();
  }
}

interface IdleCost {
  threads: number;
  hostRssKiB: number;
}

/** SESSIONS sessions with a domain policy after one `true` each: host threads and RSS added, per session. */
async function idleCost(dir: string): Promise<IdleCost> {
  const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', network: { mode: 'domains', allow: ['bench.test'] } } });
  try {
    const warm = join(dir, 'idle-warm');
    mkdirSync(warm);
    await output(runtime.session({ id: 'warm', cwd: warm }), 'true');
    const before = readTree();
    for (let i = 0; i < SESSIONS; i++) {
      const cwd = join(dir, `idle-${i}`);
      mkdirSync(cwd);
      await output(runtime.session({ id: `idle-${i}`, cwd }), 'true');
    }
    await sleep(1000);
    const after = readTree();
    return { threads: (after.threads - before.threads) / SESSIONS, hostRssKiB: (after.hostRss - before.hostRss) / KiB / SESSIONS };
  } finally {
    await runtime.close();
  }
}

function result(downloads: Map<string, number[]>, latency: Map<string, number[]>, memory: IdleCost): SuiteResult {
  const ratio = median(roundRatios(downloads.get(PROXIED)!, downloads.get(ALLOWED)!));
  const ofRelay = median(roundRatios(downloads.get(PROXIED)!, downloads.get(RELAY)!));
  const relayRatio = median(roundRatios(downloads.get(RELAY)!, downloads.get(ALLOWED)!));
  const throughput = withRatios([
    { name: ALLOWED, value: median(downloads.get(ALLOWED)!), unit: 'MB/s', extra: { runs: downloads.get(ALLOWED)! } },
    { name: RELAY, value: median(downloads.get(RELAY)!), unit: 'MB/s', baseline: ALLOWED, ratio: relayRatio, extra: { runs: downloads.get(RELAY)! } },
    {
      name: PROXIED,
      value: median(downloads.get(PROXIED)!),
      unit: 'MB/s',
      baseline: ALLOWED,
      ratio,
      extra: { runs: downloads.get(PROXIED)!, 'vs bare relay': ofRelay },
    },
  ]);
  const direct = spread(latency.get(ALLOWED)!);
  const proxied = spread(latency.get(PROXIED)!);
  const latencyRows = withRatios([
    { name: ALLOWED, value: direct.p50, unit: 'p50 ms', extra: { 'p99 ms': direct.p99 } },
    {
      name: PROXIED,
      value: proxied.p50,
      unit: 'p50 ms',
      baseline: ALLOWED,
      extra: { 'p99 ms': proxied.p99, 'added p50 ms': proxied.p50 - direct.p50, 'added p99 ms': proxied.p99 - direct.p99 },
    },
  ]);
  const idleRows = withRatios([
    { name: `idle session with a domain policy`, value: memory.hostRssKiB, unit: 'host KiB per session', extra: { 'host threads per session': memory.threads } },
  ]);
  const row = find(throughput, PROXIED);
  return {
    name: 'network',
    description: 'network by name: download throughput and request latency through the proxy, and an idle session\'s cost',
    tables: [
      { title: '1 GiB download (curl in a workspace-write session, from a local HTTP server)', rows: throughput },
      { title: `${REQUESTS} small requests, one after another, each a new connection`, rows: latencyRows },
      { title: `${SESSIONS} sessions after one \`true\` each`, rows: idleRows },
    ],
    targets: [
      target('a download through the proxy runs at >= 0.8x the allowed network', row.ratio, 0.8, `${fmt(row.ratio)}x (${fmt(row.value)} MB/s)`),
      target('a download through the proxy runs at >= 0.8x a bare C relay', ofRelay, 0.8, `${fmt(ofRelay)}x`),
    ],
    notes: [
      `Two runtimes (createRuntime defaults, sandbox {mode: 'workspace-write'}, landlock), network 'allow' reaching the ` +
        `server at 127.0.0.1 directly, and {mode: 'domains'} reaching it by name through the proxy (test host map); ` +
        `curl's own size and total time per download, ${ROUNDS} interleaved rounds, ratio the median of per-round ratios.`,
      'The bare relay (bench/lib/tcp-relay.c) accepts on the host loopback and copies to the server with 128 KiB ' +
        'blocking reads and writes, a thread per direction, as the proxy does: on loopback a relay doubles the TCP work ' +
        'of every byte, so its figure, not the direct download, is what a proxy can reach on this machine.',
      `Latency: ${REQUESTS} sequential curl requests of a few bytes inside one call per runtime (curl's time_total).`,
      `Idle: ${SESSIONS} new sessions with one \`true\` each; the benchmark process's threads and RSS added, per session ` +
        '(the proxy serves each session with one accepting thread).',
    ],
  };
}
