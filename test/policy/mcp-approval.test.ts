// Command approvals through MCP form elicitation, with the official SDK client: allow once, allow always for the
// session, reject, a broad prefix offered once only, and a client that cannot elicit (a denial that says so).
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { serveHttp, type HttpServer } from '../../src/faces/mcp/index.js';
import { call, elicitingClient, textOf, workdir } from '../faces/helpers.js';

const work = workdir('mcp-policy');
let server: HttpServer;

const connect = (name: string, answer?: (request: ElicitRequest) => ElicitResult) => elicitingClient(server, name, answer);

const run = (command: string) => ({ command, description: 'run a command the policy judges' });
const decide = (decision: string) => (): ElicitResult => ({ action: 'accept', content: { decision } });

beforeAll(async () => {
  server = await serveHttp({
    port: 0,
    cwd: work,
    runtimeOptions: {
      policy: {
        rules: [
          { decision: 'ask', command: ['mkdir'], message: 'a person approves new directories' },
          { decision: 'ask', command: ['node'], message: 'a person approves scripts' },
          { decision: 'deny', command: ['touch'], message: 'no new files here' },
        ],
      },
    },
  });
});

afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('command approval through MCP elicitation', () => {
  it('shows the sub-command, rule, command and cwd, and runs the call once when allowed once', async () => {
    const tc = await connect('once', decide('allow-once'));
    expect(textOf(await call(tc.client, 'bash', run('mkdir once && echo made')))).toBe('made\n');
    expect(existsSync(join(work, 'once'))).toBe(true);
    expect(tc.asked).toHaveLength(1);
    expect(tc.asked[0]!.params.message).toBe(
      [
        'The bash tool asks to run mkdir: a person approves new directories.',
        'Command: mkdir once && echo made',
        `Working directory: ${work}`,
        'Rule: mkdir',
        'Allow it once, or always for this session?',
      ].join('\n'),
    );
    expect(tc.asked[0]!.params).toMatchObject({
      mode: 'form',
      requestedSchema: { properties: { decision: { enum: ['allow-once', 'allow-always', 'reject'] } }, required: ['decision'] },
    });
    // Once means once: the next mkdir asks again.
    await call(tc.client, 'bash', run('mkdir again'));
    expect(tc.asked).toHaveLength(2);
    await tc.client.close();
  });

  it('allow always stops asking for that prefix in this session; a broad prefix is offered once only', async () => {
    // The person picks "always" wherever the form offers it, else "once".
    const tc = await connect('always', (request) => {
      const offered = (request.params as { requestedSchema: { properties: { decision: { enum: string[] } } } }).requestedSchema.properties.decision.enum;
      return decide(offered.includes('allow-always') ? 'allow-always' : 'allow-once')();
    });
    expect(textOf(await call(tc.client, 'bash', run('mkdir always-1 && echo one')))).toBe('one\n');
    expect(textOf(await call(tc.client, 'bash', run('mkdir always-2 && echo two')))).toBe('two\n');
    expect(tc.asked).toHaveLength(1);
    expect(textOf(await call(tc.client, 'bash', run('node -e "console.log(7)"')))).toBe('7\n');
    expect(tc.asked[1]!.params).toMatchObject({ requestedSchema: { properties: { decision: { enum: ['allow-once', 'reject'] } } } });
    expect(tc.asked[1]!.params.message).toMatch(/\nAllow it once\?$/);
    await call(tc.client, 'bash', run('node -e 0'));
    expect(tc.asked).toHaveLength(3);
    // Another MCP session is another agent session: asked again.
    const other = await connect('always-other', decide('reject'));
    expect(textOf(await call(other.client, 'bash', run('mkdir other')))).toBe(
      '[policy: rejected by the user — mkdir: a person approves new directories]',
    );
    expect(existsSync(join(work, 'other'))).toBe(false);
    for (const client of [tc, other]) await client.client.close();
  });

  it('a declined or cancelled prompt refuses the call; a denied command is never asked about', async () => {
    const declines = await connect('declines', () => ({ action: 'decline' }));
    const rejected = await call(declines.client, 'bash', run('mkdir declined'));
    expect(rejected.isError).toBe(true);
    expect(textOf(rejected)).toBe('[policy: rejected by the user — mkdir: a person approves new directories]');
    expect(textOf(await call(declines.client, 'bash', run('touch denied.txt')))).toBe('[policy: denied — touch: no new files here]');
    expect(declines.asked).toHaveLength(1);
    const cancels = await connect('cancels', () => ({ action: 'cancel' }));
    expect(textOf(await call(cancels.client, 'bash', run('mkdir cancelled')))).toBe(
      '[policy: approval cancelled — mkdir: a person approves new directories]',
    );
    for (const path of ['declined', 'denied.txt', 'cancelled']) expect(existsSync(join(work, path))).toBe(false);
    for (const client of [declines, cancels]) await client.client.close();
  });

  it('says no approval channel is available when the client cannot elicit', async () => {
    const tc = await connect('no-elicitation');
    expect(textOf(await call(tc.client, 'bash', run('mkdir unasked')))).toBe(
      '[policy: denied, a person must approve it but no approval channel is available — mkdir: a person approves new directories]',
    );
    expect(existsSync(join(work, 'unasked'))).toBe(false);
    await tc.client.close();
  });
});
