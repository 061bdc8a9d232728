import request from 'supertest';
import {
  createApp,
  decodeCursor,
  encodeCursor,
  listEnvelope,
  pageOf,
  parseListParams,
  requestPath,
} from '../src';
import { captureLogs } from './log-capture';

function invalid(param: string) {
  return expect.objectContaining({ status: 422, code: 'invalid_value', param });
}

describe('parseListParams', () => {
  it('defaults limit to 25 without a cursor', () => {
    expect(parseListParams({})).toEqual({ limit: 25 });
  });

  it.each(['1', '25', '100'])('accepts limit=%s', (limit) => {
    expect(parseListParams({ limit }).limit).toBe(Number(limit));
  });

  it.each([['0'], ['101'], ['-1'], ['abc'], ['2.5'], [''], ['1e2'], [['5', '6']], ['99999']])(
    'refuses limit=%j with 422 invalid_value param limit',
    (limit) => {
      expect(() => parseListParams({ limit })).toThrow(invalid('limit'));
    },
  );

  it('decodes starting_after back into the cursor values', () => {
    const cursor = { submitted_at: '2026-11-20T10:00:00.000Z', id: 'ord_9' };
    expect(parseListParams({ limit: '10', starting_after: encodeCursor(cursor) })).toEqual({
      limit: 10,
      startingAfter: cursor,
    });
  });

  it.each([
    ['not base64url', 'ab$%'],
    ['empty', ''],
    ['base64 of non-JSON', Buffer.from('hello').toString('base64url')],
    ['a JSON array', Buffer.from('[1,2]').toString('base64url')],
    ['a JSON string', Buffer.from('"x"').toString('base64url')],
    ['an empty object', Buffer.from('{}').toString('base64url')],
    ['nested values', Buffer.from('{"a":{"b":1}}').toString('base64url')],
    ['repeated', ['a', 'b']],
  ])('refuses a malformed starting_after (%s) with 422 param starting_after', (_label, startingAfter) => {
    expect(() => parseListParams({ starting_after: startingAfter })).toThrow(invalid('starting_after'));
  });

  it('refuses a cursor lacking the keys the endpoint needs', () => {
    const other = encodeCursor({ name: 'x' });
    expect(() => parseListParams({ starting_after: other }, { cursor: { id: 'text' } })).toThrow(
      invalid('starting_after'),
    );
    expect(decodeCursor(encodeCursor({ id: 'u1', n: 3 }))).toEqual({ id: 'u1', n: 3 });
  });
});

describe('a cursor of a named shape', () => {
  const ORDER_CURSOR = { t: 'timestamp', id: 'id' } as const;
  const ORDER_ID = 'ord_01JD0Z8Q3N4M5P6R7S8T9V0W1X';
  const read = (values: unknown) =>
    parseListParams(
      { starting_after: Buffer.from(JSON.stringify(values)).toString('base64url') },
      { cursor: ORDER_CURSOR },
    );

  it('gives the timestamp as a Date and the id as text, as the page wrote them', () => {
    const t = new Date('2026-11-20T10:00:00.123Z');
    expect(read({ t: t.toISOString(), id: ORDER_ID })).toEqual({
      limit: 25,
      startingAfter: { t, id: ORDER_ID },
    });
  });

  it.each([
    ['a timestamp that is no date', { t: 'x', id: ORDER_ID }],
    ['an empty timestamp', { t: '', id: ORDER_ID }],
    ['month 99', { t: '2026-99-99T00:00:00Z', id: ORDER_ID }],
    ['a five-digit year', { t: '99999-01-01T00:00:00Z', id: ORDER_ID }],
    ['February 30', { t: '2026-02-30T00:00:00.000Z', id: ORDER_ID }],
    ['a numeric timestamp', { t: 1700000000000, id: ORDER_ID }],
    ['an id that is no API id', { t: '2026-11-20T10:00:00.000Z', id: 'y' }],
    ['a numeric id', { t: '2026-11-20T10:00:00.000Z', id: 7 }],
    ['a missing id', { t: '2026-11-20T10:00:00.000Z' }],
    ['an extra field', { t: '2026-11-20T10:00:00.000Z', id: ORDER_ID, x: 'y' }],
    ['no field', {}],
  ])('refuses %s with 422 invalid_value param starting_after', (_label, values) => {
    expect(() => read(values)).toThrow(invalid('starting_after'));
  });

  it('takes any non-empty text in a text field, refuses an empty one', () => {
    const cursor = (login: unknown) => encodeCursor({ login } as Record<string, string>);
    expect(parseListParams({ starting_after: cursor('ann') }, { cursor: { login: 'text' } })).toEqual({
      limit: 25,
      startingAfter: { login: 'ann' },
    });
    expect(() => parseListParams({ starting_after: cursor('') }, { cursor: { login: 'text' } })).toThrow(
      invalid('starting_after'),
    );
  });
});

describe('list envelope and pages', () => {
  const rows = [1, 2, 3, 4, 5].map((n) => ({ id: `ord_${n}`, n }));

  it('a page with more rows after it has has_more and a cursor at its last row', () => {
    const page = pageOf(rows.slice(0, 3), 2, (r) => ({ id: r.id }));
    expect(page.data.map((r) => r.id)).toEqual(['ord_1', 'ord_2']);
    expect(page.hasMore).toBe(true);
    expect(decodeCursor(page.nextCursor as string)).toEqual({ id: 'ord_2' });
  });

  it('the last page has has_more false and a null cursor', () => {
    const page = pageOf(rows.slice(3), 2, (r) => ({ id: r.id }));
    expect(page).toEqual({ data: rows.slice(3), hasMore: false, nextCursor: null });
    expect(pageOf([], 2, () => ({ id: 'x' }))).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it('listEnvelope has the spec shape and never a cursor when there is no more', () => {
    expect(listEnvelope('/v1/orders', [1], false, 'ignored')).toEqual({
      object: 'list',
      url: '/v1/orders',
      has_more: false,
      next_cursor: null,
      data: [1],
    });
    expect(listEnvelope('/v1/orders', [1], true, 'c1').next_cursor).toBe('c1');
  });

  it('walks every row exactly once through an HTTP list endpoint', async () => {
    const all = Array.from({ length: 7 }, (_, i) => ({ id: `u${String(i).padStart(2, '0')}` }));
    const app = createApp({
      service: 'users',
      logger: captureLogs().logger,
      routes: (app) =>
        app.get('/v1/users', (req, res) => {
          const { limit, startingAfter } = parseListParams(req.query, { cursor: { id: 'text' } });
          const after = startingAfter ? startingAfter.id : '';
          const rows = all.filter((u) => u.id > after).slice(0, limit + 1);
          const page = pageOf(rows, limit, (u) => ({ id: u.id }));
          res.json(listEnvelope(requestPath(req), page.data, page.hasMore, page.nextCursor));
        }),
    });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string> = { limit: '3', ...(cursor ? { starting_after: cursor } : {}) };
      const res = await request(app).get('/v1/users').query(query).expect(200);
      expect(res.body.url).toBe('/v1/users');
      seen.push(...res.body.data.map((u: { id: string }) => u.id));
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((u) => u.id));

    const bad = await request(app).get('/v1/users?limit=101').expect(422);
    expect(bad.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_value', param: 'limit' });
    const badCursor = await request(app).get('/v1/users?starting_after=garbage!').expect(422);
    expect(badCursor.body.error).toMatchObject({ code: 'invalid_value', param: 'starting_after' });
  });
});
