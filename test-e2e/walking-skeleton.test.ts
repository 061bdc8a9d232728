// The walking skeleton, through every layer and each process as in production: a write through the
// gateway into the customers service's database, its event through the outbox onto the real Kafka
// topic, and the webhooks service consuming it, in one trace.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { TOPICS, exampleUser, newEvent } from '@ordering/contracts';
import { migrations as customersMigrations, CustomersAdminClient } from '@ordering/customers-service';
import { signIdentity } from '@ordering/http';
import { DEAD_LETTER_HEADERS, createKafka } from '@ordering/messaging';
import {
  createTestDatabase,
  readTopic,
  startTestIssuer,
  waitUntil,
  type TestDatabase,
  type TestIssuer,
  type TopicReader,
  freePort,
} from '@ordering/testing';
import { migrations as webhooksMigrations } from '@ordering/webhooks-service';
import { startServiceProcess, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(',');
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `SKEL-${suffix}`;
const webhooksGroup = `webhooks.e2e-${suffix}`;

let issuer: TestIssuer;
let customersDb: TestDatabase;
let webhooksDb: TestDatabase;
let customers: ServiceProcess;
let webhooks: ServiceProcess;
let gateway: ServiceProcess;
let customersPort: number;
let kafka: Kafka;
let producer: Producer;
let usersTopic: TopicReader;
let deadLetters: TopicReader;

function customersEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: customersDb.url,
    KAFKA_BROKERS: brokers.join(','),
    INTERNAL_IDENTITY_SECRET: secret,
    PASSWORD_HASH_COST: '10',
    ...extra,
  };
}

function internalIdentity(): string {
  return signIdentity(
    {
      sub: 'service:e2e',
      cust_id: '*',
      login: 'e2e',
      client_id: 'service:e2e',
      scopes: ['internal'],
      jti: randomUUID(),
      exp: Math.floor(Date.now() / 1000) + 60,
    },
    secret,
  );
}

