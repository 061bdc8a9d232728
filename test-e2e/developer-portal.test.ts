// The developer portal in a real headless browser (Debian's chromium driven by playwright-core)
// against the real platform, each part its own process: customers, auth, the gateway, webhooks
// and the portal. An account admin signs in through the auth service's code flow with PKCE, and
// goes through every page; each page passes axe-core (WCAG 2.1 AA), fits a phone's width, loads
// nothing from elsewhere and is kept as a screenshot in test-results/developer-portal/.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { authCli, migrations as authMigrations, registerPortalClient } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { migrations as webhooksMigrations } from '@ordering/webhooks-service';
import { createTestDatabase, waitUntil, type TestDatabase, freePort } from '@ordering/testing';
import { accessibilityViolations, fitsWidth, launchChromium, screenshot } from './support/headless-browser';
import { startAuthProcess, startCustomersProcess } from './support/platform-processes';
import { startServiceProcess, type ServiceProcess } from './support/service-process';

jest.setTimeout(180_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `PORTAL-${suffix}`;
const adminLogin = `admin-${suffix.toLowerCase()}`;
const shopperLogin = `shopper-${suffix.toLowerCase()}`;
const password = `portal-password-${suffix}`;
const audience = 'http://api.e2e.test';
const redisPrefix = `e2e-portal-${suffix}:`;
const portalClientSecret = randomBytes(24).toString('base64url');
const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

let customersDb: TestDatabase;
let authDb: TestDatabase;
let webhooksDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess & { issuer: string };
let webhooks: ServiceProcess;
let gateway: ServiceProcess;
let portal: ServiceProcess;
let browser: Browser;
let integration: { client_id: string; client_secret: string };

/** Every request the pages made, to check that nothing came from another origin. */
const requested: string[] = [];

async function register(scopes: string): Promise<{ client_id: string; client_secret: string }> {
  let printed = '';
  await authCli({ env: { ...process.env, DATABASE_URL: authDb.url }, out: (t) => (printed += t) }).parseAsync(
    ['clients', 'register', '--name', `ERP sync ${suffix}`, '--type', 'service', '--scopes', scopes].concat([
      '--cust-id',
      custId,
      '--login',
      adminLogin,
    ]),
    { from: 'user' },
  );
  return JSON.parse(printed) as { client_id: string; client_secret: string };
}

async function clientCredentials(id: string, clientSecret: string): Promise<number> {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${id}:${clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'orders:read' }),
  });
  return res.status;
}

async function newContext(viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  context.on('request', (r) => requested.push(r.url()));
  return context;
}

