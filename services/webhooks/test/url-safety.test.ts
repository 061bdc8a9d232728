// SSRF: subscriptions to anything but public https are refused at creation (each address kind, a
// hostname resolving to a private address), and checked again at each delivery against the address
// the connection actually goes to. The development setting admits loopback http receivers only;
// production refuses to start with it.
import type { LookupAddress } from 'node:dns';
import { waitUntil } from '@ordering/testing';
import { loadWebhooksConfig } from '../src/config';
import { UrlPolicy, refusedAddressKind } from '../src/delivery/url-policy';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

/** Test DNS: names -> addresses, changeable mid-test (DNS rebinding). */
const dnsTable = new Map<string, string[]>();
const resolver = async (hostname: string): Promise<LookupAddress[]> => {
  const addresses = dnsTable.get(hostname);
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('address kinds', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.100.100.200', 'metadata'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::808:808', 'ipv4Compatible'],
    ['ff02::1', 'multicast'],
  ])('%s is refused (%s)', (address, kind) => {
    expect(refusedAddressKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('%s is a public address', (address) => {
    expect(refusedAddressKind(address)).toBeUndefined();
  });
});

describe('at creation (production setting: public https only)', () => {
  let h: Harness;
  beforeAll(async () => {
    dnsTable.set('public.example.test', ['93.184.216.34']);
    dnsTable.set('internal.example.test', ['10.0.0.5']);
    dnsTable.set('mixed.example.test', ['93.184.216.34', '192.168.0.7']);
    dnsTable.set('metadata.example.test', ['169.254.169.254']);
    dnsTable.set('localhost', ['127.0.0.1']);
    h = await startHarness({ env: { WEBHOOKS_ALLOW_LOCAL_HTTP: 'false' }, service: { resolver } });
  });
  afterAll(async () => {
    await h?.stop();
    await disconnectProducer();
  });

  it.each([
    ['http://public.example.test/hook', 'https'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
    ['http://127.0.0.1:8080/hook', 'https'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://172.20.1.1/hook', 'private'],
    ['https://192.168.0.10/hook', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://100.64.1.1/hook', 'carrierGradeNat'],
    ['https://224.0.0.5/hook', 'multicast'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[fd12::1]/hook', 'uniqueLocal'],
    ['https://[fe80::1]/hook', 'linkLocal'],
    ['https://[::ffff:192.168.0.1]/hook', 'private'],
    ['https://[::7f00:1]/hook', 'ipv4Compatible'],
    ['https://internal.example.test/hook', '10.0.0.5'],
    ['https://mixed.example.test/hook', '192.168.0.7'],
    ['https://metadata.example.test/hook', 'metadata'],
    ['https://user:pass@public.example.test/hook', 'credentials'],
    ['https://public.example.test:0/hook', 'port 0'],
    ['ftp://public.example.test/hook', 'Invalid URL'],
  ])('%s is refused (%s)', async (url, why) => {
    const res = await h.api(h.P).post('/v1/webhooks', { url, events: ['user.created'] });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_value', param: 'url' });
    expect(res.body.error.message).toContain(why);
  });

  it('a public https URL is accepted, and a later PATCH to a private one is refused', async () => {
    const res = await h
      .api(h.P)
      .post('/v1/webhooks', { url: 'https://public.example.test/hook', events: ['user.created'] });
    expect(res.status).toBe(201);
    const patch = await h
      .api(h.P)
      .patch(`/v1/webhooks/${res.body.id}`, { url: 'https://internal.example.test/x' });
    expect(patch.status).toBe(422);
    expect(patch.body.error).toMatchObject({ code: 'invalid_value', param: 'url' });
    expect((await h.api(h.P).get(`/v1/webhooks/${res.body.id}`)).body.url).toBe(
      'https://public.example.test/hook',
    );
  });
});

describe('at each delivery', () => {
  let h: Harness;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    h = await startHarness({ env: { DELIVERY_CLOCK_SPEED: '1000' }, service: { resolver } });
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.stop();
    await disconnectProducer();
  });

  it('a name that resolved to a public address at creation and to a private one at delivery is not connected to', async () => {
    const port = new URL(receiver.url('/')).port;
    dnsTable.set('rebind.example.test', ['93.184.216.34']);
    const res = await h
      .api(h.P)
      .post('/v1/webhooks', { url: `https://rebind.example.test:${port}/rebind`, events: ['user.created'] });
    expect(res.status).toBe(201);
    // The attacker's DNS now answers a private address (here: where the receiver listens).
    dnsTable.set('rebind.example.test', ['10.0.0.9', '127.0.0.1']);
    await h.publishUserEvent(h.P);
    await waitUntil(
      async () =>
        ((await h.api(h.P).get(`/v1/webhooks/${res.body.id}/deliveries`)).body.data[0]?.attempts.length ??
          0) >= 2,
      15_000,
      'two refused attempts',
    );
    const [delivery] = (await h.api(h.P).get(`/v1/webhooks/${res.body.id}/deliveries`)).body.data;
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({ status_code: null });
    expect(delivery.attempts[0].error).toMatch(
      /^refused: rebind\.example\.test resolves to 10\.0\.0\.9, a private address/,
    );
    expect(receiver.received('/rebind')).toHaveLength(0);
    await h.api(h.P).delete(`/v1/webhooks/${res.body.id}`);
  });

  it('the development setting admits http://127.0.0.1 and localhost receivers, and nothing else private', async () => {
    const policy = new UrlPolicy({ allowLocalHttp: true, resolver });
    expect(policy.checkSyntax('http://127.0.0.1:9000/x').hostname).toBe('127.0.0.1');
    expect(policy.checkSyntax('http://localhost:9000/x').hostname).toBe('localhost');
    expect(() => policy.checkSyntax('http://10.0.0.1/x')).toThrow(/https/);
    expect(() => policy.checkSyntax('https://10.0.0.1/x')).toThrow(/private/);
    await expect(policy.resolveAllowed('internal.example.test')).rejects.toThrow(/private/);
    // A public name that resolves to loopback is still refused: only the local names themselves pass.
    dnsTable.set('sneaky.example.test', ['127.0.0.1']);
    await expect(policy.resolveAllowed('sneaky.example.test')).rejects.toThrow(/loopback/);
  });
});

describe('configuration', () => {
  const base = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x',
    KAFKA_BROKERS: '127.0.0.1:9092',
    INTERNAL_IDENTITY_SECRET: 'x'.repeat(32),
    NODE_ENV: 'production',
    SIGNING_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  };
  it('production refuses the local-http setting, a sped-up clock and the development key', () => {
    expect(() => loadWebhooksConfig({ ...base, WEBHOOKS_ALLOW_LOCAL_HTTP: 'true' })).toThrow(
      /WEBHOOKS_ALLOW_LOCAL_HTTP/,
    );
    expect(() => loadWebhooksConfig({ ...base, DELIVERY_CLOCK_SPEED: '1000' })).toThrow(
      /DELIVERY_CLOCK_SPEED/,
    );
    const { SIGNING_SECRETS_KEY: _, ...withoutKey } = base;
    expect(() => loadWebhooksConfig(withoutKey)).toThrow(/SIGNING_SECRETS_KEY/);
    expect(loadWebhooksConfig(base).WEBHOOKS_ALLOW_LOCAL_HTTP).toBe(false);
  });
});
