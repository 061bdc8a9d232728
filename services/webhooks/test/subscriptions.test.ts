// Subscriptions of the token's account: create (secret shown once, Idempotency-Key), list,
// retrieve, update, delete, rotate_secret, test (a signed `webhook.test` to that subscription alone).
import { randomUUID } from 'node:crypto';
import { waitUntil } from '@ordering/testing';
import { MAX_SUBSCRIPTIONS_PER_ACCOUNT } from '../src/domain/subscriptions-use-case';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';
import { verifyWithStripe } from './support/stripe-verifier';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
  await receiver?.close();
  await disconnectProducer();
});

const create = (custId: string, body: object, key?: string) => {
  const req = h.api(custId).post('/v1/webhooks', body);
  return key ? req.set('Idempotency-Key', key) : req;
};

describe('create', () => {
  it('answers 201 with the subscription and its signing secret, which no read shows again', async () => {
    const res = await create(h.P, {
      url: receiver.url('/a'),
      events: ['user.created'],
      description: 'CRM sync',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'webhook_subscription',
      url: receiver.url('/a'),
      events: ['user.created'],
      description: 'CRM sync',
      status: 'enabled',
      ordering: 'none',
    });
    expect(res.body.id).toMatch(/^we_/);
    expect(res.body.signing_secret).toMatch(/^whsec_/);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();

    const got = await h.api(h.P).get(`/v1/webhooks/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('signing_secret');
    const list = await h.api(h.P).get('/v1/webhooks');
    expect(list.body).toMatchObject({ object: 'list', url: '/v1/webhooks', has_more: false });
    const listed = list.body.data.find((s: { id: string }) => s.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('signing_secret');
    // Stored encrypted, never as given.
    const stored = await h.db.knex('webhook_secrets').where({ subscription_id: res.body.id });
    expect(stored).toHaveLength(1);
    expect(stored[0].secret_encrypted).not.toContain(res.body.signing_secret.slice(6));
  });

  it('refuses bad bodies in the error shape', async () => {
    const cases: [object, number, string, string][] = [
      [{ events: ['user.created'] }, 422, 'missing_required_field', 'url'],
      [{ url: receiver.url('/a') }, 422, 'missing_required_field', 'events'],
      [{ url: receiver.url('/a'), events: [] }, 422, 'invalid_value', 'events'],
      [{ url: receiver.url('/a'), events: ['order.exploded'] }, 422, 'invalid_value', 'events[0]'],
      [{ url: receiver.url('/a'), events: ['webhook.test'] }, 422, 'invalid_value', 'events[0]'],
      [{ url: 'not a url', events: ['user.created'] }, 422, 'invalid_value', 'url'],
      [{ url: receiver.url('/a'), events: ['user.created'], color: 'red' }, 422, 'unknown_field', 'color'],
      [
        { url: receiver.url('/a'), events: ['user.created'], ordering: 'sorted' },
        422,
        'invalid_value',
        'ordering',
      ],
    ];
    for (const [body, status, code, param] of cases) {
      const res = await create(h.P, body);
      expect({ body, status: res.status, error: res.body.error }).toMatchObject({
        status,
        error: { type: 'invalid_request', code, param },
      });
    }
  });

  it('with an Idempotency-Key creates once: a retry replays the same answer, another body is 422', async () => {
    const key = randomUUID();
    const body = { url: receiver.url('/idem'), events: ['user.created'] };
    const first = await create(h.P, body, key);
    const again = await create(h.P, body, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // An answer showing a signing secret is never stored by a cache, the replay's included.
    expect([first.headers['cache-control'], again.headers['cache-control']]).toEqual([
      'no-store',
      'no-store',
    ]);
    expect(again.text).toBe(first.text);
    expect(await h.db.knex('webhook_subscriptions').where({ url: receiver.url('/idem') })).toHaveLength(1);
    // The answer kept for replays holds the secret sealed, as webhook_secrets does, never in clear.
    const kept = await h.db
      .knex('idempotency_keys')
      .where({ key })
      .select(h.db.knex.raw('response_body::text as body'));
    expect(kept).toHaveLength(1);
    expect(kept[0].body).toContain(first.body.id);
    expect(kept[0].body).not.toContain(first.body.signing_secret.slice(6));
    const other = await create(h.P, { ...body, description: 'changed' }, key);
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('an account holds at most MAX_SUBSCRIPTIONS_PER_ACCOUNT (500) subscriptions: the next is 409 webhook_limit_reached, even when sent at once', async () => {
    const custId = `${h.P}-CAP`;
    const body = { url: receiver.url('/cap'), events: ['user.created'] };
    // Filled to ten below the cap in waves of ten (505 at once would queue most of them past the
    // pool's acquire timeout on a busy machine), then fifteen race for the last ten places.
    const filled = [];
    for (let made = 0; made < MAX_SUBSCRIPTIONS_PER_ACCOUNT - 10; made += 10) {
      filled.push(...(await Promise.all(Array.from({ length: 10 }, () => create(custId, body)))));
    }
    expect(filled.every((r) => r.status === 201)).toBe(true);
    const raced = await Promise.all(Array.from({ length: 15 }, () => create(custId, body)));
    const answers = [...filled, ...raced];
    expect(answers.filter((r) => r.status === 201)).toHaveLength(MAX_SUBSCRIPTIONS_PER_ACCOUNT);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.status).toBe(409);
    expect(refused[0]!.body.error).toMatchObject({ type: 'invalid_request', code: 'webhook_limit_reached' });
    // Deleting one makes room for one; another account is not affected.
    const first = answers.find((r) => r.status === 201)!.body as { id: string };
    expect((await h.api(custId).delete(`/v1/webhooks/${first.id}`)).status).toBe(200);
    expect((await create(custId, body)).status).toBe(201);
    expect((await create(custId, body)).status).toBe(409);
    expect((await create(`${h.P}-CAP2`, body)).status).toBe(201);
  });

  it('needs admin:all', async () => {
    const res = await h
      .api(h.P, ['orders:read'])
      .post('/v1/webhooks', { url: receiver.url('/a'), events: ['user.created'] });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });
});

describe('one account never sees another account’s subscriptions', () => {
  it('list, retrieve, update, delete, rotate, test and deliveries answer 404 for a foreign subscription', async () => {
    const mine = await create(h.P, { url: receiver.url('/mine'), events: ['user.created'] });
    const other = h.api(`${h.P}-OTHER`);
    const list = await other.get('/v1/webhooks');
    expect(list.body.data.map((s: { id: string }) => s.id)).not.toContain(mine.body.id);
    const id = mine.body.id as string;
    for (const res of [
      await other.get(`/v1/webhooks/${id}`),
      await other.patch(`/v1/webhooks/${id}`, { description: 'x' }),
      await other.delete(`/v1/webhooks/${id}`),
      await other.post(`/v1/webhooks/${id}/rotate_secret`),
      await other.post(`/v1/webhooks/${id}/test`),
      await other.get(`/v1/webhooks/${id}/deliveries`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'resource_missing' });
    }
  });
});

describe('update and delete', () => {
  it('PATCH changes url, events, description, status and ordering; unknown fields are 422', async () => {
    const { body } = await create(h.P, { url: receiver.url('/p'), events: ['user.created'] });
    const res = await h.api(h.P).patch(`/v1/webhooks/${body.id}`, {
      url: receiver.url('/p2'),
      events: ['user.created', 'user.deactivated'],
      description: 'now both',
      status: 'disabled',
      ordering: 'per_resource',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: body.id,
      url: receiver.url('/p2'),
      events: ['user.created', 'user.deactivated'],
      description: 'now both',
      status: 'disabled',
      ordering: 'per_resource',
    });
    expect(res.body).not.toHaveProperty('signing_secret');
    const bad = await h.api(h.P).patch(`/v1/webhooks/${body.id}`, { signing_secret: 'mine' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'unknown_field', param: 'signing_secret' });
    const badStatus = await h.api(h.P).patch(`/v1/webhooks/${body.id}`, { status: 'paused' });
    expect(badStatus.body.error).toMatchObject({ code: 'invalid_value', param: 'status' });
  });

  it('DELETE answers the deleted marker; the subscription is gone', async () => {
    const { body } = await create(h.P, { url: receiver.url('/d'), events: ['user.created'] });
    const res = await h.api(h.P).delete(`/v1/webhooks/${body.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: body.id, object: 'webhook_subscription', deleted: true });
    expect((await h.api(h.P).get(`/v1/webhooks/${body.id}`)).status).toBe(404);
    expect((await h.api(h.P).delete(`/v1/webhooks/${body.id}`)).status).toBe(404);
  });

  it('rotate_secret and test racing a DELETE answer 404, never a 500', async () => {
    for (const action of ['rotate_secret', 'test']) {
      const sub = (await create(h.P, { url: receiver.url('/race'), events: ['user.created'] })).body as {
        id: string;
      };
      // The DELETE has removed the row but not committed yet when the action looks the subscription up.
      const trx = await h.db.knex.transaction();
      await trx('webhook_subscriptions').where({ id: sub.id }).delete();
      const answer = h
        .api(h.P)
        .post(`/v1/webhooks/${sub.id}/${action}`)
        .then((r) => r);
      await waitUntil(
        async () => {
          const { rows } = await h.db.knex.raw<{ rows: unknown[] }>(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          );
          return rows.length > 0;
        },
        10_000,
        `the ${action} to wait for the DELETE`,
      );
      await trx.commit();
      const res = await answer;
      expect({ action, status: res.status, code: res.body.error?.code }).toEqual({
        action,
        status: 404,
        code: 'resource_missing',
      });
    }
  });

  it('lists page by page with next_cursor', async () => {
    const account = `${h.P}-EU-DE`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await create(account, { url: receiver.url(`/l${i}`), events: ['user.created'] })).body.id);
    const first = await h.api(account).get('/v1/webhooks?limit=2');
    expect(first.body).toMatchObject({ has_more: true });
    const second = await h.api(account).get(`/v1/webhooks?limit=2&starting_after=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect([...first.body.data, ...second.body.data].map((s: { id: string }) => s.id)).toEqual(ids);
    expect((await h.api(account).get('/v1/webhooks?limit=0')).body.error).toMatchObject({
      code: 'invalid_value',
      param: 'limit',
    });
  });
});

describe('test event and rotate_secret', () => {
  it('POST test answers 202 and delivers a signed webhook.test to that subscription alone, with exactly the spec headers', async () => {
    const { body: sub } = await create(h.P, { url: receiver.url('/t'), events: ['user.created'] });
    const { body: bystander } = await create(h.P, {
      url: receiver.url('/t-other'),
      events: ['user.created'],
    });
    const res = await h.api(h.P).post(`/v1/webhooks/${sub.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      object: 'webhook_delivery',
      subscription_id: sub.id,
      event_type: 'webhook.test',
      status: 'pending',
    });

    await waitUntil(async () => receiver.received('/t').length === 1, 10_000, 'the test event');
    const got = receiver.received('/t')[0]!;
    const transport = ['host', 'content-length', 'connection', 'transfer-encoding'];
    expect(
      Object.keys(got.headers)
        .filter((k) => !transport.includes(k))
        .sort(),
    ).toEqual(['content-type', 'service-delivery', 'service-event', 'service-signature']);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['service-event']).toBe('webhook.test');
    expect(got.headers['service-delivery']).toBe(res.body.id);
    expect(got.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const event = verifyWithStripe(got.body, got.headers['service-signature'], sub.signing_secret);
    expect(event).toMatchObject({
      object: 'event',
      type: 'webhook.test',
      cust_id: h.P,
      api_version: 'v1',
      data: { webhook_id: sub.id },
    });
    expect(() =>
      verifyWithStripe(got.body, got.headers['service-signature'], bystander.signing_secret),
    ).toThrow();
    expect(receiver.received('/t-other')).toHaveLength(0);

    await waitUntil(
      async () =>
        (await h.api(h.P).get(`/v1/webhooks/${sub.id}/deliveries/${res.body.id}`)).body.status ===
        'succeeded',
      5000,
      'the delivery to be recorded',
    );
    const delivery = await h.api(h.P).get(`/v1/webhooks/${sub.id}/deliveries/${res.body.id}`);
    expect(delivery.body.attempts).toEqual([
      expect.objectContaining({
        status_code: 200,
        error: null,
        response_excerpt: 'ok',
        latency_ms: expect.any(Number),
      }),
    ]);
  });

  it('test, rotate_secret and the replay of one delivery take no parameters: a field is 422 unknown_field, and nothing happens', async () => {
    const { body: sub } = await create(h.P, { url: receiver.url('/np'), events: ['user.created'] });
    const sent = await h.api(h.P).post(`/v1/webhooks/${sub.id}/test`);
    expect(sent.status).toBe(202);
    const paths = [
      `/v1/webhooks/${sub.id}/test`,
      `/v1/webhooks/${sub.id}/rotate_secret`,
      `/v1/webhooks/${sub.id}/deliveries/${sent.body.id}/replay`,
    ];
    for (const path of paths) {
      const res = await h.api(h.P).post(path, { expires_in: 5 });
      expect({ path, status: res.status, error: res.body.error }).toEqual({
        path,
        status: 422,
        error: expect.objectContaining({
          type: 'invalid_request',
          code: 'unknown_field',
          param: 'expires_in',
        }),
      });
    }
    const deliveries = await h.api(h.P).get(`/v1/webhooks/${sub.id}/deliveries`);
    expect(deliveries.body.data).toHaveLength(1);
    const secrets = await h.db.knex('webhook_secrets').where({ subscription_id: sub.id });
    expect(secrets).toHaveLength(1);
  });

  it('rotate_secret shows a new secret once; for 24 h both secrets sign (two v1), and both verify', async () => {
    const { body: sub } = await create(h.P, { url: receiver.url('/r'), events: ['user.created'] });
    const rotated = await h.api(h.P).post(`/v1/webhooks/${sub.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    expect(rotated.body).toMatchObject({ id: sub.id, object: 'webhook_subscription' });
    expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    expect(rotated.body.signing_secret).not.toBe(sub.signing_secret);

    await h.api(h.P).post(`/v1/webhooks/${sub.id}/test`);
    await waitUntil(async () => receiver.received('/r').length === 1, 10_000, 'the test event');
    const got = receiver.received('/r')[0]!;
    expect(got.headers['service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(
      verifyWithStripe(got.body, got.headers['service-signature'], rotated.body.signing_secret),
    ).toBeTruthy();
    expect(verifyWithStripe(got.body, got.headers['service-signature'], sub.signing_secret)).toBeTruthy();
  });
});