/** Through the portal's "Sign in" to the auth service's page and back, signed in. */
async function signIn(page: Page, login: string): Promise<void> {
  await page.goto(portal.url);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await page.waitForURL(`${auth.url}/**`);
  await page.getByLabel('Login').fill(login);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${portal.url}/**`);
}

/** The checks every page passes: accessible, phone-width, our CSP; then its screenshot. */
async function checkPage(page: Page, name: string): Promise<void> {
  expect({ page: name, violations: await accessibilityViolations(page) }).toEqual({
    page: name,
    violations: [],
  });
  await screenshot(page, name);
  const size = page.viewportSize();
  await page.setViewportSize(PHONE);
  expect({ page: name, fits: await fitsWidth(page) }).toEqual({ page: name, fits: true });
  await screenshot(page, `${name}.phone`);
  if (size) await page.setViewportSize(size);
}

beforeAll(async () => {
  [customersDb, authDb, webhooksDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
    createTestDatabase({ service: 'webhooks', migrations: webhooksMigrations }),
  ]);
  customers = await startCustomersProcess({ databaseUrl: customersDb.url, brokers, secret });
  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Portal ${suffix}`, currency: 'USD' });
  for (const [login, roles] of [
    [adminLogin, ['admin']],
    [shopperLogin, ['shopper']],
  ] as const) {
    await admin.createUser({
      cust_id: custId,
      login,
      email: `${login}@e2e.example`,
      name: `Pat ${login}`,
      roles,
    });
    await admin.setPassword(login, password);
  }

  auth = await startAuthProcess({
    databaseUrl: authDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    audience,
    redisPrefix,
    consumerGroup: `auth-portal-${suffix}`,
  });
  webhooks = await startServiceProcess('services/webhooks', {
    DATABASE_URL: webhooksDb.url,
    KAFKA_BROKERS: brokers,
    INTERNAL_IDENTITY_SECRET: secret,
    KAFKA_GROUP_ID: `webhooks.portal-${suffix}`,
    KAFKA_FROM_BEGINNING: 'false',
    WEBHOOKS_ALLOW_LOCAL_HTTP: 'true',
    // The 24 h retry horizon in about a second: a delivery to a failing receiver fails for good soon.
    DELIVERY_CLOCK_SPEED: '100000',
  });
  gateway = await startServiceProcess('gateway', {
    AUTH_JWKS_URL: `${auth.issuer}/oauth/jwks.json`,
    AUTH_ISSUER: auth.issuer,
    API_AUDIENCE: audience,
    INTERNAL_IDENTITY_SECRET: secret,
    CUSTOMERS_URL: customers.url,
    AUTH_URL: auth.url,
    WEBHOOKS_URL: webhooks.url,
    REDIS_KEY_PREFIX: redisPrefix,
  });

  const portalPort = await freePort();
  const portalUrl = `http://127.0.0.1:${portalPort}`;
  await registerPortalClient(
    { ...process.env, DATABASE_URL: authDb.url },
    { clientId: `portal-${suffix}`, secret: portalClientSecret, redirectUri: `${portalUrl}/callback` },
  );
  portal = await startServiceProcess(
    'services/developer-portal',
    {
      PORTAL_PUBLIC_URL: portalUrl,
      AUTH_ISSUER: auth.issuer,
      GATEWAY_URL: gateway.url,
      PORTAL_CLIENT_ID: `portal-${suffix}`,
      PORTAL_CLIENT_SECRET: portalClientSecret,
      REDIS_KEY_PREFIX: redisPrefix,
    },
    { port: portalPort },
  );
  integration = await register('orders:read');
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([
    portal?.stop(),
    gateway?.stop(),
    webhooks?.stop(),
    auth?.stop(),
    customers?.stop(),
  ]);
  await Promise.allSettled([customersDb?.drop(), authDb?.drop(), webhooksDb?.drop()]);
});

