// The sign-in throttle seen from the sign-in page: a tight limit per login and client address, a
// looser ceiling per login across addresses and one per address across logins (real Redis). The
// client's address is what the service trusts: behind the proxy (TRUST_PROXY) the last
// X-Forwarded-For entry, which the proxy wrote; otherwise the connection's peer.
import * as client from 'openid-client';
import { REDIRECT_URI, startAuthHarness, type AuthHarness } from './support/auth-test-harness';
import { Browser, type Page } from './support/browser';

const PASSWORD = 'the right password';

/** Signs `login` in through the real sign-in page, as a client at `forwardedFor` (if any). */
async function attempt(
  h: AuthHarness,
  config: client.Configuration,
  login: string,
  password: string,
  forwardedFor?: string,
): Promise<Page> {
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    state: client.randomState(),
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const browser = new Browser(REDIRECT_URI);
  if (forwardedFor) browser.headers = { 'x-forwarded-for': forwardedFor };
  const page = await browser.open(url.href);
  expect(page.status).toBe(200);
  return browser.submit(page, '/login', { login, password });
}

const signedIn = (page: Page) => page.url.startsWith(REDIRECT_URI);

async function webClient(h: AuthHarness): Promise<client.Configuration> {
  const { client: c, clientSecret } = await h.register({
    type: 'web',
    firstParty: true,
    scopes: ['openid'],
    name: 'Ordering Web',
  });
  return h.discover(c.clientId, clientSecret);
}

