import { exampleOrder, newEvent, parseEvent } from '@ordering/contracts';
import { publishedText } from '../src/event-field-order';

/** What the relay reads back from a jsonb column: every object's fields shortest name first. */
const asJsonb = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(asJsonb)
    : v && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : 1))
            .map(([k, x]) => [k, asJsonb(x)]),
        )
      : v;

const event = (po: string | null, cancelled: boolean) =>
  newEvent({
    type: 'order.approved',
    cust_id: 'ACME',
    data: exampleOrder({
      po_number: po,
      ...(cancelled && {
        cancelled_at: '2026-01-02T03:04:05.000Z',
        cancellation: { cancelled_by: { login: 'ann', name: 'Ann' }, reason: null },
      }),
    }),
  });

describe('the published text of an outbox payload', () => {
  it("is the envelope in the spec's field order, for the first of a shape and the ones after", () => {
    const events = [event('1', false), event('2', true), event(null, false), event('4', true)];
    for (const e of [...events, ...events]) {
      const stored = asJsonb(JSON.parse(JSON.stringify(e)));
      expect(JSON.stringify(stored)).not.toBe(JSON.stringify(e));
      expect(publishedText(stored)).toBe(JSON.stringify(parseEvent(stored)));
      expect(publishedText(stored)).toBe(JSON.stringify(e));
    }
  });

  it('is any other payload as stored', () => {
    const revocation = { jti: 'abc', exp: 123, type: 'token.revoked' };
    expect(publishedText(revocation)).toBe('{"jti":"abc","exp":123,"type":"token.revoked"}');
  });
});