describe('developer portal: webhook subscriptions and their deliveries', () => {
  it('creates, tests, edits, disables, rotates, replays one and a range after a dry run, and deletes', async () => {
    let status = 200;
    const receiver = await startReceiver(() => status);
    const context = await newContext();
    const page = await context.newPage();
    try {
      await signIn(page, adminLogin);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await expect(page.getByText('No subscriptions yet.').count()).resolves.toBe(1);
      await checkPage(page, '10-webhooks-empty');

      // Create: the form, a refusal shown on it, then the subscription and its secret, once.
      await page.getByRole('link', { name: 'New subscription' }).click();
      await checkPage(page, '11-webhook-new');
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Create subscription' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/at least one event/);
      await page.getByLabel('order.shipped').check();
      await page.getByLabel('user.created').check();
      await page.getByLabel(/Description/).fill('ERP inbox');
      await page.getByLabel(/In order per resource/).check();
      await page.getByRole('button', { name: 'Create subscription' }).click();
      const signingSecret = await page.getByLabel('New secret').inputValue();
      expect(signingSecret.length).toBeGreaterThan(20);
      await checkPage(page, '12-webhook-created-secret');
      await page.getByRole('link', { name: 'Go to the subscription' }).click();
      const subscriptionUrl = page.url();
      await expect(page.getByText('in order per resource').count()).resolves.toBe(1);
      expect(await page.content()).not.toContain(signingSecret);
      await checkPage(page, '13-webhook');

      // A test event, delivered to the receiver; its delivery and attempt in the list and detail.
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/Test event sent/);
      await waitUntil(
        async () => {
          await page.reload();
          return (await page.getByText('succeeded').count()) > 0;
        },
        20_000,
        'the deliveries page to show it',
      );
      await checkPage(page, '14-deliveries');
      await page
        .getByRole('row', { name: /webhook\.test/ })
        .getByRole('link')
        .click();
      await expect(page.getByRole('region', { name: 'Attempts' }).textContent()).resolves.toMatch(/200/);
      await checkPage(page, '15-delivery');
      await page.getByRole('button', { name: 'Replay this delivery' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/queued again/);
      await waitUntil(
        async () => {
          await page.reload();
          return (await page.getByRole('region', { name: 'Attempts' }).getByRole('row').count()) > 2;
        },
        20_000,
        'the deliveries page to show it',
      );

      // The receiver goes down: a second test event fails for good (the sped-up 24 h).
      status = 503;
      await page.goto(subscriptionUrl);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      // The form's answer first: a reload while its navigation is still under way loses the page.
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/Test event sent/);
      await waitUntil(
        async () => {
          await page.reload();
          // A row of the list that says failed (the status filter's own option says it too).
          const rows = page
            .getByRole('region', { name: 'Deliveries' })
            .getByRole('row', { name: /\bfailed\b/ });
          return (await rows.count()) > 0;
        },
        30_000,
        'the deliveries page to show it',
      );

      // Filters: only the failed one, then none of another event type.
      await page.getByLabel('Status').selectOption('failed');
      await page.getByRole('button', { name: 'Filter' }).click();
      expect(await page.getByRole('region', { name: 'Deliveries' }).getByRole('row').count()).toBe(2);
      expect(new URL(page.url()).searchParams.get('status')).toBe('failed');
      await checkPage(page, '16-deliveries-failed');
      await page.getByLabel('Event type').selectOption('order.shipped');
      await page.getByRole('button', { name: 'Filter' }).click();
      await expect(page.getByText('No deliveries match.').count()).resolves.toBe(1);

      // Replay a range: the dry run counts one failed delivery, then it is sent again.
      status = 200;
      await page.getByRole('link', { name: /Replay failed deliveries/ }).click();
      await checkPage(page, '17-replay');
      await page.getByRole('button', { name: 'Count failed deliveries' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(
        /1\s+failed delivery in\s+this range/,
      );
      await checkPage(page, '18-replay-dry-run');
      await page.getByRole('button', { name: 'Replay 1 delivery' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(
        /1\s+failed\s+delivery\s+queued\s+again/,
      );
      await waitUntil(
        async () => {
          await page.goto(`${subscriptionUrl}/deliveries?status=failed`);
          return (await page.getByText('No deliveries match.').count()) === 1;
        },
        20_000,
        'the deliveries page to show it',
      );

      // Edit, disable, rotate the signing secret (shown once), delete.
      await page.goto(subscriptionUrl);
      await page.getByRole('link', { name: 'Edit' }).click();
      await checkPage(page, '19-webhook-edit');
      await page.getByLabel(/Description/).fill('ERP inbox, orders only');
      await page.getByLabel('user.created').uncheck();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/Changes saved/);
      await expect(page.getByText('ERP inbox, orders only').count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Disable' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/disabled/);
      // Disabled: no event is sent, so the page says so and offers no replay; a test still can be.
      await expect(page.getByRole('note').textContent()).resolves.toMatch(
        /no event is sent to this endpoint/,
      );
      await expect(page.getByRole('button', { name: 'Send a test event' }).count()).resolves.toBe(1);
      await expect(page.getByRole('link', { name: 'Replay failed deliveries' }).count()).resolves.toBe(0);
      await checkPage(page, '19-webhook-disabled');
      await page.getByRole('button', { name: 'Rotate signing secret' }).click();
      const rotated = await page.getByLabel('New secret').inputValue();
      expect(rotated).not.toBe(signingSecret);
      await checkPage(page, '20-webhook-rotated-secret');
      await page.goto(subscriptionUrl);
      await page.getByRole('link', { name: 'Delete' }).click();
      await checkPage(page, '21-webhook-delete');
      await page.getByRole('button', { name: 'Delete subscription' }).click();
      await expect(page.getByRole('status').textContent()).resolves.toMatch(/deleted/);
      await expect(page.getByText('No subscriptions yet.').count()).resolves.toBe(1);
    } finally {
      await context.close();
      await receiver.close();
    }
  });
});

describe('developer portal: sign-in and OAuth clients', () => {
  it('signs an admin in with the code flow (tokens stay on the server) and rotates a client secret shown once', async () => {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto(portal.url);
    const home = await page.request.get(portal.url);
    expect(home.headers()['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    await checkPage(page, '01-signed-out');

    await signIn(page, adminLogin);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Developer portal');
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Webhooks', 'OAuth clients']);
    // Only an opaque, HttpOnly session cookie (cookies are per host, not per port: the auth
    // service's own, on the same 127.0.0.1, are left out); nothing in browser storage.
    const cookies = (await context.cookies(portal.url)).filter((c) => c.name.startsWith('portal'));
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite])).toEqual([['portal_session', true, 'Lax']]);
    expect(cookies[0]!.value).not.toContain('.');
    expect(await page.evaluate<number>('localStorage.length + sessionStorage.length')).toBe(0);
    await checkPage(page, '02-home');

    await nav.getByRole('link', { name: 'OAuth clients' }).click();
    const row = page.getByRole('row', { name: new RegExp(integration.client_id) });
    await expect(row.textContent()).resolves.toMatch(/due in 180 days/);
    expect(await page.content()).not.toContain(integration.client_secret);
    await checkPage(page, '03-oauth-clients');

    // By keyboard: Tab to the rotation button of that client and press Enter.
    const button = row.getByRole('button', { name: /Rotate secret/ });
    await button.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${portal.url}/oauth-clients/*/rotate-secret`);
    const fresh = await page.getByLabel('New secret').inputValue();
    expect(fresh).toMatch(/^cs_/);
    await expect(page.getByText(/keeps working until/).count()).resolves.toBe(1);
    await checkPage(page, '04-oauth-client-new-secret');
    // The new secret works, and so does the old one for 24 hours.
    expect(await clientCredentials(integration.client_id, fresh)).toBe(200);
    expect(await clientCredentials(integration.client_id, integration.client_secret)).toBe(200);

    // Shown once: the list does not show it again.
    await page.goto(`${portal.url}/oauth-clients`);
    expect(await page.content()).not.toContain(fresh);
    await expect(page.getByText(/Previous secret works until/).count()).resolves.toBe(1);

    // A form post without the session's CSRF token is refused, and changes nothing.
    const forged = await context.request.post(
      `${portal.url}/oauth-clients/${integration.client_id}/rotate-secret`,
      {
        form: { csrf_token: 'forged' },
        maxRedirects: 0,
      },
    );
    expect(forged.status()).toBe(403);
    expect(await clientCredentials(integration.client_id, fresh)).toBe(200);

    // Sign-out ends the session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${portal.url}/`);
    expect((await context.cookies(portal.url)).filter((c) => c.name.startsWith('portal'))).toEqual([]);
    const after = await context.request.get(`${portal.url}/oauth-clients`, { maxRedirects: 0 });
    expect(after.status()).toBe(303);
    expect(after.headers().location).toBe('/sign-in?return_to=%2Foauth-clients');
    await context.close();
  });

  it('tells a user whose role does not grant admin:all that these pages are for admins', async () => {
    const context = await newContext(PHONE);
    const page = await context.newPage();
    await signIn(page, shopperLogin);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/role does not allow/);
    const res = await page.goto(`${portal.url}/webhooks`);
    expect(res?.status()).toBe(403);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Administrators only');
    await checkPage(page, '05-not-an-admin');
    await context.close();
  });

  it('loaded nothing from anywhere but the portal and the auth service', () => {
    const origins = new Set(requested.map((u) => new URL(u).origin));
    expect([...origins].sort()).toEqual([new URL(auth.url).origin, new URL(portal.url).origin].sort());
  });
});

/** A receiver of webhook deliveries on loopback (the webhooks service allows it in development). */
export async function startReceiver(answer: () => number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = answer();
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
