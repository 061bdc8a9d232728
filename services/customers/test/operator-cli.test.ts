// The operator commands (`ops customers ...`, `ops users ...`) against the running service.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { customersCommand, usersCommand } from '../src/entry-points/cli/customers-command';
import { type Harness, startHarness } from './support/customers-harness';

let h: Harness;
let printed: string[];
let spy: jest.SpyInstance;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());
beforeEach(() => {
  printed = [];
  spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(args.join(' '));
  });
});
afterEach(() => spy.mockRestore());

const run = (command: typeof customersCommand, ...args: string[]) =>
  command({ url: h.url, secret: h.secret })
    .exitOverride()
    .parseAsync(['node', 'ops', ...args]);

it('creates and updates an account, adds an address and lists the children', async () => {
  const id = `CLI-${h.suffix}`;
  await run(
    customersCommand,
    'create',
    id,
    '--name',
    'Cli Co',
    '--approval-over',
    '25000',
    '--domains',
    'cli.example,cli2.example',
  );
  expect(JSON.parse(printed.join('\n'))).toMatchObject({
    id,
    approval_required_over: { amount: 25000, currency: 'USD' },
    email_domains: ['cli.example', 'cli2.example'],
  });
  await run(customersCommand, 'create', `${id}-KID`, '--name', 'Kid', '--parent', id);
  await run(customersCommand, 'update', id, '--terms', 'net_60', '--approval-over', 'none', '--jit');
  const account = (await h.admin.getCustomer(id)) as unknown as Record<string, unknown>;
  expect(account).toMatchObject({
    billing_terms: 'net_60',
    approval_required_over: null,
    jit_provisioning: true,
  });

  await run(
    customersCommand,
    'add-address',
    id,
    '--type',
    'shipping',
    '--label',
    'Dock',
    '--street',
    '9 Quay',
    '--city',
    'Hull',
    '--country',
    'GB',
  );
  expect(((await h.admin.getCustomer(id)) as unknown as { addresses: unknown[] }).addresses).toEqual([
    expect.objectContaining({ label: 'Dock', default: true, country: 'GB' }),
  ]);

  printed = [];
  await run(customersCommand, 'list', '--parent', id);
  expect(printed.join('\n')).toContain(`"id": "${id}-KID"`);
});

it('imports a CSV file chosen by its extension', async () => {
  const file = path.join(os.tmpdir(), `accounts-${h.suffix}.csv`);
  fs.writeFileSync(file, `cust_id,name\nIMP-${h.suffix},Imported\n`);
  try {
    await run(customersCommand, 'import', file);
    expect(JSON.parse(printed.join('\n'))).toEqual({ imported: 1, cust_ids: [`IMP-${h.suffix}`] });
  } finally {
    fs.rmSync(file);
  }
});

it('refuses an import file that is not UTF-8, naming its lines, and sends nothing', async () => {
  const file = path.join(os.tmpdir(), `accounts-latin1-${h.suffix}.csv`);
  // Saved as Windows-1252 / Latin-1 (a spreadsheet's default): "é" is the single byte 0xE9.
  fs.writeFileSync(file, Buffer.from(`cust_id,name\nLAT-${h.suffix},Caf\xe9 Ltd\n`, 'latin1'));
  try {
    await expect(run(customersCommand, 'import', file)).rejects.toThrow(/line 2: not UTF-8/);
    await expect(run(customersCommand, 'show', `LAT-${h.suffix}`)).rejects.toThrow(/404/);
  } finally {
    fs.rmSync(file);
  }
});

it('creates a user, sets a password, issues a one-time link and deactivates', async () => {
  const id = `CLIU-${h.suffix}`;
  await h.admin.createCustomer({ cust_id: id, name: 'Users Co' });
  const login = `cli.${h.suffix.toLowerCase()}`;
  await run(
    usersCommand,
    'create',
    login,
    '--cust',
    id,
    '--email',
    `${login}@example.com`,
    '--name',
    'Cli User',
    '--roles',
    'shopper,approver',
  );
  await run(usersCommand, 'set-password', login, '--password', 'cli password 1');
  const verify = await h
    .http()
    .post('/internal/v1/credentials/verify')
    .set('X-Ordering-Identity', h.internalIdentity())
    .send({ login, password: 'cli password 1' });
  expect(verify.body.user).toMatchObject({ login, roles: ['shopper', 'approver'] });

  printed = [];
  await run(usersCommand, 'password-link', login, '--base', 'https://signin.example/set-password');
  const link = JSON.parse(printed.join('\n'));
  expect(link.link).toBe(`https://signin.example/set-password?token=${encodeURIComponent(link.token)}`);

  // Without --base no link: nothing of the platform serves a set-password page to point at.
  printed = [];
  await run(usersCommand, 'password-link', login);
  const bare = JSON.parse(printed.join('\n'));
  expect(bare).toMatchObject({ login, token: expect.any(String) });
  expect(bare).not.toHaveProperty('link');

  printed = [];
  await run(usersCommand, 'deactivate', login);
  expect(JSON.parse(printed.join('\n'))).toMatchObject({ login, status: 'deactivated' });
});

it('reports the service error of a refused command', async () => {
  await expect(run(customersCommand, 'create', 'bad id!', '--name', 'x')).rejects.toThrow(
    /422 invalid_value \(cust_id\)/,
  );
});
