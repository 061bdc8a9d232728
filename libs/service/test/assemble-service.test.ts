// A service assembled from its own parts: its database is created and migrated, its routes answer
// beside the health routes, readiness reflects Kafka as the service asked, the outbox relay
// publishes what a route wrote, and stopping releases everything.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '@ordering/config';
import { TOPICS, exampleUser, newEvent } from '@ordering/contracts';
import type { Migration } from '@ordering/db';
import { createLogger } from '@ordering/http';
import { createConsumer, enqueueEvent, inboxMigration, outboxMigration } from '@ordering/messaging';
import { createTestDatabase, readTopic, testKafkaClient, type TestDatabase } from '@ordering/testing';
import { z } from 'zod';
import { assembleService, consumerReadiness, outboxEnv, serviceEnv, startService } from '../src';

const migrations: Migration[] = [
  outboxMigration,
  inboxMigration,
  {
    name: '20261123000001_notes',
    up: (k) => k.schema.createTable('notes', (t) => t.text('id').primary()),
    down: (k) => k.schema.dropTable('notes'),
  },
];

const testEnv = z.object({ ...serviceEnv({ name: 'notes', port: 0 }), ...outboxEnv });

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ service: 'assemble-service', migrations });
});
afterAll(() => db?.drop());

function config(overrides: Record<string, string> = {}) {
  return loadConfig(testEnv, {
    DATABASE_URL: db.url,
    DATABASE_POOL_MAX: '2',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    INTERNAL_IDENTITY_SECRET: 'test-secret',
    HOST: '127.0.0.1',
    ...overrides,
  });
}
const logger = createLogger({ service: 'notes', level: 'silent' });

function notesService(cfg: ReturnType<typeof config>, kafkaMode?: 'required' | 'degraded') {
  return assembleService(cfg, { logger, migrations }, ({ knex }) => ({
    outbox: true,
    ...(kafkaMode ? { kafka: kafkaMode } : {}),
    routes: (app) => {
      app.post('/notes/:id', async (req, res) => {
        const id = req.params.id;
        await knex.transaction(async (trx) => {
          await trx('notes').insert({ id });
          await enqueueEvent(
            trx,
            newEvent({ type: 'user.created', cust_id: 'NOTES', data: exampleUser({ id, login: id }) }),
          );
        });
        res.status(201).json({ id });
      });
    },
    parts: { knex },
  }));
}

describe('assembleService', () => {
  it("serves the service's routes and health, and the relay publishes what a route committed", async () => {
    const service = await startService(notesService(config()));
    const reader = await readTopic(testKafkaClient(), TOPICS.users);
    try {
      const id = `note-${randomUUID()}`;
      const created = await fetch(`${service.url()}/notes/${id}`, { method: 'POST' });
      expect(created.status).toBe(201);
      expect((await fetch(`${service.url()}/healthz`)).status).toBe(200);
      const ready = await fetch(`${service.url()}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', kafka: 'ok' } });
      await reader.waitFor((messages) => messages.some((m) => m.key === id));
    } finally {
      await reader.stop();
      await service.stop();
    }
  });

  it('without Kafka a publishing service stays ready (degraded); a consuming one is not ready', async () => {
    const noKafka = config({ KAFKA_BROKERS: '127.0.0.1:1', OUTBOX_RELAY_ENABLED: 'false' });
    const degraded = await startService(notesService(noKafka));
    const required = await startService(notesService(noKafka, 'required'));
    try {
      const a = await fetch(`${degraded.url()}/readyz`);
      expect(a.status).toBe(200);
      expect(((await a.json()) as { checks: { kafka: string } }).checks.kafka).toMatch(/^degraded: /);
      const b = await fetch(`${required.url()}/readyz`);
      expect(b.status).toBe(503);
    } finally {
      await degraded.stop();
      await required.stop();
    }
  });

  it('without Kafka a consuming service with consumerReadiness stays ready (degraded) and its API serves', async () => {
    const noKafka = config({ KAFKA_BROKERS: '127.0.0.1:1', OUTBOX_RELAY_ENABLED: 'false' });
    const consuming = await startService(
      assembleService(noKafka, { logger, migrations }, ({ knex, kafka }) => {
        const consumer = createConsumer({
          kafka,
          knex,
          logger,
          groupId: `notes-${randomUUID()}`,
          topics: [TOPICS.orders],
          handlers: {},
        });
        return {
          readiness: [consumerReadiness(consumer)],
          routes: (app) => app.get('/notes', (_req, res) => void res.json({ data: [] })),
          entryPoints: [consumer],
          parts: {},
        };
      }),
    );
    try {
      const ready = await fetch(`${consuming.url()}/readyz`);
      expect(ready.status).toBe(200);
      const { checks } = (await ready.json()) as { checks: Record<string, string> };
      expect(checks.kafka).toMatch(/^degraded: /);
      expect(checks.consumer).toMatch(/^degraded: Kafka is unreachable/);
      expect((await fetch(`${consuming.url()}/notes`)).status).toBe(200);
    } finally {
      await consuming.stop();
    }
  });

  it('closes the database pool when composing the parts fails', async () => {
    const failing = assembleService(config(), { logger, migrations }, ({ knex }) => {
      knexSeen = knex;
      throw new Error('bad part');
    });
    let knexSeen: { client: { pool: unknown } } | undefined;
    await expect(failing).rejects.toThrow('bad part');
    expect(knexSeen?.client.pool).toBeFalsy();
  });
});
