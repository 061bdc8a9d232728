// On-call terminates a service's PostgreSQL connections (a failover, a restart, an operator's
// pg_terminate_backend) while a request is running: the client gets decisions.md's 503
// `service_unavailable` in the API error shape, never a 500 `internal_error`, and the pool
// recovers on its own for the next request.
import { loadConfig } from '@ordering/config';
import { createLogger } from '@ordering/http';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { z } from 'zod';
import { assembleService, serviceEnv, startService } from '../src';

const testEnv = z.object(serviceEnv({ name: 'pgdrop', port: 0 }));
const logger = createLogger({ service: 'pgdrop', level: 'silent' });

let db: TestDatabase;
let service: { url(): string; stop(): Promise<void> };
beforeAll(async () => {
  db = await createTestDatabase({ service: 'connection-lost', migrations: [] });
  const config = loadConfig(testEnv, {
    DATABASE_URL: db.url,
    DATABASE_POOL_MAX: '2',
    KAFKA_BROKERS: '127.0.0.1:1',
    INTERNAL_IDENTITY_SECRET: 'test-secret',
    HOST: '127.0.0.1',
  });
  service = await startService(
    assembleService(config, { logger, migrations: [] }, ({ knex }) => ({
      parts: {},
      routes: (app) => {
        app.get('/slow', async (_req, res) => {
          await knex.raw("select pg_sleep(30), 'connection-lost-probe'");
          res.json({ done: true });
        });
        app.get('/fast', async (_req, res) => {
          res.json((await knex.raw('select 1 as one')).rows[0]);
        });
      },
    })),
  );
});
afterAll(async () => {
  await service?.stop();
  await db?.drop();
});

async function terminateWhenRunning(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.knex.raw(
      "select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = ? and query like '%connection-lost-probe%' and pid <> pg_backend_pid()",
      [db.name],
    );
    if (rows.length > 0) return;
    if (Date.now() > deadline) throw new Error('the slow query never started');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a request whose database connection is terminated', () => {
  it('answers 503 service_unavailable in the API error shape, and the next request succeeds', async () => {
    const pending = fetch(`${service.url()}/slow`);
    await terminateWhenRunning();
    const res = await pending;
    const text = await res.text();
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const body = JSON.parse(text) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    expect(body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(text).not.toMatch(/terminating connection|pg_sleep|at /);

    // The pool drops the broken connection: the service answers again without a restart. (A request
    // that takes the connection back in the instant before the driver has seen its socket close gets
    // one more 503, so poll briefly.)
    const deadline = Date.now() + 3000;
    let next = await fetch(`${service.url()}/fast`);
    while (next.status === 503 && Date.now() < deadline) {
      expect(((await next.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      await new Promise((r) => setTimeout(r, 50));
      next = await fetch(`${service.url()}/fast`);
    }
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({ one: 1 });
  });
});
