// The README's start command as a newcomer runs it (`./dev up` runs deploy/local/up.ts after its
// bootstrap): everything comes up with demo data, .local/stack.json describes it, the demo
// credentials work through the gateway, and SIGTERM stops everything. Run here on its own ports,
// state folder, databases and Redis prefix, so that it cannot meet a platform a developer has up.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { PG_ADMIN_URL, waitUntil } from '@ordering/testing';
import { freePortsBelowEphemeral } from './support/service-process';
import { spansWithoutParent, zipkinReader, type ZipkinSpan } from './support/zipkin-traces';

jest.setTimeout(330_000);

const root = path.resolve(__dirname, '..');
const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordering-up-'));
const dbPrefix = `test_up_${randomBytes(3).toString('hex')}_`;
const stackFile = path.join(stateDir, 'stack.json');

interface StackFile {
  api_base_url: string;
  auth_url: string;
  portal_url?: string;
  kafka_brokers: string[];
  traces_url: string;
  services: Record<string, string>;
  demo: {
    customers: { cust_id: string; name: string; parent_cust_id: string | null }[];
    users: { login: string; password: string; cust_id: string; roles: string[] }[];
    clients: {
      client_id: string;
      client_secret?: string;
      cust_id: string;
      login: string;
      scopes: string[];
      redirect_uris: string[];
    }[];
  };
}

let up: ChildProcess;
let output = '';
let exitCode: Promise<number | null>;
let ports: Record<string, number>;

