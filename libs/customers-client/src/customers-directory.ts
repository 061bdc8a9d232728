// What other services know of customer accounts and users, read from the customers service's
// internal API (the only owner of that data; no service reads another's database).
//
// The lineage of an account (itself, its parent, ... its top-level account) answers the two
// questions every service asks on a request: is this account within the token's reach (the token's
// account is in its lineage), and which account's terms apply (the nearest one in the lineage that
// has its own price list, approval chain or subscription). It changes rarely, so it is cached for
// `lineageTtlMs` (default 10 s): an account created a moment ago is fetched on first use (unknown
// accounts are never cached), an account moved in the tree is seen by every service within the TTL.
// Accounts with their addresses and settings are read fresh: orders need the current ones.
import { LRUCache } from 'lru-cache';
import { type Customer, type User, isCustId } from '@ordering/contracts';
import { InternalApiClient } from '@ordering/http';

export interface Lineage {
  cust_id: string;
  /** ISO 4217 currency of the account (its prices and orders are in it). */
  currency: string;
  /** The account first, then each ancestor up to the top-level account. */
  lineage: string[];
}

/** An account as other services see it: the Customer resource plus its currency. */
export type AccountRecord = Customer & { currency: string };

export interface CustomersDirectoryOptions {
  /** CUSTOMERS_URL */
  baseUrl: string;
  /** INTERNAL_IDENTITY_SECRET */
  secret: string;
  /** The calling service's name. */
  caller: string;
  /** How long a lineage is reused; default 10 s (0: never cached). */
  lineageTtlMs?: number;
  /**
   * How long an account (addresses, currency, settings) is reused; default 0 (read fresh every
   * time). Unknown accounts are never cached.
   */
  accountTtlMs?: number;
  /** How long a user is reused; default 0 (read fresh every time). Unknown logins are never cached. */
  userTtlMs?: number;
  /** Most entries kept per cache (lineages, accounts, users); default 10,000. */
  maxEntries?: number;
  timeoutMs?: number;
}

export class CustomersDirectory {
  private readonly api: InternalApiClient;
  private readonly lineages: LRUCache<string, Lineage> | undefined;
  private readonly accounts: LRUCache<string, AccountRecord> | undefined;
  private readonly users: LRUCache<string, User> | undefined;

