// A small stand-in for the customers service's internal API (another service, not infrastructure),
// implementing exactly its contract and checking the internal identity the auth service sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LOGIN_PATTERN } from '@ordering/contracts';
import { verifyIdentity } from '@ordering/http';
import type { ShopperRecord } from '../../src/data-access/customers-client';

export interface FakeShopper {
  login: string;
  password: string;
  cust_id: string;
  name?: string;
  email?: string;
  status?: 'active' | 'deactivated';
  /** Default `["shopper"]`. */
  roles?: string[];
  /** Defaults `E-100`, `Purchasing`, `CC-7`; null: the shopper has none. */
  employee_id?: string | null;
  department?: string | null;
  cost_center?: string | null;
}

export interface FakeCustomersService {
  url: string;
  add(shopper: FakeShopper): ShopperRecord;
  deactivate(login: string): void;
  /** Makes `children` descendants of `parent` (GET /internal/v1/customers/{parent}/reach). */
  addChildren(parent: string, children: string[]): void;
  /** Lets people of `domain` be provisioned just in time into `custId` (POST /internal/v1/users/jit). */
  allowJit(domain: string, custId: string): void;
  find(login: string): ShopperRecord | undefined;
  /** While down, every connection is dropped (the auth service sees a network error). */
  setDown(down: boolean): void;
  /** Requests seen, e.g. to assert that the identity header was checked. */
  calls: { method: string; path: string; authorized: boolean }[];
  /** The `client_address` of each credential check, in order. */
  verifiedAddresses: (string | undefined)[];
  close(): Promise<void>;
}

export async function startFakeCustomersService(secret: string): Promise<FakeCustomersService> {
  const users = new Map<string, { record: ShopperRecord; password: string }>();
  const jitDomains = new Map<string, string>();
  const childrenOf = new Map<string, string[]>();
  const reachOf = (custId: string): string[] => [
    custId,
    ...(childrenOf.get(custId.toUpperCase()) ?? []).flatMap((c) => reachOf(c)),
  ];
  const calls: FakeCustomersService['calls'] = [];
  const verifiedAddresses: (string | undefined)[] = [];
  let down = false;

  const server = http.createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      let authorized: boolean;
      try {
        const identity = verifyIdentity(String(req.headers['x-ordering-identity'] ?? ''), secret);
        authorized = identity.scopes.includes('internal');
      } catch {
        authorized = false;
      }
      const path = (req.url ?? '').split('?')[0] ?? '';
      calls.push({ method: req.method ?? '', path, authorized });
      if (!authorized) {
        send(401, {
          error: { type: 'authentication_error', code: 'invalid_token', message: 'no', request_id: 'x' },
        });
        return;
      }
      if (req.method === 'POST' && path === '/internal/v1/credentials/verify') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          login?: string;
          password?: string;
          client_address?: string;
        };
        verifiedAddresses.push(body.client_address);
        const user = users.get(String(body.login));
        if (!user || !user.password || user.password !== body.password || user.record.status !== 'active') {
          send(401, {
            error: {
              type: 'authentication_error',
              code: 'invalid_credentials',
              message: 'no',
              request_id: 'x',
            },
          });
          return;
        }
        send(200, { user: user.record });
        return;
      }
      if (req.method === 'POST' && path === '/internal/v1/users/jit') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
          email?: string;
          name?: string;
        };
        const login = String(body.email).trim().toLowerCase();
        const existing =
          users.get(login) ?? [...users.values()].find((u) => u.record.email.toLowerCase() === login);
        const custId = jitDomains.get(login.slice(login.lastIndexOf('@') + 1));
        // As the customers service: a user of another account than the domain's is never signed into.
        if (existing && custId !== undefined && existing.record.cust_id !== custId) {
          send(409, {
            error: { type: 'invalid_request', code: 'email_held_elsewhere', message: 'no', request_id: 'x' },
          });
          return;
        }
        if (existing) {
          send(200, { user: existing.record, created: false });
          return;
        }
        if (!custId) {
          send(404, {
            error: { type: 'invalid_request', code: 'resource_missing', message: 'no', request_id: 'x' },
          });
          return;
        }
        // As the customers service: the e-mail becomes the login, so it must be one.
        if (!LOGIN_PATTERN.test(login)) {
          send(422, {
            error: { type: 'invalid_request', code: 'invalid_value', message: 'no', request_id: 'x' },
          });
          return;
        }
        const record = add({
          login,
          password: '',
          cust_id: custId,
          email: login,
          name: body.name ?? login.slice(0, login.indexOf('@')),
        });
        send(201, { user: record, created: true });
        return;
      }
      const reach = /^\/internal\/v1\/customers\/([^/]+)\/reach$/.exec(path);
      if (req.method === 'GET' && reach) {
        const custId = decodeURIComponent(reach[1]!).toUpperCase();
        send(200, { cust_id: custId, cust_ids: reachOf(custId) });
        return;
      }
      const match = /^\/internal\/v1\/users\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && match) {
        const user = users.get(decodeURIComponent(match[1]!));
        if (!user)
          send(404, {
            error: { type: 'invalid_request', code: 'resource_missing', message: 'no', request_id: 'x' },
          });
        else send(200, user.record);
        return;
      }
      send(404, {
        error: { type: 'invalid_request', code: 'resource_missing', message: 'no', request_id: 'x' },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  function add(shopper: FakeShopper): ShopperRecord {
    const record: ShopperRecord = {
      object: 'user',
      id: shopper.login,
      login: shopper.login,
      cust_id: shopper.cust_id,
      name: shopper.name ?? `Shopper ${shopper.login}`,
      email: shopper.email ?? `${shopper.login}@example.com`,
      roles: shopper.roles ?? ['shopper'],
      status: shopper.status ?? 'active',
      employee_id: shopper.employee_id === undefined ? 'E-100' : shopper.employee_id,
      department: shopper.department === undefined ? 'Purchasing' : shopper.department,
      cost_center: shopper.cost_center === undefined ? 'CC-7' : shopper.cost_center,
      created_at: new Date().toISOString(),
      deactivated_at: null,
    };
    users.set(shopper.login, { record, password: shopper.password });
    return record;
  }

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    verifiedAddresses,
    add,
    addChildren(parent, children) {
      const key = parent.toUpperCase();
      childrenOf.set(key, [...(childrenOf.get(key) ?? []), ...children.map((c) => c.toUpperCase())]);
    },
    allowJit(domain, custId) {
      jitDomains.set(domain.toLowerCase(), custId);
    },
    find: (login) => users.get(login)?.record,
    deactivate(login) {
      const user = users.get(login);
      if (user) {
        user.record.status = 'deactivated';
        user.record.deactivated_at = new Date().toISOString();
      }
    },
    setDown(value) {
      down = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
