// The webhooks service records each domain event of an account once, and shows it to operators
// only through the internal API.
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { TOPICS, exampleUser, newEvent } from '@ordering/contracts';
import { signIdentity } from '@ordering/http';
import { waitUntil } from '@ordering/testing';
import { type Harness, disconnectProducer, sharedProducer, startHarness } from './support/harness';

let h: Harness;
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
    h.secret,
  );
}

const getEvent = (id: string, scopes = ['internal']) =>
  fetch(`${h.service.url()}/internal/v1/events/${id}`, {
    headers: { 'X-Ordering-Identity': identity(scopes) },
  });

beforeAll(async () => {
  h = await startHarness();
  producer = await sharedProducer();
});

afterAll(async () => {
  await h?.stop();
  await disconnectProducer();
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
    const rows = await h.db.knex('account_events').where({ event_id: event.id });
    expect(rows).toHaveLength(1);
    // Both copies were consumed: the inbox holds the id once and nothing else failed.
    const processed = await h.db.knex('processed_events').where({ event_id: event.id });
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