beforeAll(async () => {
  const names = [
    'GATEWAY',
    'AUTH',
    'ORDERS',
    'CATALOG',
    'CUSTOMERS',
    'APPROVALS',
    'WEBHOOKS',
    'KAFKA',
    'KAFKA_CONTROLLER',
    'ZIPKIN',
    'PORTAL',
  ];
  const chosen = await freePortsBelowEphemeral(names.length);
  ports = Object.fromEntries(names.map((name, i) => [name, chosen[i]!]));
  // The platform's own settings, not the test run's (which points at the test broker).
  const {
    KAFKA_BROKERS: _brokers,
    AUTH_ISSUER: _issuer,
    API_AUDIENCE: _audience,
    ...inherited
  } = process.env;
  up = spawn(process.execPath, ['--import', 'tsx', 'deploy/local/up.ts'], {
    cwd: root,
    env: {
      ...inherited,
      ORDERING_STATE_DIR: stateDir,
      DATABASE_NAME_PREFIX: dbPrefix,
      REDIS_KEY_PREFIX: `${dbPrefix}:`,
      ...Object.fromEntries(names.map((n) => [`${n}_PORT`, String(ports[n])])),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  up.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  up.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  exitCode = new Promise((resolve) => up.on('exit', (code) => resolve(code)));
  await waitUntil(() => fs.existsSync(stackFile) || up.exitCode !== null, 270_000, 'the platform to come up');
  if (!fs.existsSync(stackFile)) throw new Error(`./dev up failed:\n${output}`);
});

afterAll(async () => {
  if (up.exitCode === null) {
    up.kill('SIGTERM');
    await exitCode;
  }
  const pg = new Client({ connectionString: PG_ADMIN_URL });
  await pg.connect();
  try {
    const { rows } = await pg.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${dbPrefix}%`],
    );
    for (const { datname } of rows) await pg.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await pg.end();
  }
  fs.rmSync(stateDir, { recursive: true, force: true });
});

describe('the start command', () => {
  it('writes .local/stack.json with the URLs, the broker and the seeded demo data', () => {
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackFile;
    expect(stack.api_base_url).toBe(`http://127.0.0.1:${ports.GATEWAY}/v1/`);
    expect(stack.auth_url).toBe(`http://127.0.0.1:${ports.AUTH}`);
    expect(stack.kafka_brokers).toEqual([`127.0.0.1:${ports.KAFKA}`]);
    expect(stack.traces_url).toBe(`http://127.0.0.1:${ports.ZIPKIN}/zipkin/`);
    expect(stack.services).toMatchObject({
      gateway: `http://127.0.0.1:${ports.GATEWAY}`,
      auth: `http://127.0.0.1:${ports.AUTH}`,
      customers: `http://127.0.0.1:${ports.CUSTOMERS}`,
    });
    const parents = stack.demo.customers.filter((c) => c.parent_cust_id === null);
    expect(parents.length).toBeGreaterThanOrEqual(2);
    expect(stack.demo.customers.some((c) => c.parent_cust_id !== null)).toBe(true);
    for (const user of stack.demo.users) {
      expect(user).toEqual({
        login: expect.any(String),
        password: expect.any(String),
        cust_id: expect.any(String),
        roles: expect.any(Array),
      });
    }
    for (const client of stack.demo.clients) {
      expect(Object.keys(client).sort()).toEqual(
        expect.arrayContaining(['client_id', 'cust_id', 'login', 'redirect_uris', 'scopes']),
      );
    }
    expect(
      stack.demo.clients.some((c) => c.redirect_uris.some((u) => u.startsWith('http://127.0.0.1'))),
    ).toBe(true);
  });

  it('the demo server-to-server client gets a token and reads its account through the gateway', async () => {
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackFile;
    const client = stack.demo.clients.find((c) => c.scopes.includes('admin:all') && c.client_secret)!;
    const tokenRes = await fetch(`${stack.auth_url}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'users:read orders:read' }),
    });
    expect(tokenRes.status).toBe(200);
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    const headers = { Authorization: `Bearer ${access_token}` };
    const users = await fetch(`${stack.api_base_url}users`, { headers });
    expect(users.status).toBe(200);
    const body = (await users.json()) as { object: string; data: { cust_id: string }[] };
    expect(body.object).toBe('list');
    expect(body.data.length).toBeGreaterThan(0);
    const customer = await fetch(`${stack.api_base_url}customers/${client.cust_id}`, { headers });
    expect(customer.status).toBe(200);

    // The request's spans reach the local trace viewer: one trace through the gateway and customers.
    const zipkin = `http://127.0.0.1:${ports.ZIPKIN}/api/v2`;
    let services: string[] = [];
    await waitUntil(
      async () => {
        const res = await fetch(`${zipkin}/traces?serviceName=gateway&spanName=all&limit=50`);
        const traces = (await res.json()) as { localEndpoint?: { serviceName?: string } }[][];
        const withCustomers = traces.find((t) => t.some((s) => s.localEndpoint?.serviceName === 'customers'));
        services = [...new Set((withCustomers ?? []).map((s) => s.localEndpoint?.serviceName ?? ''))];
        if (!withCustomers) await new Promise((r) => setTimeout(r, 500));
        return withCustomers !== undefined;
      },
      30_000,
      'a trace of the gateway and customers in Zipkin',
    );
    expect(services).toEqual(expect.arrayContaining(['gateway', 'customers']));
  });

  it('a user created through the gateway is ONE trace in Zipkin: gateway, customers, its queries, the outbox relay, Kafka, the webhooks consumer, the webhook delivery attempt, parents right', async () => {
    // The order flavour of this trace (orders, its calls to catalog for prices and to customers,
    // the approvals consumer) is read back from Zipkin in orders-lifecycle.test.ts.
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackFile;
    const client = stack.demo.clients.find((c) => c.scopes.includes('admin:all') && c.client_secret)!;
    const tokenRes = await fetch(`${stack.auth_url}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'users:write admin:all' }),
    });
    const { access_token } = (await tokenRes.json()) as { access_token: string };
    // A receiver of the account's user.created webhooks (./dev up allows http://127.0.0.1 receivers).
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      received.push(String(req.headers['service-delivery']));
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const subscribed = await fetch(`${stack.api_base_url}webhooks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: ['user.created'],
      }),
    });
    expect(subscribed.status).toBe(201);
    const login = `traced-${randomBytes(3).toString('hex')}`;
    const created = await fetch(`${stack.api_base_url}users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${access_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ login, email: `${login}@acme.example`, name: 'Traced Shopper' }),
    });
    expect(created.status).toBe(201);
    const requestId = created.headers.get('x-request-id');
    const [, traceId, rootSpanId, flags] = (created.headers.get('traceresponse') ?? '').split('-');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(flags).toBe('01');

    const zipkin = zipkinReader(`http://127.0.0.1:${ports.ZIPKIN}/api/v2`);
    const expectedHops = (spans: ZipkinSpan[]) => {
      const by = (service: string, kind: string | undefined, name: RegExp) =>
        spans.find((s) => s.localEndpoint?.serviceName === service && s.kind === kind && name.test(s.name));
      return {
        gatewayRequest: by('gateway', 'SERVER', /^post \/v1\/users$/i),
        admission: by('gateway', undefined, /^gateway admission$/),
        forward: by('gateway', 'CLIENT', /^forward customers$/),
        customersRequest: by('customers', 'SERVER', /^post \/v1\/users$/i),
        userInsert: by('customers', 'CLIENT', /^insert users$/i),
        outboxInsert: by('customers', 'CLIENT', /^insert outbox$/i),
        publish: by('customers', 'PRODUCER', /^ordering\.users\.v1 publish$/),
        consume: by('webhooks', 'CONSUMER', /^ordering\.users\.v1 process$/),
        consumerQuery: spans.find(
          (s) =>
            s.localEndpoint?.serviceName === 'webhooks' && s.kind === 'CLIENT' && /^insert /i.test(s.name),
        ),
        webhookAttempt: by('webhooks', 'CLIENT', /^webhook user\.created attempt$/),
      };
    };
    const spans = await zipkin.waitForTrace(
      traceId!,
      (seen) => Object.values(expectedHops(seen)).every(Boolean) && spansWithoutParent(seen).length === 0,
      45_000,
    );
    const hops = expectedHops(spans);
    const parentOf = (name: keyof typeof hops) => hops[name]!.parentId;
    const idOf = (name: keyof typeof hops) => hops[name]!.id;
    // One root, the gateway's request span, which traceresponse names; every other span has its
    // parent in the trace.
    expect(spans.filter((s) => !s.parentId).map((s) => s.id)).toEqual([rootSpanId]);
    expect(idOf('gatewayRequest')).toBe(rootSpanId);
    expect(spansWithoutParent(spans)).toEqual([]);
    expect(parentOf('admission')).toBe(idOf('gatewayRequest'));
    expect(parentOf('forward')).toBe(idOf('gatewayRequest'));
    expect(parentOf('customersRequest')).toBe(idOf('forward'));
    expect(parentOf('userInsert')).toBe(idOf('customersRequest'));
    expect(parentOf('outboxInsert')).toBe(idOf('customersRequest'));
    expect(parentOf('publish')).toBe(idOf('customersRequest'));
    expect(parentOf('consume')).toBe(idOf('publish'));
    expect(parentOf('consumerQuery')).toBe(idOf('consume'));
    // The delivery attempt, made later by the delivery worker, joins the trace of its event.
    expect(parentOf('webhookAttempt')).toBe(idOf('consume'));
    expect(hops.webhookAttempt!.tags).toMatchObject({
      'ordering.delivery_id': received[0],
      'ordering.event_id': hops.consume!.tags?.['ordering.event_id'],
      'http.response.status_code': '204',
    });
    receiver.close();
    // What on-call searches by.
    expect(hops.gatewayRequest!.tags).toMatchObject({
      'ordering.request_id': requestId,
      'ordering.cust_id': client.cust_id,
    });
    // The created resource names the service's span (libs/idempotency), so its id finds the trace.
    expect(hops.customersRequest!.tags?.['ordering.login']).toBe(login);
    expect(hops.consume!.tags?.['ordering.event_id']).toMatch(/^evt_/);
    expect(hops.publish!.tags?.['ordering.event_id']).toBe(hops.consume!.tags?.['ordering.event_id']);
    expect(await zipkin.traceIdsWhere(`ordering.request_id=${requestId}`)).toEqual([traceId]);

    // Every process serves its metrics for Prometheus (on its own port here: no METRICS_PORT locally).
    const metrics = await (await fetch(`${stack.services.customers}/metrics`)).text();
    expect(metrics).toMatch(
      /http_server_request_duration_count\{http_request_method="POST",http_route="\/v1\/users",http_response_status_code="201",service_name="customers"\} [1-9]/,
    );
    expect(metrics).toMatch(/ordering_outbox_lag\{service_name="customers"\} /);
    const webhooksMetrics = await (await fetch(`${stack.services.webhooks}/metrics`)).text();
    expect(webhooksMetrics).toMatch(
      /ordering_consumer_lag\{group="[^"]+",topic="ordering\.users\.v1",service_name="webhooks"\} \d+/,
    );
  });

  it('starts the developer portal, prints its URL, and its sign-in reaches the auth service with its seeded client', async () => {
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackFile;
    expect(stack.portal_url).toBe(`http://127.0.0.1:${ports.PORTAL}`);
    expect(stack.services['developer-portal']).toBe(stack.portal_url);
    expect(output).toContain(`portal        ${stack.portal_url}`);
    const home = await fetch(stack.portal_url!);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('href="/sign-in"');
    const start = await fetch(`${stack.portal_url}/sign-in`, { redirect: 'manual' });
    expect(start.status).toBe(303);
    const authorize = new URL(start.headers.get('location')!);
    expect(authorize.origin).toBe(stack.auth_url);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${stack.portal_url}/callback`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    // The auth service knows the client and its redirect URI: it goes on to its sign-in page.
    const signIn = await fetch(authorize, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toMatch(/\/oauth\/interaction\//);
  });

  it('ops status reports every process ready', async () => {
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'deploy/ops/cli.ts', 'status'], {
        cwd: root,
        env: { ...process.env, ORDERING_STATE_DIR: stateDir },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('exit', (code) => resolve({ code, stdout }));
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    const stack = JSON.parse(fs.readFileSync(stackFile, 'utf8')) as StackFile;
    expect(lines.map((l) => l.split(/\s+/)[1]).sort()).toEqual(Object.keys(stack.services).sort());
    expect(Object.keys(stack.services)).toEqual(
      expect.arrayContaining(['auth', 'customers', 'gateway', 'webhooks']),
    );
    expect(lines.every((l) => l.startsWith('ready'))).toBe(true);
  });

  it('stops everything cleanly on SIGTERM', async () => {
    up.kill('SIGTERM');
    expect(await exitCode).toBe(0);
    expect(fs.existsSync(stackFile)).toBe(false);
    for (const port of [
      ports.GATEWAY,
      ports.AUTH,
      ports.CUSTOMERS,
      ports.KAFKA,
      ports.ZIPKIN,
      ports.PORTAL,
    ]) {
      const listening = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => true,
        () => false,
      );
      expect(listening).toBe(false);
    }
  });
});
