// A small client of the internal admin API, for the operator CLI and the demo seeder. It signs an
// operator identity with the internal secret, as every internal caller does.
import { randomUUID } from 'node:crypto';
import { signIdentity } from '@ordering/http';

export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = (body as { error?: { code?: string; message?: string; param?: string } })?.error;
    super(
      error
        ? `${status} ${error.code ?? ''}${error.param ? ` (${error.param})` : ''}: ${error.message ?? ''}`
        : `HTTP ${status}`,
    );
    this.name = 'AdminApiError';
  }
}

export interface CustomersAdminClientOptions {
  baseUrl: string;
  internalIdentitySecret: string;
  /** Who acts, for the logs of the service; default `ops`. */
  operator?: string;
}

export class CustomersAdminClient {
  constructor(private readonly options: CustomersAdminClientOptions) {}

  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const operator = this.options.operator ?? 'ops';
    const identity = signIdentity(
      {
        sub: `service:${operator}`,
        cust_id: '*',
        login: operator,
        client_id: `service:${operator}`,
        scopes: ['internal'],
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      this.options.internalIdentitySecret,
    );
    const response = await fetch(new URL(path, this.options.baseUrl), {
      method,
      headers: {
        'X-Ordering-Identity': identity,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new AdminApiError(response.status, parsed);
    return parsed as T;
  }

  createCustomer(account: Record<string, unknown>) {
    return this.request<{ id: string }>('POST', '/internal/v1/admin/customers', account);
  }

  updateCustomer(custId: string, changes: Record<string, unknown>) {
    return this.request('PATCH', `/internal/v1/admin/customers/${encodeURIComponent(custId)}`, changes);
  }

  getCustomer(custId: string) {
    return this.request<{ id: string }>('GET', `/internal/v1/admin/customers/${encodeURIComponent(custId)}`);
  }

  listCustomers(query: { parent_cust_id?: string; starting_after?: string; limit?: number } = {}) {
    const qs = new URLSearchParams(
      Object.entries(query)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return this.request<{ data: { id: string }[]; has_more: boolean; next_cursor: string | null }>(
      'GET',
      `/internal/v1/admin/customers${qs ? `?${qs}` : ''}`,
    );
  }

  addAddress(custId: string, address: Record<string, unknown>) {
    return this.request<{ id: string }>(
      'POST',
      `/internal/v1/admin/customers/${encodeURIComponent(custId)}/addresses`,
      address,
    );
  }

  importCustomers(format: 'json' | 'csv', content: string) {
    return this.request<{ imported: number; cust_ids: string[] }>(
      'POST',
      '/internal/v1/admin/customers/import',
      {
        format,
        content,
      },
    );
  }

  createUser(user: Record<string, unknown>) {
    return this.request<{ login: string }>('POST', '/internal/v1/admin/users', user);
  }

  setPassword(login: string, password: string) {
    return this.request('PUT', `/internal/v1/admin/users/${encodeURIComponent(login)}/password`, {
      password,
    });
  }

  passwordLink(login: string) {
    return this.request<{ token: string; expires_at: string }>(
      'POST',
      `/internal/v1/admin/users/${encodeURIComponent(login)}/password_link`,
    );
  }

  deactivateUser(login: string) {
    return this.request('POST', `/internal/v1/admin/users/${encodeURIComponent(login)}/deactivate`);
  }
}
