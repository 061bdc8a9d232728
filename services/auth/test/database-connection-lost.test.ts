// The auth service's database connection is terminated under a token request (a failover, a
// restart): the client gets 503 with Retry-After and the OAuth error `temporarily_unavailable`,
// not 500 `server_error`, and the next request gets a token again.
import { CLIENTS_TABLE } from '../src/data-access/client-repository';
import { startAuthHarness, type AuthHarness } from './support/auth-test-harness';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthHarness();
});
afterAll(() => h?.close());

const tokenRequest = (clientId: string, secret: string) =>
  fetch(`${h.issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials&scope=orders%3Aread',
  });

it('answers 503 temporarily_unavailable with Retry-After when its database connection is terminated', async () => {
  const { client: registered, clientSecret: secret } = await h.register({
    type: 'service',
    scopes: ['orders:read'],
  });
  const clientId = registered.clientId;
  const clientSecret = secret as string;
  expect((await tokenRequest(clientId, clientSecret)).status).toBe(200);

  // Hold the clients table so that the next lookup waits on it, then terminate that backend.
  const lock = await h.db.knex.transaction();
  let pending: Promise<Response> | undefined;
  try {
    await lock.raw(`lock table ${CLIENTS_TABLE} in access exclusive mode`);
    pending = tokenRequest(clientId, clientSecret);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const { rows } = await h.db.knex.raw(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = ? and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
        [h.db.name],
      );
      if (rows.length > 0) break;
      if (Date.now() > deadline) throw new Error('the token request never waited on the table');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await lock.rollback();
  }
  const failed = await pending!;
  expect(failed.status).toBe(503);
  expect(failed.headers.get('retry-after')).toBe('1');
  expect(await failed.json()).toMatchObject({ error: 'temporarily_unavailable' });

  const deadline = Date.now() + 3000;
  let next = await tokenRequest(clientId, clientSecret);
  while (next.status === 503 && Date.now() < deadline) next = await tokenRequest(clientId, clientSecret);
  expect(next.status).toBe(200);
});
