// Shoppers, their password hashes, failed sign-ins and one-time password links.
import type { Knex } from 'knex';
import type { NewShopper, Role, Shopper, ShopperStatus } from '../domain/shopper';
import { reachQuery } from './customer-repository';

interface UserRow {
  login: string;
  cust_id: string;
  name: string;
  email: string;
  roles: Role[];
  status: ShopperStatus;
  employee_id: string | null;
  department: string | null;
  cost_center: string | null;
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  password_hash: string | null;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
  scim_deleted_at: Date | null;
}

function toShopper(row: UserRow): Shopper {
  const { password_hash, scim_deleted_at, ...rest } = row;
  return { ...rest, has_password: password_hash !== null, scim_deleted: scim_deleted_at !== null };
}

const UNIQUE_VIOLATION = '23505';

/** Thrown by `insert` when the login exists (in any account, whatever its case). */
export class LoginTakenError extends Error {
  constructor(readonly login: string) {
    super(`login ${login} is taken`);
  }
}

export interface UserListQuery {
  reachOf: string;
  custId?: string;
  status?: ShopperStatus;
  role?: Role;
  afterLogin?: string;
  limit: number;
}

export interface ScimListQuery {
  reachOf: string;
  userName?: string;
  externalId?: string;
  offset: number;
  limit: number;
}

