// ordering_auth_token_errors_total, which OrderingTokenEndpointFailing reads with endpoint="token":
// a server error is counted under the endpoint that failed, so that one of another endpoint
// (introspection, userinfo, the sign-in pages) does not page as the token endpoint failing.
import { Writable } from 'node:stream';
import { createLogger } from '@ordering/http';
import { startTestMetrics, type TestMetrics } from '@ordering/telemetry';
import { CLIENTS_TABLE } from '../src/data-access/client-repository';
import { startAuthHarness, type AuthHarness } from './support/auth-test-harness';

let metrics: TestMetrics;
let h: AuthHarness;
/** The service's log lines. */
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  metrics = startTestMetrics();
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  h = await startAuthHarness({}, { logger: createLogger({ service: 'auth', level: 'info', destination }) });
});

afterAll(async () => {
  await h?.close();
  await metrics?.shutdown();
});

const post = (path: string, body: string) =>
  fetch(`${h.issuer}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('no-such-client:secret').toString('base64')}`,
    },
    body,
  });

it('counts a server error under the endpoint that failed: token for the token endpoint, not every endpoint', async () => {
  // The clients table unreadable (a real PostgreSQL error): every client lookup fails.
  await h.db.knex.schema.renameTable(CLIENTS_TABLE, `${CLIENTS_TABLE}_away`);
  try {
    const failed = await post('/oauth/token', 'grant_type=client_credentials&scope=orders%3Aread');
    expect(failed.status).toBe(500);
    // The error line names the request the client was answered for.
    const requestId = failed.headers.get('x-request-id');
    expect(
      lines.find((l) => l.msg === 'oidc-provider server error' && l.request_id === requestId),
    ).toMatchObject({
      level: 'error',
      endpoint: 'token',
    });
    expect((await post('/oauth/introspect', 'token=abc')).status).toBe(500);
  } finally {
    await h.db.knex.schema.renameTable(`${CLIENTS_TABLE}_away`, CLIENTS_TABLE);
  }
  const text = await metrics.text();
  const count = (endpoint: string) =>
    Number(
      new RegExp(
        `^ordering_auth_token_errors_total\\{error="server_error",endpoint="${endpoint}"[^}]*\\} (\\d+)$`,
        'm',
      ).exec(text)?.[1] ?? 0,
    );
  expect({ token: count('token'), introspection: count('introspection'), any: count('any') }).toEqual({
    token: 1,
    introspection: 1,
    any: 0,
  });
});

it('labels a failed sign-in page by its route template, once (not prefixed twice by the error page)', async () => {
  const res = await fetch(`${h.issuer}/oauth/interaction/no-such-interaction`);
  expect(res.status).toBe(400);
  const text = await metrics.text();
  expect(text).toMatch(
    /^http_server_request_duration_count\{http_request_method="GET",http_route="\/oauth\/interaction\/\{uid\}",http_response_status_code="400"[^}]*\} 1$/m,
  );
  expect(text).not.toContain('/oauth/interaction/oauth/interaction');
});
