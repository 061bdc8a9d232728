// The idempotency store on its own: expiry after the window, take-over of abandoned claims, purge.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import {
  type IdempotencyClaim,
  IdempotencyStore,
  idempotencyMigration,
  idempotencyVerbatimResponseMigration,
  requestFingerprint,
} from '../src';

let db: TestDatabase;
let now = new Date('2026-11-22T10:00:00Z');
let store: IdempotencyStore;

beforeAll(async () => {
  db = await createTestDatabase({
    service: 'idempotency',
    migrations: [idempotencyMigration, idempotencyVerbatimResponseMigration],
  });
  store = new IdempotencyStore(db.knex, { now: () => now, ttlMs: 24 * 3600_000, lockTimeoutMs: 60_000 });
});
afterAll(() => db?.drop());

const advance = (ms: number) => {
  now = new Date(now.getTime() + ms);
};

/** A claim this request holds (the test fails if it got a replay). */
function claimed(claim: IdempotencyClaim) {
  if (claim.kind !== 'claimed') throw new Error(`expected a claim, got a ${claim.kind}`);
  return claim;
}

it('fingerprints ignore key order but not values', () => {
  expect(requestFingerprint('POST', '/v1/users', { a: 1, b: { c: 2, d: 3 } })).toBe(
    requestFingerprint('post', '/v1/users', { b: { d: 3, c: 2 }, a: 1 }),
  );
  expect(requestFingerprint('POST', '/v1/users', { a: 1 })).not.toBe(
    requestFingerprint('POST', '/v1/users', { a: 2 }),
  );
  expect(requestFingerprint('POST', '/v1/users', { a: 1 })).not.toBe(
    requestFingerprint('POST', '/v1/orders', { a: 1 }),
  );
});

it('replays within 24 h; after the window the key is new again', async () => {
  const key = randomUUID();
  const claim = claimed(await store.claim('client', key, 'f1'));
  await db.knex.transaction((trx) =>
    store.complete(trx, 'client', key, { status: 201, body: { id: 'x' } }, claim),
  );
  advance(23 * 3600_000);
  expect(await store.claim('client', key, 'f1')).toEqual({
    kind: 'replay',
    response: { status: 201, body: { id: 'x' } },
  });
  advance(2 * 3600_000);
  expect(await store.claim('client', key, 'f2')).toEqual({ kind: 'claimed', lockedAt: now });
});

it('a replay answers the stored body as it was written, keys in their order', async () => {
  const key = randomUUID();
  const body = { id: 'ord_1', object: 'order', status: 'approved', items: [{ quantity: 2, item_code: 'A' }] };
  const claim = claimed(await store.claim('client', key, 'f1'));
  await db.knex.transaction((trx) => store.complete(trx, 'client', key, { status: 201, body }, claim));
  const replay = await store.claim('client', key, 'f1');
  expect(replay.kind === 'replay' && JSON.stringify(replay.response.body)).toBe(JSON.stringify(body));
});

it('a claim whose request never finished may be taken over after the lock timeout', async () => {
  const key = randomUUID();
  await store.claim('client', key, 'f1');
  await expect(store.claim('client', key, 'f1')).rejects.toMatchObject({
    code: 'idempotency_key_in_use',
    status: 409,
  });
  advance(61_000);
  expect(await store.claim('client', key, 'f1')).toEqual({ kind: 'claimed', lockedAt: now });
});

it('a request whose claim was taken over can neither complete nor release it: one creation per key', async () => {
  const key = randomUUID();
  const slow = claimed(await store.claim('client', key, 'f1'));
  advance(61_000); // the first request still runs (a slow dependency), a retry takes the key over
  const retry = claimed(await store.claim('client', key, 'f1'));
  // The first one finishes now: its creating transaction is refused (and rolls back).
  await expect(
    db.knex.transaction((trx) =>
      store.complete(trx, 'client', key, { status: 201, body: { id: 'first' } }, slow),
    ),
  ).rejects.toMatchObject({ code: 'idempotency_key_in_use', status: 409 });
  // Nor does a failure of the first one free the key under the retry.
  await store.release('client', key, slow);
  await expect(store.claim('client', key, 'f1')).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
  await db.knex.transaction((trx) =>
    store.complete(trx, 'client', key, { status: 201, body: { id: 'retry' } }, retry),
  );
  expect(await store.claim('client', key, 'f1')).toEqual({
    kind: 'replay',
    response: { status: 201, body: { id: 'retry' } },
  });
});

it('a completion rolled back with its transaction leaves no stored response', async () => {
  const key = randomUUID();
  const claim = claimed(await store.claim('client', key, 'f1'));
  await expect(
    db.knex.transaction(async (trx) => {
      await store.complete(trx, 'client', key, { status: 201, body: {} }, claim);
      throw new Error('creation failed');
    }),
  ).rejects.toThrow('creation failed');
  const row = await db.knex('idempotency_keys').where({ scope: 'client', key }).first();
  expect(row.state).toBe('running');
});

it('purges expired keys only', async () => {
  const old = randomUUID();
  await store.claim('purge', old, 'f');
  advance(25 * 3600_000);
  const fresh = randomUUID();
  await store.claim('purge', fresh, 'f');
  expect(await store.purgeExpired()).toBeGreaterThanOrEqual(1);
  const keys = (await db.knex('idempotency_keys').where({ scope: 'purge' })).map(
    (r: { key: string }) => r.key,
  );
  expect(keys).toEqual([fresh]);
});