describe('behind the trusted proxy (TRUST_PROXY)', () => {
  let h: AuthHarness;
  let config: client.Configuration;
  let n = 0;
  /** A shopper of its own, so that tests do not share counts. */
  const shopper = () => {
    const login = `user${++n}@acme.test`;
    h.customers.add({ login, password: PASSWORD, cust_id: 'ACME' });
    return login;
  };
  const tryAs = (login: string, password: string, address: string) =>
    attempt(h, config, login, password, address);

  beforeAll(async () => {
    h = await startAuthHarness({
      TRUST_PROXY: 'true',
      SIGN_IN_MAX_FAILURES: '3',
      SIGN_IN_LOGIN_MAX_FAILURES: '7',
      SIGN_IN_ADDRESS_MAX_FAILURES: '6',
    });
    config = await webClient(h);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('failures from one address lock that address out of that login only: the user signs in from their own', async () => {
    const victim = shopper();
    for (let i = 0; i < 3; i++) expect((await tryAs(victim, `guess-${i}`, '198.51.100.10')).status).toBe(401);
    const refused = await tryAs(victim, PASSWORD, '198.51.100.10');
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(refused.html).toMatch(
      new RegExp(`role="alert"[^>]*>Too many failed attempts\\. Try again in ${retryAfter} seconds\\.`),
    );

    // The user, at their own address, is not affected by what the stranger sent.
    expect(signedIn(await tryAs(victim, PASSWORD, '203.0.113.20'))).toBe(true);
    // The stranger's address stays locked out for that login, but not for another one.
    expect((await tryAs(victim, PASSWORD, '198.51.100.10')).status).toBe(429);
    expect(signedIn(await tryAs(shopper(), PASSWORD, '198.51.100.10'))).toBe(true);
    // The customers service was told the address (it keys its own slow-down by it too).
    expect(h.customers.verifiedAddresses.slice(-2)).toEqual(['203.0.113.20', '198.51.100.10']);
  });

  it('failures spread over many addresses meet the per-login ceiling, for every address', async () => {
    const victim = shopper();
    for (let i = 1; i <= 7; i++) expect((await tryAs(victim, `guess-${i}`, `192.0.2.${i}`)).status).toBe(401);
    const refused = await tryAs(victim, PASSWORD, '192.0.2.100');
    expect(refused.status).toBe(429);
    // The ceiling's window (an hour) is what is left to wait, not the tight limit's.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(900);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    // Another login from that same fresh address is not affected.
    expect(signedIn(await tryAs(shopper(), PASSWORD, '192.0.2.100'))).toBe(true);
  });

  it('many logins tried from one address meet the per-address ceiling; other addresses are not affected', async () => {
    const logins = Array.from({ length: 7 }, () => shopper());
    for (const login of logins.slice(0, 6))
      expect((await tryAs(login, 'stuffed password', '198.51.100.66')).status).toBe(401);
    const refused = await tryAs(logins[6]!, PASSWORD, '198.51.100.66');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(signedIn(await tryAs(logins[6]!, PASSWORD, '198.51.100.67'))).toBe(true);
    expect(signedIn(await tryAs(logins[0]!, PASSWORD, '198.51.100.67'))).toBe(true);
  });

  it('successful sign-ins do not count towards the per-address ceiling (an office behind one address)', async () => {
    for (let i = 0; i < 8; i++)
      expect(signedIn(await tryAs(shopper(), PASSWORD, '198.51.100.80'))).toBe(true);
  });

  it('a success clears its address count for the login and takes only that address share off the ceiling', async () => {
    const login = shopper();
    // The user's own typos: a success clears them, so the next typos start from zero.
    expect((await tryAs(login, 'typo', '203.0.113.1')).status).toBe(401);
    expect((await tryAs(login, 'typo', '203.0.113.1')).status).toBe(401);
    expect(signedIn(await tryAs(login, PASSWORD, '203.0.113.1'))).toBe(true);
    expect((await tryAs(login, 'typo', '203.0.113.1')).status).toBe(401);
    expect((await tryAs(login, 'typo', '203.0.113.1')).status).toBe(401);
    expect(signedIn(await tryAs(login, PASSWORD, '203.0.113.1'))).toBe(true);

    // A guesser at two addresses: 5 of the ceiling's 7 (the first address locked out).
    for (let i = 0; i < 3; i++) expect((await tryAs(login, `guess-${i}`, '203.0.113.2')).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await tryAs(login, `guess-${i}`, '203.0.113.3')).status).toBe(401);
    // The user's typo and success from their own address count 7, then take their own 2 back...
    expect((await tryAs(login, 'typo', '203.0.113.1')).status).toBe(401);
    expect(signedIn(await tryAs(login, PASSWORD, '203.0.113.1'))).toBe(true);
    // ...and do not clear the guesser's addresses.
    expect((await tryAs(login, PASSWORD, '203.0.113.2')).status).toBe(429);
    // Two more failures elsewhere reach the ceiling: the guesser's 5 were kept.
    expect((await tryAs(login, 'guess', '203.0.113.4')).status).toBe(401);
    expect((await tryAs(login, 'guess', '203.0.113.4')).status).toBe(401);
    expect((await tryAs(login, PASSWORD, '203.0.113.5')).status).toBe(429);
  });

  it('counts an IPv6 client by its /64, and an IPv4-mapped address as its IPv4', async () => {
    const login = shopper();
    for (const address of ['2001:db8:1:2::a', '2001:db8:1:2:0:0:0:b', '2001:DB8:1:2:ffff::c'])
      expect((await tryAs(login, 'guess', address)).status).toBe(401);
    expect((await tryAs(login, PASSWORD, '2001:db8:1:2:1234:5678:9abc:def0')).status).toBe(429);
    expect(signedIn(await tryAs(login, PASSWORD, '2001:db8:1:3::1'))).toBe(true);

    // The keys themselves: libs/http/test/address-key.test.ts.
  });

  it('takes the address the proxy wrote: entries the client put before it are not a fresh count', async () => {
    const login = shopper();
    for (let i = 0; i < 3; i++)
      expect((await tryAs(login, `guess-${i}`, `10.9.8.${i}, 198.51.100.99`)).status).toBe(401);
    expect((await tryAs(login, PASSWORD, '10.9.8.200, 198.51.100.99')).status).toBe(429);
    expect((await tryAs(login, PASSWORD, '198.51.100.99')).status).toBe(429);
    expect(h.customers.verifiedAddresses.slice(-3)).toEqual(Array(3).fill('198.51.100.99'));
  });

  it('answers a right password within the limits by signing in, without counting it', async () => {
    const login = shopper();
    for (let i = 0; i < 5; i++) expect(signedIn(await tryAs(login, PASSWORD, '203.0.113.90'))).toBe(true);
  });
});

describe('without a trusted proxy', () => {
  let h: AuthHarness;
  let config: client.Configuration;

  beforeAll(async () => {
    h = await startAuthHarness({ SIGN_IN_MAX_FAILURES: '3' });
    config = await webClient(h);
    h.customers.add({ login: 'dora', password: PASSWORD, cust_id: 'ACME' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a forged X-Forwarded-For does not make a fresh count: the connection peer is the address', async () => {
    for (let i = 0; i < 3; i++)
      expect((await attempt(h, config, 'dora', `guess-${i}`, `203.0.113.${i + 1}`)).status).toBe(401);
    const refused = await attempt(h, config, 'dora', PASSWORD, '203.0.113.50');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(h.customers.verifiedAddresses).toEqual(Array(3).fill('127.0.0.1'));
  });
});
