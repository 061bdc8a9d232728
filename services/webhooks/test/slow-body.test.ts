// A receiver that answers 2xx at once and then takes longer than the response timeout to finish
// its body (a framework that flushes the status line and streams the rest): the delivery succeeded,
// since the receiver answered 2xx within the time limit. It was once recorded as "no answer within
// the time limit", with no status code, and sent again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';

let h: Harness;
let server: http.Server;
const received: string[] = [];
const trickles = new Set<NodeJS.Timeout>();

jest.setTimeout(60_000);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    received.push(String(req.headers['service-delivery']));
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted;');
      // Trickles the rest for longer than the timeout, then ends.
      const timer = setInterval(() => res.write('.'), 100);
      trickles.add(timer);
      setTimeout(() => {
        clearInterval(timer);
        trickles.delete(timer);
        res.end();
      }, 2500).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h = await startHarness({ env: { DELIVERY_TIMEOUT_MS: '1000', DELIVERY_CLOCK_SPEED: '1000' } });
});
afterAll(async () => {
  for (const timer of trickles) clearInterval(timer);
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.stop();
  await disconnectProducer();
});

it('a 2xx whose body outlasts the timeout is a success, recorded with its status, and not sent again', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const created = await h.api(h.P).post('/v1/webhooks', { url, events: ['user.created'] });
  expect(created.status).toBe(201);
  await h.publishUserEvent(h.P, 'user.created');
  const deliveries = async () =>
    (await h.api(h.P).get(`/v1/webhooks/${created.body.id}/deliveries`)).body.data as {
      id: string;
      status: string;
      attempts: { status_code: number | null; error: string | null; response_excerpt: string | null }[];
    }[];
  await waitUntil(async () => ((await deliveries())[0]?.attempts.length ?? 0) >= 1, 20_000, 'an attempt');
  const [delivery] = await deliveries();
  expect(delivery).toMatchObject({ status: 'succeeded' });
  expect(delivery!.attempts).toEqual([
    expect.objectContaining({
      status_code: 200,
      error: null,
      response_excerpt: expect.stringMatching(/^accepted;/),
    }),
  ]);
  // At the sped-up clock a retry would have come within a second: none did.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(received).toEqual([delivery!.id]);
});
