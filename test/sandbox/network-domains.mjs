// The domain network mode end to end: real clients in a session's sandbox (curl, git, npm, node) against real servers
// on the host's loopback, reached by name through the proxy's test-only host map, and every way around the proxy
// tried. Prints one JSON object of facts.
// Usage: node network-domains.mjs <backend> <base>
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../dist/src/index.js';
import { networkWitness } from './network-witness.mjs';

const connect = new URL('../../dist/src/env/bin/shellring-connect', import.meta.url).pathname;
const [backend, base] = process.argv.slice(2);
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
const node = process.execPath;
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

// A web server that names what it was asked for, and keeps every path it served.
const served = [];
const web = createServer((req, res) => {
  served.push(req.url);
  res.end(`hello ${req.url}\n`);
});
// It is also an open relay (CONNECT to any name, which the test host map puts on this loopback): an allowed host
// that is itself a proxy, whose own reach the policy does not govern.
web.on('connect', (req, socket) => {
  const upstream = connectTcp(Number(req.url.split(':').at(-1)), '127.0.0.1', () => {
    socket.write('HTTP/1.1 200 Connection established\r\n\r\n');
    upstream.pipe(socket).pipe(upstream);
  });
  upstream.on('error', () => socket.destroy());
  socket.on('error', () => upstream.destroy());
});
const webPort = await listen(web);

