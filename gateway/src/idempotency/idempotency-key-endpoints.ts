// Which endpoint each client's `Idempotency-Key` was first used on. decisions.md scopes a key to
// "the client plus the key", but each service keeps its keys in its own database, where the
// fingerprint (method, path, body) already refuses a key reused on another of its endpoints. Only
// the gateway sees every service, so it refuses a key reused on another service's creating POST
// (422 `idempotency_key_reused`), as that service could not. One `SET NX` per creating POST that
// carries a key; a retry on the same endpoint reads the key back (a second command) and passes on
// to the service, which replays or refuses by the body. While Redis is unusable the check is
// skipped: each service's own check still holds.
import { IDEMPOTENCY_KEY_PATTERN, idempotencyScopeOf } from '@ordering/contracts';
import { IdempotencyError } from '@ordering/errors';
import type { RedisConnection } from '../redis-connection';

const TTL_SECONDS = 24 * 60 * 60;

export class IdempotencyKeyEndpoints {
  /**
   * @param endpoints the creating POSTs that take `Idempotency-Key` (`POST /v1/orders`, ...); a
   *   key sent to any other endpoint is not recorded.
   */
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
    private readonly endpoints: ReadonlySet<string>,
  ) {}

  /**
   * Records `endpoint` (e.g. `POST /v1/orders`) for the key, or refuses another endpoint's key. Keys
   * are scoped as the services scope them (`idempotencyScopeOf`): two users of one web client never
   * share a key. A key the services would refuse is left for them to refuse.
   */
  async claim(token: { client_id: string; sub: string }, key: string, endpoint: string): Promise<void> {
    if (!this.endpoints.has(endpoint) || !IDEMPOTENCY_KEY_PATTERN.test(key) || !this.connection.usable())
      return;
    const redisKey = `${this.keyPrefix}idempotency:${idempotencyScopeOf(token)}:${key}`;
    let first: string | null;
    try {
      const created = await this.connection.redis.set(redisKey, endpoint, 'EX', TTL_SECONDS, 'NX');
      if (created === 'OK') {
        this.connection.health.succeeded();
        return;
      }
      first = await this.connection.redis.get(redisKey);
      this.connection.health.succeeded();
    } catch (err) {
      this.connection.health.failed(err);
      return;
    }
    if (first !== null && first !== endpoint) {
      throw new IdempotencyError(
        'idempotency_key_reused',
        `This Idempotency-Key was already used for ${first}; use a new key`,
      );
    }
  }
}
