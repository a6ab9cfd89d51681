// Every console change needs the page's CSRF value: each POST route the console has (enumerated from its action
// table) answers a signed-in browser's cookie without the CSRF header, or with a wrong one, 403 and changes nothing;
// with the right one the same request reaches the route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_ACTIONS } from '../../../src/faces/console/actions.js';
import { CSRF_HEADER } from '../../../src/faces/console/index.js';
import { fetchRaw, mount, signIn, type Browser, type Mounted } from './server.js';

let mounted: Mounted;
let browser: Browser;
let sessionId: string;

beforeAll(async () => {
  mounted = await mount({ sandbox: { mode: 'read-only' } });
  browser = await signIn(mounted.base);
  const session = mounted.runtime.session({ id: 'csrf-target' });
  sessionId = session.id;
  await session.callTool('bash', { command: 'true', description: 'open the session' });
});

afterAll(() => mounted?.close());

/** Each route's request, aimed at something that exists where the route needs it (the open session). */
const bodies: Record<string, Record<string, unknown>> = {
  '/api/stream/ack': { stream: 'none', seq: 1 },
  '/api/jobs/bash-1/stop': { reason: 'csrf test' },
  '/api/jobs/bash-1/input': { text: 'x' },
  '/api/jobs/bash-1/screen': {},
  '/api/approvals/approval-1': { decision: 'allow-once' },
  '/api/sessions/session-1/mode': { mode: 'danger-full-access' },
};
const target = (example: string) => example.replace('session-1', sessionId);

const post = (path: string, headers: Record<string, string>, body: unknown) =>
  fetchRaw(`${mounted.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: browser.cookie, ...headers }, body: JSON.stringify(body) });

describe('the CSRF check', () => {
  it('covers the routes the console has: stream acknowledgement, job stop, approval, session mode', () => {
    expect(CONSOLE_ACTIONS.map((action) => action.example)).toEqual(Object.keys(bodies));
    for (const action of CONSOLE_ACTIONS) expect(action.pattern.test(action.example), action.example).toBe(true);
  });

  it.each(CONSOLE_ACTIONS.map((action) => action.example))('refuses POST %s with a cookie and no CSRF header, or a wrong one', async (example) => {
    const path = target(example);
    for (const headers of [{}, { [CSRF_HEADER]: '' }, { [CSRF_HEADER]: `${browser.csrf.slice(0, -1)}x` }]) {
      const refused = await post(path, headers, bodies[example]);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.body).toBe(`Forbidden: missing or wrong ${CSRF_HEADER} header\n`);
    }
    expect(mounted.runtime.sandbox!.modeFor(sessionId)).toBe('read-only');
    // The same request with the page's value reaches the route (which answers for itself).
    expect((await post(path, { [CSRF_HEADER]: browser.csrf }, bodies[example])).status).not.toBe(403);
    mounted.runtime.sandbox!.setSessionMode(sessionId, 'read-only');
  });
});