  constructor(options: CustomersDirectoryOptions) {
    this.api = new InternalApiClient({
      baseUrl: options.baseUrl,
      secret: options.secret,
      caller: options.caller,
      callee: 'customers',
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    const max = options.maxEntries ?? 10_000;
    const cache = <V extends object>(ttl: number) =>
      ttl > 0 ? new LRUCache<string, V>({ max, ttl }) : undefined;
    this.lineages = cache(options.lineageTtlMs ?? 10_000);
    this.accounts = cache(options.accountTtlMs ?? 0);
    this.users = cache(options.userTtlMs ?? 0);
  }

  /** Reads under way, per cache and key: concurrent misses of one key share one call. */
  private readonly loading = new Map<string, Promise<unknown>>();

  /**
   * `load(key)` through `cache` when there is one; an undefined answer (unknown) is never kept.
   * While one read of a key is under way, other callers of that key wait for it instead of asking
   * too (when a popular entry expires under load, one call renews it, not one per request).
   * An entry read after half its TTL is renewed in the background (see below).
   */
  private async through<V extends object>(
    kind: 'lineage' | 'account' | 'user',
    cache: LRUCache<string, V> | undefined,
    key: string,
    load: () => Promise<V | undefined>,
  ): Promise<V | undefined> {
    if (!cache) return load();
    const loadingKey = `${kind} ${key}`;
    const cached = cache.get(key);
    if (cached) {
      // Refresh ahead: an entry read in the second half of its life is renewed in the background,
      // so a key in steady use never makes a request wait for the customers service, and no copy
      // is ever served older than the TTL. A failed renewal is dropped: the entry expires as usual.
      if (cache.getRemainingTTL(key) < cache.ttl / 2 && !this.loading.has(loadingKey)) {
        this.load(loadingKey, cache, key, load).catch(() => undefined);
      }
      return cached;
    }
    const running = this.loading.get(loadingKey) as Promise<V | undefined> | undefined;
    if (running) return running;
    return this.load(loadingKey, cache, key, load);
  }

  /** One read of `key` into `cache`, registered so that concurrent callers share it. */
  private async load<V extends object>(
    loadingKey: string,
    cache: LRUCache<string, V>,
    key: string,
    load: () => Promise<V | undefined>,
  ): Promise<V | undefined> {
    const loaded = load().then((value) => {
      if (value !== undefined) cache.set(key, value);
      else cache.delete(key);
      return value;
    });
    this.loading.set(loadingKey, loaded);
    try {
      return await loaded;
    } finally {
      if (this.loading.get(loadingKey) === loaded) this.loading.delete(loadingKey);
    }
  }

  /** The account's lineage and currency; undefined for an unknown account. Cached. */
  async lineage(custId: string): Promise<Lineage | undefined> {
    if (!isCustId(custId)) return undefined;
    return this.through('lineage', this.lineages, custId, () =>
      this.get<Lineage>(`/internal/v1/customers/${encodeURIComponent(custId)}/lineage`),
    );
  }

  /** GET of one resource: its body, undefined for 404, UnavailableError for anything else. */
  private async get<T>(path: string): Promise<T | undefined> {
    const res = await this.api.request<T>('GET', path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.api.unexpected(res, path);
    return res.body;
  }

  /**
   * The lineage of `custId` when it is within the reach of a token of `tokenCustId` (that account or
   * one of its descendants); undefined otherwise, and for an unknown account alike (both are 404).
   */
  async withinReach(tokenCustId: string, custId: string): Promise<Lineage | undefined> {
    const lineage = await this.lineage(custId);
    return lineage?.lineage.includes(tokenCustId) ? lineage : undefined;
  }

  /**
   * The account with its addresses and settings (read now, or within `accountTtlMs`; `fresh` reads
   * now and renews the cached copy); undefined for an unknown account.
   */
  async account(custId: string, options: { fresh?: boolean } = {}): Promise<AccountRecord | undefined> {
    if (!isCustId(custId)) return undefined;
    const load = () => this.get<AccountRecord>(`/internal/v1/customers/${encodeURIComponent(custId)}`);
    if (!options.fresh) return this.through('account', this.accounts, custId, load);
    const value = await load();
    if (value === undefined) this.accounts?.delete(custId);
    else this.accounts?.set(custId, value);
    return value;
  }

  /** The user, any status (read now, or within `userTtlMs`); undefined for an unknown login. */
  async user(login: string): Promise<User | undefined> {
    return this.through('user', this.users, login, () =>
      this.get<User>(`/internal/v1/users/${encodeURIComponent(login)}`),
    );
  }

  /** The account and every descendant; undefined for an unknown account. Read now. */
  async reach(custId: string): Promise<string[] | undefined> {
    if (!isCustId(custId)) return undefined;
    const path = `/internal/v1/customers/${encodeURIComponent(custId)}/reach`;
    const res = await this.api.request<{ cust_ids: string[] }>('GET', path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.api.unexpected(res, path);
    return res.body.cust_ids;
  }

  /** The users of one account (not its descendants), filtered by role and status; read now. */
  async accountUsers(custId: string, filter: { role?: string; status?: string } = {}): Promise<User[]> {
    if (!isCustId(custId)) return [];
    const query = new URLSearchParams(filter as Record<string, string>).toString();
    const path = `/internal/v1/customers/${encodeURIComponent(custId)}/users${query ? `?${query}` : ''}`;
    const res = await this.api.request<{ data: User[] }>('GET', path);
    if (res.status === 404) return [];
    if (res.status !== 200) throw this.api.unexpected(res, path);
    return res.body.data;
  }

  /** Forgets cached lineages and accounts (all, or one account's). */
  forget(custId?: string): void {
    for (const cache of [this.lineages, this.accounts]) {
      if (custId === undefined) cache?.clear();
      else cache?.delete(custId);
    }
  }

  /** Forgets cached users (all, or one login). */
  forgetUser(login?: string): void {
    if (login === undefined) this.users?.clear();
    else this.users?.delete(login);
  }
}