// git's smart HTTP through `git http-backend` (CGI), over a bare repository with one commit.
const gitRoot = join(base, 'git');
mkdirSync(gitRoot);
const git = (...args) => execFileSync('git', args, { cwd: gitRoot, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t', HOME: base } });
git('init', '-q', '-b', 'main', 'src');
writeFileSync(join(gitRoot, 'src', 'README'), 'cloned through the proxy\n');
git('-C', 'src', 'add', 'README');
git('-C', 'src', 'commit', '-qm', 'one');
git('clone', '-q', '--bare', 'src', 'repo.git');
const gitServer = createServer((req, res) => {
  const url = new URL(req.url, 'http://git');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: gitRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: req.headers['git-protocol'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let body = false;
  child.stdout.on('data', (chunk) => {
    if (body) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    body = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString().split('\r\n')) {
      const at = line.indexOf(':');
      const [name, value] = [line.slice(0, at), line.slice(at + 1).trim()];
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.stdout.on('end', () => res.end());
});
const gitPort = await listen(gitServer);

// Verdaccio, started by the test with one package published (npm-index.ts).
const registryPort = Number(process.env.SHELLRING_TEST_NPM);

const witness = await networkWitness();
const names = ['web.test', 'git.test', 'registry.test', 'evil.test'];
const testHostMap = Object.fromEntries(names.map((name) => [name, '127.0.0.1']));

async function session(network, id) {
  const runtime = await createRuntime({ sandbox: { mode: 'workspace-write', backend, network: { mode: 'domains', ...network, testHostMap } } });
  return { runtime, session: runtime.session({ id, cwd: ws }) };
}

async function run(session, commands) {
  const out = {};
  for (const [name, command] of Object.entries(commands)) {
    const result = await session.callTool('bash', { command, description: `network probe ${name}`, timeoutMs: 90_000 });
    out[name] = { text: result.content[0].text, blocked: result.structuredContent?.networkBlocked ?? null };
  }
  return out;
}

// git over SSH: the test's sshd (SHELLRING_TEST_SSH: its port and a directory with a client key, a known_hosts line
// for git.test at that port, and a bare repository) reached through the CONNECT helper GIT_SSH_COMMAND names.
const ssh = process.env.SHELLRING_TEST_SSH ? JSON.parse(process.env.SHELLRING_TEST_SSH) : undefined;
let sshPush = {};
if (ssh) {
  copyFileSync(join(ssh.dir, 'id'), join(ws, 'ssh-id'));
  chmodSync(join(ws, 'ssh-id'), 0o600);
  copyFileSync(join(ssh.dir, 'known_hosts'), join(ws, 'ssh-known-hosts'));
  const ref = `pushed-${backend}-${process.getuid()}`;
  const push = (host) =>
    `GIT_SSH_COMMAND="$GIT_SSH_COMMAND -i $PWD/ssh-id -o UserKnownHostsFile=$PWD/ssh-known-hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes -o BatchMode=yes" ` +
    `git -C push-src push -q ssh://root@${host}:${ssh.port}${ssh.dir}/remote.git HEAD:refs/heads/${ref}`;
  sshPush = {
    sshPush: `rm -rf push-src && git init -q -b main push-src && git -C push-src -c user.name=t -c user.email=t@t commit -q --allow-empty -m pushed && ${push('git.test')} && echo "pushed ${ref}"`,
    sshPushRefused: `${push('evil.test')} 2>push-refused.err; head -1 push-refused.err`,
  };
}

const facts = {};
const named = await session(
  { allow: ['web.test', 'git.test', 'registry.test'], deny: ['evil.test'], reasons: { 'evil.test': 'a known exfiltration host' } },
  'named',
);
const web1 = `web.test:${webPort}`;
facts.named = await run(named.session, {
  allowed: `curl -sS http://${web1}/allowed`,
  tunnel: `curl -sS -p http://${web1}/tunnel`,
  socks: `curl -sS --proxy socks5h://127.0.0.1:3128 http://${web1}/socks`,
  denied: `curl -sS http://evil.test:${webPort}/denied`,
  unlisted: `curl -sS http://other.test:${webPort}/unlisted`,
  direct: `curl -sS --max-time 20 http://127.0.0.1:${webPort}/direct; echo "curl: $?"`,
  loopback: `curl -sS --noproxy '' http://127.0.0.1:${webPort}/loopback`,
  metadata: `curl -sS --noproxy '' http://169.254.169.254/latest/meta-data/`,
  metadataDirect: `curl -sS --max-time 20 --noproxy '*' http://169.254.169.254/; echo "curl: $?"`,
  ipv6: `curl -sS --noproxy '' 'http://[::1]:${webPort}/ipv6'`,
  noProxy: `curl -sS --max-time 20 --noproxy '*' http://${web1}/noproxy; echo "curl: $?"`,
  sshHelper: `printf 'GET /ssh HTTP/1.0\\r\\n\\r\\n' | ${connect} web.test ${webPort} | tail -1`,
  sshHelperRefused: `${connect} evil.test 22 </dev/null; echo "exit $?"`,
  // The proxy judges the target, whatever else the request names.
  hostHeader: `curl -sS -p --proxy-header 'Host: ${web1}' http://evil.test:${webPort}/confused-connect`,
  absoluteHost: `curl -sS -H 'Host: ${web1}' http://evil.test:${webPort}/confused-absolute`,
  chain: `curl -sS --preproxy socks5h://127.0.0.1:3128 -x http://${web1} -p http://evil.test:${webPort}/chain`,
  sshCommand: 'echo "$GIT_SSH_COMMAND"',
  ...sshPush,
  udpNode: `${node} -e "require('dgram').createSocket('udp4').on('error', (e) => console.log(e.code)).send('x', 53, '8.8.8.8', (e) => console.log(e ? e.code : 'sent'))" 2>&1 | grep -v -e UNDICI-EHPA -e trace-warnings | head -1`,
  dns: `getent hosts evil.test || echo "no answer: $?"`,
  lookupPython: `python3 -c "import socket; socket.getaddrinfo('web.test', 80)" 2>&1 | tail -1`,
  ...witness.commands,
  git: `git clone -q http://git.test:${gitPort}/repo.git clone && cat clone/README`,
  npm: `npm install --registry http://registry.test:${registryPort}/ --no-audit --no-fund --no-update-notifier --fetch-retries=0 shellring-net-probe >/dev/null && ${node} -p "require('shellring-net-probe')"`,
  pip: `/usr/bin/python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --retries 0 --trusted-host registry.test --index-url http://registry.test:${process.env.SHELLRING_TEST_PYPI}/simple/ -d pip-${process.getuid()} shellring-net-probe >/dev/null && ls pip-${process.getuid()}`,
  pipRefused: `/usr/bin/python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check --retries 0 --trusted-host other-registry.test --index-url http://other-registry.test:${process.env.SHELLRING_TEST_PYPI}/simple/ -d pip-refused shellring-net-probe >/dev/null 2>&1; echo "pip: $?"`,
  npmRefused: `npm install --registry http://other-registry.test:${registryPort}/ --no-audit --no-fund --no-update-notifier --fetch-retries=0 shellring-net-probe 2>&1 | grep -c 403`,
});
facts.prompt = named.session.promptSections().find((s) => s.name === 'tool:bash:sandbox').text;
// A person narrows the session's policy: its next connections are judged by the new one.
named.session.setNetwork({ mode: 'domains', allow: ['git.test'], testHostMap });
facts.live = await run(named.session, {
  nowRefused: `curl -sS http://${web1}/narrowed`,
  stillAllowed: `git ls-remote http://git.test:${gitPort}/repo.git | cut -f2`,
});
facts.livePrompt = named.session.promptSections().find((s) => s.name === 'tool:bash:sandbox').text;
const job = await named.session.callTool('bash', { command: `sleep 1; curl -s -o /dev/null http://evil.test:${webPort}/background`, description: 'background probe', run_in_background: true });
const jobId = job.structuredContent.jobId;
facts.background = (await named.session.callTool('job_output', { job_id: jobId, wait: true, timeout_ms: 60_000 })).content[0].text;
await named.runtime.close();

// Any host by name, but never an internal address: the resolved address is checked.
const any = await session({ allow: ['*'] }, 'any');
facts.any = await run(any.session, {
  loopbackName: `curl -sS --noproxy '' http://localhost:${webPort}/name`,
  loopbackIp: `curl -sS --noproxy '' http://127.0.0.1:${webPort}/ip`,
  mapped: `curl -sS --noproxy '' http://[::ffff:127.0.0.1]:${webPort}/mapped`,
  metadata: `curl -sS --noproxy '' http://169.254.169.254/`,
});
await any.runtime.close();

// An entry naming the IP literal reaches it.
const literal = await session({ allow: ['127.0.0.1'] }, 'literal');
facts.literal = await run(literal.session, { loopback: `curl -sS --noproxy '' http://127.0.0.1:${webPort}/literal` });
await literal.runtime.close();

Object.assign(facts, await witness.end());
facts.served = served;
web.close();
gitServer.close();
console.log(JSON.stringify(facts));
process.exit(0);
