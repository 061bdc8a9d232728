// The HTTP half of idempotent creation (decisions.md "Idempotency"), for any creating POST:
// reads `Idempotency-Key`, replays a stored response (with `Idempotent-Replayed: true`), or runs
// the creation with a hook that stores the response inside the creating transaction.
import type { Request, Response } from 'express';
import type { Knex } from 'knex';
import { IDEMPOTENCY_KEY_PATTERN, idempotencyScopeOf } from '@ordering/contracts';
import { InputError } from '@ordering/errors';
import { identityOf, requestPath } from '@ordering/http';
import { type IdempotencyStore, type StoredResponse, requestFingerprint } from './idempotency-store';
import { nameCreatedResource } from '@ordering/telemetry';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Stores the response in the creating transaction. */
export type CompleteHook = (trx: Knex.Transaction, response: StoredResponse) => Promise<void>;

/**
 * How a response body is kept for its replays, for a body holding a secret shown once (a webhook
 * `signing_secret`): `toStored` seals it before it is written, `fromStored` opens it for the replay,
 * so that the idempotency table never holds what the resource's own table keeps only encrypted.
 * Both must keep the body's key order (the replay is byte for byte the original answer).
 */
export interface StoredResponseCodec {
  toStored(body: unknown): unknown;
  fromStored(body: unknown): unknown;
}

/**
 * Answers `req` with the response `create` builds, at most once per (client, key).
 * `create` must call `complete` inside the transaction that creates the resource; without an
 * Idempotency-Key there is nothing to store and `complete` is undefined (no transaction needed for it).
 */
export async function respondIdempotently(
  store: IdempotencyStore,
  req: Request,
  res: Response,
  create: (complete: CompleteHook | undefined) => Promise<StoredResponse>,
  codec?: StoredResponseCodec,
): Promise<void> {
  const key = req.get(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) {
    const response = await create(undefined);
    nameCreatedResource(response.body);
    res.status(response.status).json(response.body);
    return;
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new InputError('Idempotency-Key must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
  }
  const scope = idempotencyScopeOf(identityOf(req));
  const claim = await store.claim(scope, key, requestFingerprint(req.method, requestPath(req), req.body));
  if (claim.kind === 'replay') {
    const body = codec ? codec.fromStored(claim.response.body) : claim.response.body;
    res.setHeader('Idempotent-Replayed', 'true');
    nameCreatedResource(body);
    res.status(claim.response.status).json(body);
    return;
  }
  let response: StoredResponse;
  try {
    response = await create((trx, r) =>
      store.complete(trx, scope, key, codec ? { status: r.status, body: codec.toStored(r.body) } : r, claim),
    );
  } catch (err) {
    await store.release(scope, key, claim);
    throw err;
  }
  nameCreatedResource(response.body);
  res.status(response.status).json(response.body);
}
