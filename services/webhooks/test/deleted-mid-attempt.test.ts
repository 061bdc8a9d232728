// A subscription deleted while one of its deliveries is being attempted (the worker has sent it and
// waits for the receiver's answer): the answer comes back for a delivery that no longer exists. The
// worker goes on delivering and recording everyone else's deliveries, and logs no failure.
// (Its attempt once failed the foreign key of the whole batch of outcomes on every retry: the
// worker recorded nothing more.)
import { createLogger } from '@ordering/http';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Answer, type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receiver: Receiver;
/** Warnings and errors logged by the service. */
const logged: { msg?: string; err?: { message?: string }; res?: { statusCode?: number } }[] = [];

// Room for a shared, busy 2-core machine (the service joins its Kafka group first).
jest.setTimeout(60_000);

beforeAll(async () => {
  receiver = await startReceiver();
  const logger = createLogger({
    service: 'webhooks',
    level: 'warn',
    destination: { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) },
  });
  h = await startHarness({ service: { logger } });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
});

/** What was logged besides the 404 of the deleted subscription the test asks for. */
function warnings(): string[] {
  return logged
    .filter((l) => l.res?.statusCode !== 404)
    .map((l) => [l.msg, l.err?.message].filter(Boolean).join(': '));
}

interface Delivery {
  id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null }[];
}

async function subscribe(path: string) {
  const res = await h.api(h.P).post('/v1/webhooks', { url: receiver.url(path), events: ['user.created'] });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

async function sendTest(subscriptionId: string): Promise<string> {
  const res = await h.api(h.P).post(`/v1/webhooks/${subscriptionId}/test`);
  expect(res.status).toBe(202);
  return (res.body as { id: string }).id;
}

async function deliveriesOf(subscriptionId: string): Promise<Delivery[]> {
  const res = await h.api(h.P).get(`/v1/webhooks/${subscriptionId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  return res.body.data as Delivery[];
}

/** True once each of `ids` succeeded with one attempt, answered 200. */
async function recordedOnce(subscriptionId: string, ids: string[]): Promise<boolean> {
  const rows = new Map((await deliveriesOf(subscriptionId)).map((d) => [d.id, d]));
  return ids.every((id) => {
    const d = rows.get(id);
    return d?.status === 'succeeded' && d.attempts.length === 1 && d.attempts[0]!.status_code === 200;
  });
}

it('the answer for a delivery whose subscription was deleted meanwhile does not stop the other deliveries', async () => {
  const deleted = await subscribe('/deleted-mid-attempt');
  const other = await subscribe('/other');
  let answer!: (a: Answer) => void;
  const held = new Promise<Answer>((resolve) => (answer = resolve));
  receiver.on('/deleted-mid-attempt', () => held);

  await sendTest(deleted.id);
  await waitUntil(
    () => receiver.received('/deleted-mid-attempt').length === 1,
    10_000,
    'the delivery to be mid-attempt',
  );
  // Another subscription's delivery goes through meanwhile.
  const before = await sendTest(other.id);
  await waitUntil(() => recordedOnce(other.id, [before]), 5000, 'the delivery sent meanwhile');

  const removed = await h.api(h.P).delete(`/v1/webhooks/${deleted.id}`);
  expect(removed.status).toBe(200);
  expect(removed.body).toMatchObject({ id: deleted.id, deleted: true });
  expect((await h.api(h.P).get(`/v1/webhooks/${deleted.id}`)).status).toBe(404);
  answer({ status: 200, body: 'ok' });

  // Deliveries queued after the answer are sent and recorded, each once.
  const after: string[] = [];
  for (let i = 0; i < 3; i++) after.push(await sendTest(other.id));
  await waitUntil(
    () => recordedOnce(other.id, [before, ...after]),
    5000,
    'the deliveries queued after the deleted one was answered to be recorded',
  ).catch((err: Error) => {
    throw new Error(`${err.message}; the service logged: ${JSON.stringify(warnings())}`);
  });
  const sent = receiver.received('/other').map((r) => String(r.headers['service-delivery']));
  expect(sent.sort()).toEqual([before, ...after].sort());
  // The deleted subscription's delivery was not sent again, and nothing failed on the way.
  expect(receiver.received('/deleted-mid-attempt')).toHaveLength(1);
  expect(warnings()).toEqual([]);
});
