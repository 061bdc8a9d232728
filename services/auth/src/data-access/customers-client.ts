// The customers service's internal API, where shopper credentials and records live. Every call
// carries an internal identity signed with INTERNAL_IDENTITY_SECRET.
import { randomUUID } from 'node:crypto';
import { signIdentity } from '@ordering/http';
import { UnavailableError } from '@ordering/errors';
import { ATTR, withClientSpan } from '@ordering/telemetry';

export interface ShopperRecord {
  object: 'user';
  id: string;
  login: string;
  cust_id: string;
  name: string;
  email: string;
  roles: string[];
  status: 'active' | 'deactivated';
  employee_id: string | null;
  department: string | null;
  cost_center: string | null;
  created_at: string;
  deactivated_at: string | null;
}

/** The customers service refuses to check this login's password for now (429 too_many_attempts). */
export class CredentialsThrottledError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`sign-in attempts for this login are throttled; retry in ${retryAfterSeconds} s`);
  }
}

export interface CustomersClient {
  /**
   * The shopper when login and password match an active shopper; undefined otherwise;
   * CredentialsThrottledError while the customers service throttles the login. `clientAddress`
   * is the counting address of the person signing in (`addressKeyOf` of @ordering/http): the customers
   * service keys its own slow-down by login and address, as this service's tight limit.
   */
  verifyCredentials(
    login: string,
    password: string,
    clientAddress: string,
  ): Promise<ShopperRecord | undefined>;
  findUser(login: string): Promise<ShopperRecord | undefined>;
  /** The account and every descendant (its tree), upper case as stored; empty for an unknown one. */
  reachOf(custId: string): Promise<string[]>;
  /**
   * Just-in-time provisioning of someone an identity provider vouched for: the existing shopper of
   * that e-mail (`created: false`, whatever its status) or a new one (`created: true`, user.created
   * fires); undefined when no account maps the e-mail's domain with JIT allowed;
   * `'email_not_login'` when the e-mail cannot be a login (characters, length);
   * `'email_held_elsewhere'` when that login is a user of an account that does not own the domain.
   */
  provisionJustInTime(email: string, name?: string): Promise<JustInTimeResult>;
}

export type JustInTimeResult =
  { user: ShopperRecord; created: boolean } | 'email_not_login' | 'email_held_elsewhere' | undefined;

export class HttpCustomersClient implements CustomersClient {
  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
    private readonly timeoutMs = 5000,
  ) {}

  async verifyCredentials(
    login: string,
    password: string,
    clientAddress: string,
  ): Promise<ShopperRecord | undefined> {
    const res = await this.call('POST', '/internal/v1/credentials/verify', {
      login,
      password,
      client_address: clientAddress,
    });
    if (res.status === 401) return undefined;
    if (res.status === 429) {
      const retryAfter = Number(res.headers.get('retry-after'));
      throw new CredentialsThrottledError(Number.isFinite(retryAfter) && retryAfter >= 1 ? retryAfter : 60);
    }
    if (res.status !== 200) throw this.unexpected(res.status);
    const body = (await res.json()) as { user: ShopperRecord };
    return body.user.status === 'active' ? body.user : undefined;
  }

  async findUser(login: string): Promise<ShopperRecord | undefined> {
    const res = await this.call('GET', `/internal/v1/users/${encodeURIComponent(login)}`);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw this.unexpected(res.status);
    return (await res.json()) as ShopperRecord;
  }

  async reachOf(custId: string): Promise<string[]> {
    const res = await this.call('GET', `/internal/v1/customers/${encodeURIComponent(custId)}/reach`);
    if (res.status === 404) return [];
    if (res.status !== 200) throw this.unexpected(res.status);
    return ((await res.json()) as { cust_ids: string[] }).cust_ids;
  }

  async provisionJustInTime(email: string, name?: string): Promise<JustInTimeResult> {
    const res = await this.call('POST', '/internal/v1/users/jit', { email, ...(name ? { name } : {}) });
    if (res.status === 404) return undefined;
    if (res.status === 422) return 'email_not_login';
    if (res.status === 409) return 'email_held_elsewhere';
    if (res.status !== 200 && res.status !== 201) throw this.unexpected(res.status);
    return (await res.json()) as { user: ShopperRecord; created: boolean };
  }

  private async call(method: string, path: string, body?: unknown): Promise<Response> {
    const identity = signIdentity(
      {
        sub: 'service:auth',
        cust_id: '*',
        login: 'auth',
        client_id: 'service:auth',
        scopes: ['internal'],
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      this.secret,
    );
    try {
      // A CLIENT span whose traceparent the customers service continues.
      return await withClientSpan(`${method} customers`, { [ATTR.service]: 'customers' }, (trace) =>
        fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            ...trace,
            'x-ordering-identity': identity,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(this.timeoutMs),
        }),
      );
    } catch (cause) {
      throw Object.assign(new UnavailableError('The customers service is unavailable'), { cause });
    }
  }

  private unexpected(status: number): Error {
    return new UnavailableError(`The customers service answered ${status}`);
  }
}
