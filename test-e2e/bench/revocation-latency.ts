// Benchmark, not a test: how long a revocation takes to reach the gateway. Customers, auth and the
// gateway run as their own processes (the built bundles), on fresh databases, the shared Redis and
// the test Kafka broker. For each kind of revocation, N times: a shopper's access token is shown
// to work at the gateway, the revoking call is made, and the gateway is polled with that token
// until it answers 401. Prints p50 / p95 / max of the time from the start of the revoking call to
// the first 401 (the contract's bound is 5 s), and of the part after the revoking call answered.
//
//   pnpm run build            (the bundles in dist/)
//   node --import tsx test-e2e/bench/revocation-latency.ts      [N=20 POLL_MS=10]
//
// Kinds: an access token revoked at /oauth/revoke (synchronous denylist write); a rotated refresh
// token replayed (the grant is revoked, each of its access tokens denied by jti before the replay
// is answered); a shopper deactivated through POST /v1/users/{login}/deactivate at the gateway
// (customers outbox -> Kafka user.deactivated -> auth service -> Redis).
// Polling is paced (POLL_MS) to stay under the gateway's rate limit of 120 requests per second per
// token, so that every answer is 200 or 401, never 429: the figures are exact to about POLL_MS.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import * as oidc from 'openid-client';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import {
  createTestDatabase,
  startTestKafka,
  stopTestKafka,
  waitUntil,
  type TestDatabase,
} from '@ordering/testing';
import { Browser } from '../../services/auth/test/support/browser';
import { startAuthProcess, startCustomersProcess, startGatewayProcess } from '../support/platform-processes';
import type { ServiceProcess } from '../support/service-process';
import { authorizationRequest } from '../../services/auth/test/support/authorization-request';

const N = Number(process.env.N ?? 20);
const POLL_MS = Number(process.env.POLL_MS ?? 10);
const GIVE_UP_MS = 30_000;

const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `BENCH-${suffix}`;
const adminLogin = `admin-${suffix.toLowerCase()}`;
const audience = 'http://api.bench.test';
const redirectUri = 'http://127.0.0.1:8976/callback';
const password = `bench-password-${suffix}`;

interface Sample {
  /** From the start of the revoking call to the gateway's first 401. */
  total: number;
  /** From the revoking call's answer to the gateway's first 401. */
  afterAnswer: number;
  /** Gateway requests still accepted after the revoking call answered. */
  acceptedAfterAnswer: number;
}