export class UserRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async find(login: string): Promise<Shopper | undefined> {
    const row = (await this.db('users').whereRaw('lower(login) = lower(?)', [login]).first()) as
      UserRow | undefined;
    return row ? toShopper(row) : undefined;
  }

  async findForUpdate(login: string): Promise<Shopper | undefined> {
    const row = (await this.db('users').whereRaw('lower(login) = lower(?)', [login]).forUpdate().first()) as
      UserRow | undefined;
    return row ? toShopper(row) : undefined;
  }

  async passwordHashOf(
    login: string,
  ): Promise<{ login: string; status: ShopperStatus; hash: string | null } | undefined> {
    const row = (await this.db('users')
      .whereRaw('lower(login) = lower(?)', [login])
      .first('login', 'status', 'password_hash')) as
      { login: string; status: ShopperStatus; password_hash: string | null } | undefined;
    return row ? { login: row.login, status: row.status, hash: row.password_hash } : undefined;
  }

  async insert(user: NewShopper, now: Date): Promise<Shopper> {
    try {
      const [row] = (await this.db('users')
        .insert({
          login: user.login,
          cust_id: user.cust_id,
          name: user.name,
          email: user.email,
          roles: user.roles,
          status: 'active',
          employee_id: user.employee_id ?? null,
          department: user.department ?? null,
          cost_center: user.cost_center ?? null,
          external_id: user.external_id ?? null,
          given_name: user.given_name ?? null,
          family_name: user.family_name ?? null,
          created_at: now,
          updated_at: now,
        })
        .returning('*')) as UserRow[];
      return toShopper(row!);
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw new LoginTakenError(user.login);
      throw err;
    }
  }

  async update(login: string, changes: Partial<UserRow>, now: Date): Promise<Shopper> {
    const [row] = (await this.db('users')
      .where({ login })
      .update({ ...changes, updated_at: now })
      .returning('*')) as UserRow[];
    return toShopper(row!);
  }

  async markScimDeleted(login: string, now: Date): Promise<void> {
    await this.db('users').where({ login }).update({ scim_deleted_at: now, updated_at: now });
  }

  async setPasswordHash(login: string, hash: string, now: Date): Promise<void> {
    await this.db('users')
      .where({ login })
      .update({ password_hash: hash, password_set_at: now, updated_at: now });
  }

  /**
   * Users of the account tree of `reachOf`, by login. Each account of the tree is read on its own
   * through `users (cust_id, login)`, `limit` rows at most, then the first `limit` of those: the
   * page a single `cust_id IN (tree) ORDER BY login LIMIT n` answers, without reading every user of
   * the tree (or, for a small tree, walking every login of the platform) to find it (README, "List
   * endpoints at volume").
   */
  async list(query: UserListQuery): Promise<Shopper[]> {
    // The tree first, on its own: inside the statement, the planner guesses a recursive reach at
    // thousands of accounts and a page at hundreds of thousands of rows, and compiles it (JIT,
    // 300 ms) where reading it takes 5 ms.
    const reach = ((await reachQuery(this.db, query.reachOf)) as { cust_id: string }[]).map((r) => r.cust_id);
    // Once each (an account listed twice would show its users twice).
    const accounts = [
      ...new Set(query.custId === undefined ? reach : reach.filter((c) => c === query.custId)),
    ];
    if (accounts.length === 0) return [];
    const perAccount = this.db('users').select('users.*').whereRaw('users.cust_id = accounts.cust_id');
    if (query.status !== undefined) void perAccount.where('users.status', query.status);
    if (query.role !== undefined) void perAccount.whereRaw('? = ANY(users.roles)', [query.role]);
    if (query.afterLogin !== undefined) void perAccount.where('users.login', '>', query.afterLogin);
    void perAccount.orderBy('users.login').limit(query.limit);
    const q = this.db
      .select('u.*')
      .from(
        this.db.raw('unnest(?::text[]) as accounts (cust_id) cross join lateral ? as u', [
          accounts,
          perAccount,
        ]),
      )
      .orderBy('u.login')
      .limit(query.limit);
    return ((await q) as UserRow[]).map(toShopper);
  }

  /** SCIM listing: offset paging, with the total count. */
  async listForScim(query: ScimListQuery): Promise<{ total: number; users: Shopper[] }> {
    const base = () => {
      const q = this.db('users')
        .whereIn('cust_id', reachQuery(this.db, query.reachOf))
        .whereNull('scim_deleted_at');
      if (query.userName !== undefined) q.whereRaw('lower(login) = lower(?)', [query.userName]);
      if (query.externalId !== undefined) q.where('external_id', query.externalId);
      return q;
    };
    const [{ count } = { count: 0 }] = (await base().count({ count: '*' })) as { count: string | number }[];
    const rows =
      query.limit === 0
        ? []
        : ((await base()
            .orderBy('created_at')
            .orderBy('login')
            .offset(query.offset)
            .limit(query.limit)) as UserRow[]);
    return { total: Number(count), users: rows.map(toShopper) };
  }

  /** The oldest user with this e-mail (any case) among the users of `custIds`. */
  async findByEmailWithin(email: string, custIds: string[]): Promise<Shopper | undefined> {
    const row = (await this.db('users')
      .whereRaw('lower(email) = lower(?)', [email])
      .whereIn('cust_id', custIds)
      .orderBy('created_at')
      .first()) as UserRow | undefined;
    return row ? toShopper(row) : undefined;
  }

  // Failed sign-ins ---------------------------------------------------------------------------

  /**
   * Counts an attempt of a login from a client address as a failure until it succeeds
   * (atomically, so parallel guesses each see a higher count); a count whose last failure is older
   * than `windowMs` starts again at 1. Answers the new count.
   */
  async recordAddressAttempt(
    loginKey: string,
    clientAddress: string,
    now: Date,
    windowMs: number,
  ): Promise<number> {
    const windowStart = new Date(now.getTime() - windowMs);
    const [row] = (await this.db('login_address_failures')
      .insert({ login_key: loginKey, client_address: clientAddress, failures: 1, last_failure_at: now })
      .onConflict(['login_key', 'client_address'])
      .merge({
        failures: this.db.raw(
          'case when login_address_failures.last_failure_at < ? then 1 else login_address_failures.failures + 1 end',
          [windowStart],
        ),
        last_failure_at: now,
      })
      .returning('failures')) as { failures: number }[];
    return row?.failures ?? 1;
  }

  /**
   * Counts an attempt of a login from any address (the ceiling) in a fixed window: the count
   * restarts at 1 once `windowMs` have passed since its window started. Answers the new count and
   * when its window started.
   */
  async recordLoginAttempt(
    loginKey: string,
    now: Date,
    windowMs: number,
  ): Promise<{ attempts: number; windowStartedAt: Date }> {
    const expired = new Date(now.getTime() - windowMs);
    const [row] = (await this.db('login_failures')
      .insert({ login_key: loginKey, failures: 1, last_failure_at: now, window_started_at: now })
      .onConflict('login_key')
      .merge({
        failures: this.db.raw(
          'case when login_failures.window_started_at <= ? then 1 else login_failures.failures + 1 end',
          [expired],
        ),
        window_started_at: this.db.raw(
          'case when login_failures.window_started_at <= ? then ?::timestamptz else login_failures.window_started_at end',
          [expired, now],
        ),
        last_failure_at: now,
      })
      .returning(['failures', 'window_started_at'])) as { failures: number; window_started_at: Date }[];
    return { attempts: row?.failures ?? 1, windowStartedAt: row?.window_started_at ?? now };
  }

  /** Forgets per-address counts whose last failure is before `addressBefore`, and per-login ceilings
   * whose window started before `loginBefore`; answers how many. */
  async purgeFailuresBefore(addressBefore: Date, loginBefore: Date): Promise<number> {
    const addresses = await this.db('login_address_failures')
      .where('last_failure_at', '<', addressBefore)
      .delete();
    const logins = await this.db('login_failures').where('window_started_at', '<', loginBefore).delete();
    return addresses + logins;
  }

  /**
   * After a success: forgets the login's count from this address and takes `ownAttempts` (that
   * address's, the success included) off the login's ceiling; other addresses' attempts stay.
   */
  async resetFailures(loginKey: string, clientAddress: string, ownAttempts: number): Promise<void> {
    await this.db('login_address_failures')
      .where({ login_key: loginKey, client_address: clientAddress })
      .delete();
    await this.db('login_failures')
      .where({ login_key: loginKey })
      .update({ failures: this.db.raw('greatest(failures - ?, 0)', [ownAttempts]) });
  }

  // One-time password links -------------------------------------------------------------------

  async insertPasswordToken(tokenHash: string, login: string, expiresAt: Date, now: Date): Promise<void> {
    await this.db('password_tokens').insert({
      token_hash: tokenHash,
      login,
      expires_at: expiresAt,
      created_at: now,
    });
  }

  /** Marks the token used and answers its login, or undefined when unknown, used or expired. */
  async consumePasswordToken(tokenHash: string, now: Date): Promise<string | undefined> {
    const [row] = (await this.db('password_tokens')
      .where({ token_hash: tokenHash })
      .whereNull('used_at')
      .where('expires_at', '>', now)
      .update({ used_at: now })
      .returning('login')) as { login: string }[];
    return row?.login;
  }
}
