// One subscription's fault never stops the others' deliveries.
// - A subscription deleted while one of its deliveries is being attempted (the worker has sent it
//   and waits for the receiver's answer): the answer comes back for a delivery that no longer
//   exists. The worker goes on delivering and recording everyone else's deliveries, and logs no
//   failure. (Its attempt once failed the foreign key of the whole batch of outcomes on every
//   retry: the worker recorded nothing more.)
// - A subscription whose signing secret does not open (stored under another SIGNING_SECRETS_KEY, or
//   damaged): its deliveries are not sent, each gets a failed attempt saying why and is retried,
//   and the batch they were claimed with goes out. (One such secret once failed every claim.)
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Answer, type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receiver: Receiver;
/** A warning or error line of the service. */
interface LogLine {
  msg?: string;
  level?: string;
  subscription_id?: string;
  err?: { message?: string };
  res?: { statusCode?: number };
}
const logged = (): LogLine[] => h.logged as LogLine[];

// Room for a shared, busy 2-core machine (the service joins its Kafka group first).
jest.setTimeout(60_000);

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startHarness({ logLevel: 'warn' });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
});

/** What was logged besides the 404 of the deleted subscription the test asks for. */
function warnings(): string[] {
  return logged()
    .filter((l) => l.res?.statusCode !== 404)
    .map((l) => [l.msg, l.err?.message].filter(Boolean).join(': '));
}

interface Delivery {
  id: string;
  status: string;
  next_attempt_at: string | null;
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

it("a subscription whose signing secret does not open gets failed attempts; the other subscriptions' deliveries go out", async () => {
  const broken = await subscribe('/secret-broken');
  const fine = await subscribe('/secret-fine');
  // Sealed under another key: the worker's SIGNING_SECRETS_KEY cannot open it.
  await h.db
    .knex('webhook_secrets')
    .where({ subscription_id: broken.id })
    .update({ secret_encrypted: 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' });
  await h.publishUserEvent(h.P);
  await waitUntil(
    async () => (await deliveriesOf(fine.id))[0]?.status === 'succeeded',
    10_000,
    "the other subscription's delivery",
  );
  await waitUntil(
    async () => ((await deliveriesOf(broken.id))[0]?.attempts.length ?? 0) > 0,
    10_000,
    "the broken subscription's failed attempt",
  );
  const [unsigned] = await deliveriesOf(broken.id);
  expect(unsigned).toMatchObject({ status: 'pending', next_attempt_at: expect.any(String) });
  expect(unsigned!.attempts[0]).toEqual(
    expect.objectContaining({
      status_code: null,
      error: "not sent: the subscription's signing secret cannot be opened",
    }),
  );
  expect(receiver.received('/secret-broken')).toHaveLength(0);
  expect(receiver.received('/secret-fine')).toHaveLength(1);
  expect(logged()).toContainEqual(
    expect.objectContaining({
      level: 'error',
      subscription_id: broken.id,
      msg: "a subscription's signing secret does not open with SIGNING_SECRETS_KEY; its deliveries are not sent",
    }),
  );
});
