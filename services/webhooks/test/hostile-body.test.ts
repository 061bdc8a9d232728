// A receiver that answers with NUL bytes in its body (PostgreSQL text cannot hold U+0000): the
// attempt is recorded with its status and an excerpt without them. The batch insert of attempts
// used to fail on it, again and again, so that no attempt of that batch was recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';

let h: Harness;
let server: http.Server;

jest.setTimeout(60_000);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(Buffer.from('bad\u0000body <b>x</b>\u0000'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  h = await startHarness({ env: { DELIVERY_CLOCK_SPEED: '1000' } });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.stop();
  await disconnectProducer();
});

it('records the attempt of a receiver whose body holds NUL bytes, without them', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const created = await h.api(h.P).post('/v1/webhooks', { url, events: ['user.created'] });
  expect(created.status).toBe(201);
  await h.publishUserEvent(h.P, 'user.created');
  const deliveries = async () =>
    (await h.api(h.P).get(`/v1/webhooks/${created.body.id}/deliveries`)).body.data as {
      attempts: { status_code: number | null; response_excerpt: string | null }[];
    }[];
  await waitUntil(async () => ((await deliveries())[0]?.attempts.length ?? 0) >= 1, 20_000, 'an attempt');
  const [delivery] = await deliveries();
  expect(delivery!.attempts[0]).toMatchObject({ status_code: 500 });
  expect(delivery!.attempts[0]!.response_excerpt).toMatch(/^bad.body <b>x<\/b>/);
  expect(delivery!.attempts[0]!.response_excerpt).not.toContain('\u0000');
});
