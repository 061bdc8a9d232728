// Receivers whose answers are awkward to record: one with NUL bytes in its body (PostgreSQL text
// cannot hold U+0000; the batch insert of attempts used to fail on it, again and again, so that no
// attempt of that batch was recorded), and one that answers 2xx at once and then takes longer than
// the response timeout to finish its body (a framework that flushes the status line and streams the
// rest; it was once recorded as "no answer within the time limit", with no status code, and sent
// again). Each attempt is recorded with its status and an excerpt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';

interface DeliveryView {
  id: string;
  status: string;
  attempts: { status_code: number | null; error: string | null; response_excerpt: string | null }[];
}

let h: Harness;
const servers: http.Server[] = [];
const trickles = new Set<NodeJS.Timeout>();

jest.setTimeout(60_000);

/** A receiver on a free port that answers every delivery with `answer`; resolves to its URL. */
async function receiver(answer: (res: http.ServerResponse) => void, seen?: string[]): Promise<string> {
  const server = http.createServer((req, res) => {
    seen?.push(String(req.headers['service-delivery']));
    req.resume();
    req.on('end', () => answer(res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

/** Subscribes `url`, publishes one event and answers the subscription's deliveries once attempted. */
async function firstDeliveryTo(url: string): Promise<{ subscription: string; delivery: DeliveryView }> {
  const created = await h.api(h.P).post('/v1/webhooks', { url, events: ['user.created'] });
  expect(created.status).toBe(201);
  await h.publishUserEvent(h.P, 'user.created');
  const deliveries = async () =>
    (await h.api(h.P).get(`/v1/webhooks/${created.body.id}/deliveries`)).body.data as DeliveryView[];
  await waitUntil(async () => ((await deliveries())[0]?.attempts.length ?? 0) >= 1, 20_000, 'an attempt');
  return { subscription: created.body.id as string, delivery: (await deliveries())[0]! };
}

beforeAll(async () => {
  h = await startHarness({ env: { DELIVERY_TIMEOUT_MS: '1000', DELIVERY_CLOCK_SPEED: '1000' } });
});
afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await h?.stop();
  await disconnectProducer();
});

it('records the attempt of a receiver whose body holds NUL bytes, without them', async () => {
  const url = await receiver((res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(Buffer.from('bad\u0000body <b>x</b>\u0000'));
  });
  const { subscription, delivery } = await firstDeliveryTo(url);
  expect(delivery.attempts[0]).toMatchObject({ status_code: 500 });
  expect(delivery.attempts[0]!.response_excerpt).toMatch(/^bad.body <b>x<\/b>/);
  expect(delivery.attempts[0]!.response_excerpt).not.toContain('\u0000');
  // The next test's event is not for this receiver.
  expect((await h.api(h.P).delete(`/v1/webhooks/${subscription}`)).status).toBe(200);
});

it('a 2xx whose body outlasts the timeout is a success, recorded with its status, and not sent again', async () => {
  const received: string[] = [];
  const url = await receiver((res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('accepted;');
    // Trickles the rest for longer than the timeout (1 s), then ends.
    const timer = setInterval(() => res.write('.'), 100);
    trickles.add(timer);
    setTimeout(() => {
      clearInterval(timer);
      trickles.delete(timer);
      res.end();
    }, 2500).unref();
  }, received);
  const { delivery } = await firstDeliveryTo(url);
  expect(delivery).toMatchObject({ status: 'succeeded' });
  expect(delivery.attempts).toEqual([
    expect.objectContaining({
      status_code: 200,
      error: null,
      response_excerpt: expect.stringMatching(/^accepted;/),
    }),
  ]);
  // At the sped-up clock a retry would have come within a second: none did.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(received).toEqual([delivery.id]);
});
