// The Kubernetes example holds together: its HAProxy configuration is valid for the real haproxy and carries the
// same affinity rules as deploy/haproxy.cfg; the Deployment probes, drains and reads its token as documented.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repo, workdir } from '../faces/helpers.js';

const read = (path: string) => readFileSync(join(repo, path), 'utf8');

/** The `haproxy.cfg: |` block of the ConfigMap, unindented. */
function configMapBlock(yaml: string): string {
  const lines = yaml.slice(yaml.indexOf('haproxy.cfg: |\n') + 'haproxy.cfg: |\n'.length).split('\n');
  const block: string[] = [];
  for (const line of lines) {
    if (line !== '' && !line.startsWith('    ')) break;
    block.push(line.slice(4));
  }
  return `${block.join('\n')}\n`;
}

const rules = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(stick|retry-on|option redispatch|option httpchk|retries|option httplog|log-format)/.test(line));

describe('deploy/kubernetes', () => {
  it('ships an HAProxy configuration that haproxy accepts, with the affinity rules of deploy/haproxy.cfg', () => {
    const config = configMapBlock(read('deploy/kubernetes/haproxy.yaml'));
    const dir = workdir('k8s');
    try {
      writeFileSync(join(dir, 'haproxy.cfg'), config);
      const check = spawnSync('haproxy', ['-c', '-f', join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(rules(config)).toEqual(rules(read('deploy/haproxy.cfg')));
    expect(rules(config)).toContain('stick store-response res.hdr(mcp-session-id)');
    // Requests are logged by path, never with their query string (which may hold a token).
    expect(rules(config).filter((rule) => rule.startsWith('log-format'))).toEqual([expect.stringContaining('%HM %HPO %HV')]);
    expect(rules(config)).not.toContain('option httplog');
    // The 2026-07-28 routing: the same rules; the servers are the StatefulSet's pods, which are the instance ids.
    const routing = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => /^(acl|http-request)/.test(line));
    expect(routing(config)).toEqual(routing(read('deploy/haproxy.cfg')));
    expect(routing(config)).toContain("http-request set-var(txn.home) req.hdr(mcp-name),field(1,.) if modern about_task");
    expect(config).toContain('use-server shellring-0 if { var(txn.home) -m str shellring-0 }');
    expect(config).toContain('server shellring-0 shellring-0.shellring-pods.default.svc.cluster.local:8808');
  });

  it('probes /readyz and /healthz, pauses before the SIGTERM drain, and gives the drain time to finish', () => {
    const yaml = read('deploy/kubernetes/shellring.yaml');
    expect(yaml).toContain('httpGet: { path: /readyz, port: http }');
    expect(yaml).toContain('httpGet: { path: /healthz, port: http }');
    expect(yaml).toContain('preStop:');
    expect(yaml).toContain('--token-file=/var/run/shellring/token');
    expect(yaml).toContain('kind: StatefulSet');
    expect(yaml).toContain('--instance-id=$(POD_NAME)');
    const grace = Number(/terminationGracePeriodSeconds: (\d+)/.exec(yaml)![1]);
    const drainMs = Number(/--drain-timeout=(\d+)/.exec(yaml)![1]);
    const pause = Number(/command: \["sleep", "(\d+)"\]/.exec(yaml)![1]);
    expect(grace).toBeGreaterThan(drainMs / 1000 + pause);
  });
});