interface Stack {
  customers: ServiceProcess;
  auth: ServiceProcess;
  gateway: ServiceProcess;
  admin: CustomersAdminClient;
  web: oidc.Configuration;
  webClient: { client_id: string; client_secret: string };
  adminToken: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function registerClient(
  authDbUrl: string,
  args: string[],
): Promise<{ client_id: string; client_secret: string }> {
  let printed = '';
  await authCli({ env: { ...process.env, DATABASE_URL: authDbUrl }, out: (t) => (printed += t) }).parseAsync(
    ['clients', 'register', '--name', 'Revocation bench', '--cust-id', custId, ...args],
    { from: 'user' },
  );
  return JSON.parse(printed) as { client_id: string; client_secret: string };
}

/**
 * The auth service reads user events from the latest offset once it has joined its group: wait
 * for that (its readiness does not say, the broker does), or the first deactivation could be missed.
 */
async function waitForConsumerGroup(brokers: string, groupId: string): Promise<void> {
  const admin = new Kafka({
    clientId: `bench-${suffix}`,
    brokers: brokers.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    await waitUntil(
      async () => {
        const [group] = (await admin.describeGroups([groupId])).groups;
        return group?.state === 'Stable' && group.members.length > 0;
      },
      30_000,
      `consumer group ${groupId}`,
    );
  } finally {
    await admin.disconnect();
  }
}

async function startStack(brokers: string, customersDb: TestDatabase, authDb: TestDatabase): Promise<Stack> {
  const customers = await startCustomersProcess({ databaseUrl: customersDb.url, brokers: brokers, secret });
  const redisPrefix = `bench-revocation-${suffix}:`;
  const auth = await startAuthProcess({
    databaseUrl: authDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    audience,
    redisPrefix,
    consumerGroup: `auth-bench-${suffix}`,
    env: {
      KAFKA_FROM_BEGINNING: 'false',
      // Every sign-in of the benchmark is right; keep the throttle out of the way regardless.
      SIGN_IN_MAX_FAILURES: '1000',
    },
  });
  const gateway = await startGatewayProcess({
    issuer: auth.issuer,
    audience,
    secret,
    customersUrl: customers.url,
    redisPrefix,
  });

  await waitForConsumerGroup(brokers, `auth-bench-${suffix}`);

  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Bench ${suffix}`, currency: 'USD' });
  await admin.createUser({
    cust_id: custId,
    login: adminLogin,
    email: `${adminLogin}@bench.example`,
    name: 'Admin',
  });
  const webClient = await registerClient(authDb.url, [
    '--type',
    'web',
    '--first-party',
    '--scopes',
    'openid users:read',
    '--login',
    adminLogin,
    '--redirect-uri',
    redirectUri,
  ]);
  const adminClient = await registerClient(authDb.url, [
    '--type',
    'service',
    '--scopes',
    'users:write',
    '--login',
    adminLogin,
  ]);
  const discover = (c: { client_id: string; client_secret: string }) =>
    oidc.discovery(
      new URL(auth.url),
      c.client_id,
      { client_secret: c.client_secret },
      oidc.ClientSecretBasic(c.client_secret),
      {
        execute: [oidc.allowInsecureRequests],
      },
    );
  const web = await discover(webClient);
  const adminToken = (
    await oidc.clientCredentialsGrant(await discover(adminClient), { scope: 'users:write' })
  ).access_token;
  return { customers, auth, gateway, admin, web, webClient, adminToken };
}

async function newShopper(stack: Stack, name: string): Promise<string> {
  const login = `${name}-${randomBytes(3).toString('hex')}`;
  await stack.admin.createUser({ cust_id: custId, login, email: `${login}@bench.example`, name });
  await stack.admin.setPassword(login, password);
  return login;
}

/** The code flow with PKCE through the real sign-in page. */
async function signIn(stack: Stack, login: string): Promise<oidc.TokenEndpointResponse> {
  const { url, verifier, state } = await authorizationRequest(stack.web, {
    redirectUri: redirectUri,
    scope: 'openid users:read',
  });
  const browser = new Browser(redirectUri);
  const page = await browser.open(url.href);
  const callback = await browser.submit(page, '/login', { login, password });
  if (!callback.url.startsWith(redirectUri))
    throw new Error(`sign-in of ${login} failed (${callback.status})`);
  return oidc.authorizationCodeGrant(stack.web, new URL(callback.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
}

async function gatewayStatus(stack: Stack, token: string, login: string): Promise<number> {
  const res = await fetch(`${stack.gateway.url}/v1/users/${login}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
}

/** Makes the revoking call and polls the gateway with `token` until 401. */
async function measure(
  stack: Stack,
  token: string,
  login: string,
  revoke: () => Promise<void>,
): Promise<Sample> {
  const before = await gatewayStatus(stack, token, login);
  if (before !== 200) throw new Error(`token not accepted before revocation (${before})`);
  const start = performance.now();
  await revoke();
  const answered = performance.now();
  for (let accepted = 0; ; accepted++) {
    const status = await gatewayStatus(stack, token, login);
    const now = performance.now();
    if (status === 401)
      return { total: now - start, afterAnswer: now - answered, acceptedAfterAnswer: accepted };
    if (status !== 200) throw new Error(`unexpected gateway answer ${status} while waiting for 401`);
    if (now - start > GIVE_UP_MS) throw new Error(`still accepted ${GIVE_UP_MS} ms after the revoking call`);
    await sleep(POLL_MS);
  }
}

async function revokeAccessTokens(stack: Stack, n = N): Promise<Sample[]> {
  const login = await newShopper(stack, 'rev');
  let tokens = await signIn(stack, login);
  const samples: Sample[] = [];
  for (let i = 0; i < n; i++) {
    tokens = await oidc.refreshTokenGrant(stack.web, tokens.refresh_token!);
    samples.push(
      await measure(stack, tokens.access_token, login, () =>
        oidc.tokenRevocation(stack.web, tokens.access_token),
      ),
    );
  }
  return samples;
}

async function replayRefreshTokens(stack: Stack): Promise<Sample[]> {
  const login = await newShopper(stack, 'replay');
  const samples: Sample[] = [];
  for (let i = 0; i < N; i++) {
    const first = await signIn(stack, login);
    const second = await oidc.refreshTokenGrant(stack.web, first.refresh_token!);
    samples.push(
      await measure(stack, second.access_token, login, async () => {
        const replay = await oidc.refreshTokenGrant(stack.web, first.refresh_token!).then(
          () => 'accepted',
          (err: unknown) => (err as { error?: string }).error,
        );
        if (replay !== 'invalid_grant') throw new Error(`replay answered ${replay}`);
      }),
    );
  }
  return samples;
}

async function deactivateShoppers(stack: Stack): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < N; i++) {
    const login = await newShopper(stack, 'leaver');
    const tokens = await signIn(stack, login);
    samples.push(
      await measure(stack, tokens.access_token, login, async () => {
        const res = await fetch(`${stack.gateway.url}/v1/users/${login}/deactivate`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${stack.adminToken}` },
        });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`deactivation answered ${res.status}`);
      }),
    );
  }
  return samples;
}

function report(kind: string, samples: Sample[]): string {
  const line = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
  };
  return [
    `${kind} (n=${samples.length})`,
    `  revoking call -> gateway 401:  ${line(samples.map((s) => s.total))}`,
    `  after the call answered:       ${line(samples.map((s) => s.afterAnswer))}`,
    `  requests still accepted after the answer: max ${Math.max(...samples.map((s) => s.acceptedAfterAnswer))}`,
  ].join('\n');
}

async function main(): Promise<void> {
  const kafka = await startTestKafka();
  const [customersDb, authDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  let stack: Stack | undefined;
  try {
    stack = await startStack(kafka.brokers.join(','), customersDb, authDb);
    // Warm-up: the first requests pay for the gateway's JWKS fetch and connection pools.
    await revokeAccessTokens(stack, 2);
    const results = [
      report('access token revoked at /oauth/revoke', await revokeAccessTokens(stack)),
      report('refresh token replayed (grant revoked)', await replayRefreshTokens(stack)),
      report('shopper deactivated (POST /v1/users/{login}/deactivate)', await deactivateShoppers(stack)),
    ];
    console.log(`\nRevocation latency to the gateway, N=${N}, poll every ${POLL_MS} ms (bound: 5000 ms)\n`);
    console.log(results.join('\n\n'));
  } finally {
    await Promise.allSettled([stack?.gateway.stop(), stack?.auth.stop(), stack?.customers.stop()]);
    await Promise.allSettled([customersDb.drop(), authDb.drop()]);
    if (kafka.started) await stopTestKafka();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
