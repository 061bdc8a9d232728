// Sessions and pending sign-ins in Redis, under keys derived from the cookie value by SHA-256 (a
// leaked key list does not hand out cookies). Sessions slide: each use extends the idle timeout.
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PendingSignIn, PortalSession } from '../domain/session';

const PENDING_TTL_SECONDS = 600;

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

  async save(id: string, session: PortalSession): Promise<void> {
    await this.redis.set(this.sessionKey(id), JSON.stringify(session), 'EX', this.idleSeconds);
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.sessionKey(id));
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