async function recordedEvent(eventId: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${webhooks.url}/internal/v1/events/${eventId}`, {
    headers: { 'X-Ordering-Identity': internalIdentity() },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function createUser(login: string, headers: Record<string, string> = {}): Promise<Response> {
  const token = issuer.mint({ cust_id: custId, login: 'integration', scope: 'users:write users:read' });
  return fetch(`${gateway.url}/v1/users`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ login, email: `${login}@skeleton.example`, name: `Shopper ${login}` }),
  });
}

const eventsFor = (login: string) =>
  usersTopic.messages.filter((m) => {
    const value = JSON.parse(m.value ?? '{}') as { type?: string; data?: { login?: string } };
    return value.type === 'user.created' && value.data?.login === login;
  });

beforeAll(async () => {
  issuer = await startTestIssuer('http://api.e2e.test');
  [customersDb, webhooksDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'webhooks', migrations: webhooksMigrations }),
  ]);
  kafka = createKafka({ clientId: `e2e-${suffix}`, brokers });
  producer = kafka.producer();
  await producer.connect();
  [usersTopic, deadLetters] = await Promise.all([
    readTopic(kafka, TOPICS.users),
    readTopic(kafka, TOPICS.deadLetter),
  ]);

  customersPort = await freePort();
  [customers, webhooks] = await Promise.all([
    startServiceProcess('services/customers', customersEnv(), { port: customersPort }),
    startServiceProcess('services/webhooks', {
      DATABASE_URL: webhooksDb.url,
      KAFKA_BROKERS: brokers.join(','),
      INTERNAL_IDENTITY_SECRET: secret,
      KAFKA_GROUP_ID: webhooksGroup,
      // Who receives an account's events (its lineage) comes from the customers service.
      CUSTOMERS_URL: `http://127.0.0.1:${customersPort}`,
      // Only what this test publishes (ready means the group has its partitions).
      KAFKA_FROM_BEGINNING: 'false',
    }),
  ]);
  gateway = await startServiceProcess('gateway', {
    AUTH_JWKS_URL: issuer.jwksUrl,
    AUTH_ISSUER: issuer.issuer,
    API_AUDIENCE: issuer.audience,
    INTERNAL_IDENTITY_SECRET: secret,
    CUSTOMERS_URL: customers.url,
    WEBHOOKS_URL: webhooks.url,
    REDIS_KEY_PREFIX: `e2e-${suffix}:`,
  });
  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Skeleton ${suffix}`, currency: 'USD' });
});

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), customers?.stop(), webhooks?.stop()]);
  await Promise.allSettled([usersTopic?.stop(), deadLetters?.stop(), producer?.disconnect()]);
  await Promise.allSettled([customersDb?.drop(), webhooksDb?.drop(), issuer?.close()]);
});

describe('walking skeleton: gateway -> customers -> outbox -> Kafka -> webhooks', () => {
  it('a user created through the gateway is published with the spec envelope and consumed in the same trace', async () => {
    const clientTraceId = randomBytes(16).toString('hex');
    const login = `ada-${suffix.toLowerCase()}`;
    const res = await createUser(login, {
      traceparent: `00-${clientTraceId}-${randomBytes(8).toString('hex')}-01`,
    });
    expect(res.status).toBe(201);
    // The gateway started the platform's trace (a client's is not continued) and named it.
    const traceId = res.headers.get('traceresponse')?.split('-')[1];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(clientTraceId);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();

    // On the topic, read back by an independent consumer, keyed by the aggregate.
    const [message] = await usersTopic
      .waitFor(() => eventsFor(login).length > 0)
      .then(() => eventsFor(login));
    const event = JSON.parse(message!.value!) as Record<string, unknown>;
    expect(Object.keys(event).sort()).toEqual([
      'api_version',
      'created_at',
      'cust_id',
      'data',
      'id',
      'object',
      'type',
    ]);
    expect(event).toMatchObject({
      object: 'event',
      type: 'user.created',
      cust_id: custId,
      api_version: 'v1',
      data: { object: 'user', id: login, login, cust_id: custId, status: 'active' },
    });
    expect(event.id).toEqual(expect.stringMatching(/^evt_/));
    expect(new Date(event.created_at as string).toISOString()).toBe(event.created_at);
    expect(message!.key).toBe(login);
    // The trace context travelled in the message headers.
    expect(message!.headers.traceparent).toContain(traceId);

    // Consumed by the other service, in the trace the HTTP request started.
    await waitUntil(
      async () => (await recordedEvent(event.id as string)).status === 200,
      15_000,
      'webhooks to record it',
    );
    const recorded = await recordedEvent(event.id as string);
    expect(recorded.body.event).toEqual(event);
    expect(recorded.body.trace_id).toBe(traceId);
  });

  it('a service killed with SIGKILL after commit and before publishing publishes the event exactly once after restart', async () => {
    // A replica whose relay does not run: the event is committed in the outbox and nothing publishes it.
    await customers.stop();
    customers = await startServiceProcess(
      'services/customers',
      customersEnv({ OUTBOX_RELAY_ENABLED: 'false' }),
      {
        port: customersPort,
      },
    );
    const login = `kill-${suffix.toLowerCase()}`;
    expect((await createUser(login)).status).toBe(201);
    await customers.kill();
    expect(eventsFor(login)).toHaveLength(0);

    // Restarted with its relay, it catches up from the table.
    customers = await startServiceProcess('services/customers', customersEnv(), { port: customersPort });
    await usersTopic.waitFor(() => eventsFor(login).length > 0);
    // A marker published after the restart's catch-up: once it is read, a second copy would have been too.
    const marker = `marker-${suffix.toLowerCase()}`;
    expect((await createUser(marker)).status).toBe(201);
    await usersTopic.waitFor(() => eventsFor(marker).length > 0);
    expect(eventsFor(login)).toHaveLength(1);
  });

  it('a duplicate delivery is applied once; a malformed message is dead-lettered and the messages behind it are processed', async () => {
    const key = `dup-${suffix}`;
    const first = newEvent({
      type: 'user.created',
      cust_id: custId,
      data: exampleUser({ cust_id: custId, login: `${key}-1`, id: `${key}-1` }),
    });
    const second = newEvent({
      type: 'user.created',
      cust_id: custId,
      data: exampleUser({ cust_id: custId, login: `${key}-2`, id: `${key}-2` }),
    });
    // One key, so one partition, in this order.
    await producer.send({
      topic: TOPICS.users,
      messages: [
        { key, value: JSON.stringify(first) },
        { key, value: JSON.stringify(first) },
        { key, value: '{"this is": not json' },
        { key, value: JSON.stringify(second) },
      ],
    });

    await waitUntil(
      async () => (await recordedEvent(second.id)).status === 200,
      20_000,
      'the event behind the malformed one',
    );
    expect((await recordedEvent(first.id)).body.event).toEqual(first);

    // This test's messages only (the webhooks consumer also reads what earlier runs left on the topic).
    const ours = () =>
      deadLetters.messages.filter(
        (m) => m.headers[DEAD_LETTER_HEADERS.consumerGroup] === webhooksGroup && m.key === key,
      );
    await deadLetters.waitFor(() => ours().length > 0);
    // Only the malformed message: a second application of the duplicate would have failed on the
    // event's primary key and been dead-lettered too.
    expect(ours()).toHaveLength(1);
    expect(ours()[0]).toMatchObject({
      key,
      value: '{"this is": not json',
      headers: expect.objectContaining({
        [DEAD_LETTER_HEADERS.topic]: TOPICS.users,
        [DEAD_LETTER_HEADERS.reason]: 'invalid_json',
      }),
    });
  });
});
