// The webhooks service started in-process over a fresh database, the real test Kafka broker, a
// stand-in of the customers service's lineage endpoint (the account tree), and helpers to call it
// as the gateway does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import request from 'supertest';
import {
  CATALOG_ITEM_VIEWS_PATH,
  type CatalogItem,
  TOPICS,
  exampleUser,
  newEvent,
} from '@ordering/contracts';
import { type Identity, createLogger, signIdentity } from '@ordering/http';
import { createTestDatabase, testKafkaClient, type TestDatabase } from '@ordering/testing';
import { loadWebhooksConfig, migrations, startWebhooksService, type WebhooksService } from '../../src';
import type { WebhooksServiceOptions } from '../../src/service';

/** How the catalog stand-in answers: the item as `custId` sees it, or null when it cannot. */
export type ItemViews = (itemId: string, custId: string) => CatalogItem | null;

/**
 * Stand-ins of our other services' internal endpoints: GET /internal/v1/customers/{id}/lineage of
 * customers (the account tree) and POST /internal/v1/catalog/items/views of the catalog. Every
 * views request is recorded.
 */
export async function startStandIns(tree: Record<string, string | null>, views: { current: ItemViews }) {
  const viewRequests: { item_id: string; cust_ids: string[] }[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === CATALOG_ITEM_VIEWS_PATH) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          item_id: string;
          cust_ids: string[];
        };
        viewRequests.push(body);
        const answer = body.cust_ids.map((custId) => {
          const item = views.current(body.item_id, custId);
          return { cust_id: custId, visible: item !== null, item };
        });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'catalog_item_views',
            item_id: body.item_id,
            item_code: body.item_id,
            views: answer,
          }),
        );
      });
      return;
    }
    const match = /^\/internal\/v1\/customers\/([^/]+)\/lineage$/.exec(req.url ?? '');
    const id = match ? decodeURIComponent(match[1]!) : undefined;
    if (!id || !(id in tree)) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'invalid_request', code: 'resource_missing' } }));
      return;
    }
    const lineage: string[] = [];
    for (let at: string | null | undefined = id; at; at = tree[at]) lineage.push(at);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ cust_id: id, currency: 'USD', lineage }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tree,
    viewRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Harness {
  service: WebhooksService & { stop(): Promise<void> };
  db: TestDatabase;
  secret: string;
  /** Accounts: `${P}` (top), `${P}-EU` (child), `${P}-EU-DE` (grandchild), `${P}-OTHER` (unrelated top). */
  P: string;
  /** What the catalog stand-in answers (replace `.current` in a test). */
  itemViews: { current: ItemViews };
  viewRequests: { item_id: string; cust_ids: string[] }[];
  api(custId: string, scopes?: string[]): ApiClient;
  /** The service's log lines at `logLevel` and above (none when the harness was started silent). */
  logged: Record<string, unknown>[];
  publishUserEvent(
    custId: string,
    type?: 'user.created' | 'user.deactivated',
    login?: string,
  ): Promise<string>;
  stop(): Promise<void>;
}

export interface ApiClient {
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
  patch(path: string, body: object): request.Test;
  delete(path: string): request.Test;
}

let producer: Producer | undefined;

export async function sharedProducer(): Promise<Producer> {
  if (!producer) {
    producer = testKafkaClient().producer();
    await producer.connect();
  }
  return producer;
}

export async function disconnectProducer(): Promise<void> {
  await producer?.disconnect();
  producer = undefined;
}

export async function startHarness(
  options: {
    env?: Record<string, string>;
    db?: TestDatabase;
    service?: WebhooksServiceOptions;
    /** Keep the service's log lines at this level and above in `logged` (default: silent). */
    logLevel?: 'info' | 'warn';
  } = {},
): Promise<Harness> {
  const P = `W${randomBytes(3).toString('hex').toUpperCase()}`;
  const itemViews: { current: ItemViews } = { current: () => null };
  const lineage = await startStandIns(
    {
      [P]: null,
      [`${P}-EU`]: P,
      [`${P}-EU-DE`]: `${P}-EU`,
      [`${P}-OTHER`]: null,
    },
    itemViews,
  );
  const db = options.db ?? (await createTestDatabase({ service: 'webhooks', migrations, poolMax: 10 }));
  const secret = `test-secret-${randomBytes(8).toString('hex')}`;
  const config = loadWebhooksConfig({
    DATABASE_URL: db.url,
    DATABASE_POOL_MAX: '10',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    INTERNAL_IDENTITY_SECRET: secret,
    KAFKA_GROUP_ID: `webhooks-test-${randomUUID()}`,
    KAFKA_FROM_BEGINNING: 'false',
    CUSTOMERS_URL: lineage.url,
    CATALOG_URL: lineage.url,
    WEBHOOKS_ALLOW_LOCAL_HTTP: 'true',
    DELIVERY_POLL_MS: '20',
    PORT: '0',
    HOST: '127.0.0.1',
    ...options.env,
  });
  const logged: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'webhooks',
    level: options.logLevel ?? 'silent',
    destination: { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
  });
  const service = await startWebhooksService(config, { logger, ...options.service });
  await service.parts.consumer.waitForGroupJoin(30_000);
  const sign = (identity: Omit<Identity, 'jti' | 'exp'>) =>
    signIdentity({ ...identity, jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 600 }, secret);
  const api = (custId: string, scopes = ['admin:all']): ApiClient => {
    const header = () =>
      sign({
        sub: `shopper:${custId.toLowerCase()}:admin`,
        cust_id: custId,
        login: 'admin',
        client_id: `client-${custId}`,
        scopes,
      });
    const r = () => request(service.url());
    return {
      get: (path) => r().get(path).set('X-Ordering-Identity', header()),
      post: (path, body) =>
        r()
          .post(path)
          .set('X-Ordering-Identity', header())
          .send(body ?? {}),
      patch: (path, body) => r().patch(path).set('X-Ordering-Identity', header()).send(body),
      delete: (path) => r().delete(path).set('X-Ordering-Identity', header()),
    };
  };
  return {
    service,
    db,
    secret,
    P,
    itemViews,
    viewRequests: lineage.viewRequests,
    api,
    logged,
    async publishUserEvent(custId, type = 'user.created', login = `u-${randomBytes(4).toString('hex')}`) {
      const event = newEvent({
        type,
        cust_id: custId,
        data: exampleUser({ login, id: login, cust_id: custId }),
      });
      await (
        await sharedProducer()
      ).send({ topic: TOPICS.users, messages: [{ key: login, value: JSON.stringify(event) }] });
      return event.id;
    },
    async stop() {
      await service.stop();
      await lineage.close();
      if (!options.db) await db.drop();
    },
  };
}
