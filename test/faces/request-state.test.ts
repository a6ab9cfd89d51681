// The approval requestState seal: authentic and fresh opens, altered or expired does not, and each is used once.
import { describe, expect, it } from 'vitest';
import { STATE_TTL_MS, StateCodec } from '../../src/faces/mcp/modern/request-state.js';

const payload = {
  principal: 'bearer:abc',
  state: 'default:bearer:abc',
  tool: 'bash',
  args: 'digest',
  answers: {},
  pending: { key: 'approval-1', digest: 'q', choices: ['allow-once', 'reject'], mode: 'workspace-write' },
};

describe('StateCodec', () => {
  it('opens what it sealed, with the requested mode and an expiry, until the expiry passes', () => {
    let now = 1_000_000;
    const codec = new StateCodec(undefined, () => now);
    const sealed = codec.seal(payload);
    expect(codec.open(sealed)).toMatchObject({ ...payload, exp: 1_000_000 + STATE_TTL_MS });
    now += STATE_TTL_MS - 1;
    expect(codec.open(sealed)).toBeDefined();
    now += 1;
    expect(codec.open(sealed)).toBeUndefined();
  });

  it('refuses an altered payload, a state sealed by another key, and garbage', () => {
    const codec = new StateCodec();
    const sealed = codec.seal(payload);
    const [body, mac] = sealed.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), principal: 'bearer:other' })).toString('base64url');
    expect(codec.open(`${altered}.${mac}`)).toBeUndefined();
    expect(new StateCodec().open(sealed)).toBeUndefined();
    for (const junk of ['', '.', 'x', `${body}.`, `.${mac}`]) expect(codec.open(junk)).toBeUndefined();
  });

  it('redeems each state once', () => {
    const codec = new StateCodec();
    const first = codec.open(codec.seal(payload))!;
    const second = codec.open(codec.seal(payload))!;
    expect(codec.redeem(first)).toBe(true);
    expect(codec.redeem(first)).toBe(false);
    expect(codec.redeem(second)).toBe(true);
  });
});
