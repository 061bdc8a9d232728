import { newEventId, newId, ulid } from '../src';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('identifiers', () => {
  it('are a prefix and a 26-character Crockford ULID', () => {
    expect(newId('ord')).toMatch(/^ord_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(newEventId()).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ulid()).toMatch(ULID);
  });

  it('encode their millisecond in the first ten characters, so they sort by creation time', () => {
    expect(ulid(0).slice(0, 10)).toBe('0000000000');
    expect(ulid(1_469_918_176_385).slice(0, 10)).toBe('01ARYZ6S41');
    const earlier = newId('ord', Date.UTC(2026, 0, 1));
    const later = newId('ord', Date.UTC(2026, 0, 1) + 1);
    expect(earlier < later).toBe(true);
  });

  it('never repeat, also past the refill of their random pool, and within one millisecond', () => {
    const now = Date.now();
    const ids = Array.from({ length: 5_000 }, () => ulid(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.slice(10))).size).toBe(ids.length);
  });
});
