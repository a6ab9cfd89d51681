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
    const codec = new StateCodec('i1', undefined, () => now);
    const sealed = codec.seal(payload);
    expect(codec.open(sealed)).toMatchObject({ ...payload, exp: 1_000_000 + STATE_TTL_MS });
    now += STATE_TTL_MS - 1;
    expect(codec.open(sealed)).toBeDefined();
    now += 1;
    expect(codec.open(sealed)).toBeUndefined();
  });

  it('refuses an altered payload, a state sealed by another key, and garbage', () => {
    const codec = new StateCodec('i1');
    const sealed = codec.seal(payload);
    expect(sealed.startsWith('i1.')).toBe(true);
    const [, body, mac] = sealed.split('.');
    const altered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), principal: 'bearer:other' })).toString('base64url');
    expect(codec.open(`i1.${altered}.${mac}`)).toBeUndefined();
    // Another key, and the same key under another instance's name.
    expect(new StateCodec('i1').open(sealed)).toBeUndefined();
    expect(codec.open(sealed.replace(/^i1\./, 'i2.'))).toBeUndefined();
    for (const junk of ['', '.', 'x', `i1.${body}.`, `i1..${mac}`, `${body}.${mac}`, `${sealed}.x`]) expect(codec.open(junk)).toBeUndefined();
  });

  it('redeems each state once', () => {
    const codec = new StateCodec('i1');
    const first = codec.open(codec.seal(payload))!;
    const second = codec.open(codec.seal(payload))!;
    expect(codec.redeem(first)).toBe(true);
    expect(codec.redeem(first)).toBe(false);
    expect(codec.redeem(second)).toBe(true);
  });
});
