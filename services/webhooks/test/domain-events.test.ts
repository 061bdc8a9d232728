// The webhooks service records each domain event of an account once, and shows it to operators
// only through the internal API.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { TOPICS, exampleUser, newEvent } from '@ordering/contracts';
import { createLogger, signIdentity } from '@ordering/http';
import { createTestDatabase, testKafkaClient, waitUntil, type TestDatabase } from '@ordering/testing';
import { loadWebhooksConfig, migrations, startWebhooksService, type WebhooksService } from '../src';

const secret = randomBytes(32).toString('hex');
let db: TestDatabase;
let service: WebhooksService & { stop(): Promise<void> };
let producer: Producer;

function identity(scopes: string[]): string {
  return signIdentity(
    {
      sub: 'service:test',
      cust_id: '*',
      login: 'test',
      client_id: 'service:test',
      scopes,
      jti: randomUUID(),
      exp: Math.floor(Date.now() / 1000) + 60,
    },
    secret,
  );
}

const getEvent = (id: string, scopes = ['internal']) =>
  fetch(`${service.url()}/internal/v1/events/${id}`, {
    headers: { 'X-Ordering-Identity': identity(scopes) },
  });

beforeAll(async () => {
  db = await createTestDatabase({ service: 'webhooks', migrations });
  const config = loadWebhooksConfig({
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    INTERNAL_IDENTITY_SECRET: secret,
    KAFKA_GROUP_ID: `webhooks-test-${randomUUID()}`,
    KAFKA_FROM_BEGINNING: 'false',
    PORT: '0',
    HOST: '127.0.0.1',
  });
  service = await startWebhooksService(config, {
    logger: createLogger({ service: 'webhooks', level: 'silent' }),
  });
  await service.parts.consumer.waitForGroupJoin(30_000);
  producer = testKafkaClient().producer();
  await producer.connect();
});

afterAll(async () => {
  await producer?.disconnect();
  await service?.stop();
  await db?.drop();
});

describe('domain events', () => {
  it('a user.created event on the users topic is recorded once, even when delivered twice', async () => {
    const login = `rec-${randomUUID().slice(0, 8)}`;
    const event = newEvent({
      type: 'user.created',
      cust_id: 'ACME',
      data: exampleUser({ login, id: login, cust_id: 'ACME' }),
    });
    const message = { key: login, value: JSON.stringify(event) };
    await producer.send({ topic: TOPICS.users, messages: [message, message] });

    await waitUntil(
      async () => (await getEvent(event.id)).status === 200,
      20_000,
      'the event to be recorded',
    );
    const body = (await (await getEvent(event.id)).json()) as { event: unknown };
    expect(body.event).toEqual(event);
    const rows = await db.knex('account_events').where({ event_id: event.id });
    expect(rows).toHaveLength(1);
    // Both copies were consumed: the inbox holds the id once and nothing else failed.
    const processed = await db.knex('processed_events').where({ event_id: event.id });
    expect(processed).toHaveLength(1);
  });

  it('an unknown event id is 404 in the error shape', async () => {
    const res = await getEvent('evt_unknown');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request', code: 'resource_missing' } });
  });

  it('the internal API refuses an identity without the internal scope', async () => {
    const res = await getEvent('evt_unknown', ['admin:all']);
    expect(res.status).toBe(403);
  });
});
