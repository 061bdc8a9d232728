// Sessions and pending sign-ins in Redis, under keys derived from the cookie value by SHA-256 (a
// leaked key list does not hand out cookies). Sessions slide: each use extends the idle timeout.
// Beside each session: its one-time message (its own key, so that showing or setting it never
// writes the session's tokens back) and the lock of its token refresh, shared by every replica.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FlashMessage, PendingSignIn, PortalSession } from '../domain/session';

const PENDING_TTL_SECONDS = 600;

/** Deletes the lock only while it is still the holder's (a lock that expired may be another's). */
const RELEASE_LOCK = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

export function newOpaqueId(): string {
  return randomBytes(32).toString('base64url');
}

const digest = (id: string) => createHash('sha256').update(id).digest('base64url');

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly idleSeconds: number,
  ) {}

  private sessionKey(id: string) {
    return `${this.prefix}portal:session:${digest(id)}`;
  }

  private pendingKey(id: string) {
    return `${this.prefix}portal:sign-in:${digest(id)}`;
  }

  private flashKey(id: string) {
    return `${this.prefix}portal:flash:${digest(id)}`;
  }

  private refreshLockKey(id: string) {
    return `${this.prefix}portal:refresh-lock:${digest(id)}`;
  }

  async create(session: PortalSession): Promise<string> {
    const id = newOpaqueId();
    await this.redis.set(this.sessionKey(id), JSON.stringify(session), 'EX', this.idleSeconds);
    return id;
  }

  async find(id: string): Promise<PortalSession | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return undefined;
    const key = this.sessionKey(id);
    const raw = await this.redis.getex(key, 'EX', this.idleSeconds);
    return raw ? (JSON.parse(raw) as PortalSession) : undefined;
  }

  /** Saves a session that still exists (false when it ended meanwhile: nothing is brought back). */
  async save(id: string, session: PortalSession): Promise<boolean> {
    const saved = await this.redis.set(
      this.sessionKey(id),
      JSON.stringify(session),
      'EX',
      this.idleSeconds,
      'XX',
    );
    return saved === 'OK';
  }

  /** Ends the session; the one it was (to revoke its tokens), if it still existed. */
  async take(id: string): Promise<PortalSession | undefined> {
    const [[, raw]] = (await this.redis
      .multi()
      .getdel(this.sessionKey(id))
      .del(this.flashKey(id))
      .exec()) as [[Error | null, string | null], [Error | null, number]];
    return raw ? (JSON.parse(raw) as PortalSession) : undefined;
  }

  /** A message for the session's next page. */
  async setFlash(id: string, message: FlashMessage): Promise<void> {
    await this.redis.set(this.flashKey(id), JSON.stringify(message), 'EX', this.idleSeconds);
  }

  /** The session's pending message, taken (shown once). */
  async takeFlash(id: string): Promise<FlashMessage | undefined> {
    const raw = await this.redis.getdel(this.flashKey(id));
    return raw ? (JSON.parse(raw) as FlashMessage) : undefined;
  }

  /**
   * The session's token refresh for the caller alone, for at most `ttlMs`: the function that
   * releases it, or undefined while another request (of any replica) holds it.
   */
  async lockRefresh(id: string, ttlMs: number): Promise<(() => Promise<void>) | undefined> {
    const key = this.refreshLockKey(id);
    const holder = newOpaqueId();
    if ((await this.redis.set(key, holder, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
    return async () => {
      await this.redis.eval(RELEASE_LOCK, 1, key, holder);
    };
  }

  async createPending(pending: PendingSignIn): Promise<string> {
    const id = newOpaqueId();
    await this.redis.set(this.pendingKey(id), JSON.stringify(pending), 'EX', PENDING_TTL_SECONDS);
    return id;
  }

  /** The pending sign-in, consumed (a callback is answered once). */
  async takePending(id: string): Promise<PendingSignIn | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(id)) return undefined;
    const raw = await this.redis.getdel(this.pendingKey(id));
    return raw ? (JSON.parse(raw) as PendingSignIn) : undefined;
  }
}
