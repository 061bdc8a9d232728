// The identity provider registry: its migration, and the operator commands `ops auth idps ...`.
import { randomBytes } from 'node:crypto';
import { migrateDown, migrateLatest } from '@ordering/db';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { IdentityProviderRepository } from '../src/data-access/identity-provider-repository';
import { authCli } from '../src/entry-points/cli/auth-cli';
import { migrations } from '../migrations';
import { createIdentityProviders } from '../migrations/create-identity-providers-migration';

let db: TestDatabase;
const keyEncryptionKey = randomBytes(32).toString('base64');

beforeAll(async () => {
  db = await createTestDatabase({ service: 'auth', migrations });
});
afterAll(async () => {
  await db?.drop();
});

async function ops(args: string[], env: NodeJS.ProcessEnv = {}): Promise<unknown> {
  const printed: string[] = [];
  const cli = authCli({
    env: { DATABASE_URL: db.url, KEY_ENCRYPTION_KEY: keyEncryptionKey, ...env },
    out: (text) => printed.push(text),
    readSecret: () => Promise.resolve('secret-from-stdin'),
  });
  cli.exitOverride();
  cli.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await cli.parseAsync(['node', 'auth', 'idps', ...args]);
  return JSON.parse(printed.join('\n'));
}

const add = (domain: string, extra: string[] = []) =>
  ops([
    'add',
    '--domain',
    domain,
    '--issuer',
    'https://login.acme.example/',
    '--client-id',
    'ordering',
    '--client-secret',
    'the-client-secret-42',
    '--name',
    'Acme SSO',
    ...extra,
  ]);

describe('ops auth idps', () => {
  it('adds a provider for a domain (lower-cased), lists it without its secret, and removes it', async () => {
    expect(await add('Widgets.Example')).toEqual({
      domain: 'widgets.example',
      issuer: 'https://login.acme.example',
      client_id: 'ordering',
      name: 'Acme SSO',
    });
    const listed = (await ops(['list'])) as Record<string, unknown>[];
    expect(listed).toEqual([
      expect.objectContaining({ domain: 'widgets.example', client_id: 'ordering', name: 'Acme SSO' }),
    ]);
    expect(JSON.stringify(listed)).not.toContain('the-client-secret-42');

    // Stored sealed: not in clear, and only the right key opens it.
    const row = (await db.knex('identity_providers').where({ domain: 'widgets.example' }).first()) as {
      client_secret_encrypted: string;
    };
    expect(row.client_secret_encrypted).toMatch(/^v1\./);
    expect(row.client_secret_encrypted).not.toContain('the-client-secret-42');

    expect(await ops(['remove', 'WIDGETS.example'])).toEqual({ domain: 'widgets.example', removed: true });
    expect(await ops(['list'])).toEqual([]);
    await expect(ops(['remove', 'widgets.example'])).rejects.toThrow(/no identity provider for/);
  });

  it('refuses a second provider for the same domain, a bad domain and a non-https issuer', async () => {
    await add('dup.example');
    await expect(add('dup.example')).rejects.toThrow(/already has an identity provider/);
    await expect(add('not a domain')).rejects.toThrow(/not an e-mail domain/);
    await expect(
      ops([
        'add',
        '--domain',
        'plain.example',
        '--issuer',
        'http://idp.plain.example',
        '--client-id',
        'x',
        '--client-secret',
        'y',
        '--name',
        'Plain',
      ]),
    ).rejects.toThrow(/https/);
    await ops(['remove', 'dup.example']);
  });

  it('reads the client secret from stdin with --client-secret -', async () => {
    await ops([
      'add',
      '--domain',
      'stdin.example',
      '--issuer',
      'http://127.0.0.1:9/',
      '--client-id',
      'x',
      '--client-secret',
      '-',
      '--name',
      'Local',
    ]);
    const repo = new IdentityProviderRepository(db.knex, Buffer.from(keyEncryptionKey, 'base64'));
    expect((await repo.findByDomain('stdin.example'))?.clientSecret).toBe('secret-from-stdin');
    // Another key cannot open it.
    const wrong = new IdentityProviderRepository(db.knex, randomBytes(32));
    await expect(wrong.findByDomain('stdin.example')).rejects.toThrow();
    await ops(['remove', 'stdin.example']);
  });
});

describe('identity_providers migration', () => {
  it('keeps domains lower case, and rolls back and forward', async () => {
    await expect(
      db.knex('identity_providers').insert({
        domain: 'Upper.Example',
        issuer: 'https://x',
        client_id: 'x',
        client_secret_encrypted: 'v1.a.b.c',
        display_name: 'X',
        created_at: new Date(),
      }),
    ).rejects.toThrow(/identity_providers_domain_lower_check/);
    // Step down through the migrations that came after it, then it.
    const reverted: string[] = [];
    while (!reverted.includes(createIdentityProviders.name)) {
      const step = await migrateDown(db.knex, migrations);
      if (step.length === 0) break;
      reverted.push(...step);
    }
    expect(reverted).toContain(createIdentityProviders.name);
    expect(await db.knex.schema.hasTable('identity_providers')).toBe(false);
    expect(await db.knex.schema.hasTable('signing_keys')).toBe(true);
    await migrateLatest(db.knex, migrations);
    expect(await db.knex.schema.hasTable('identity_providers')).toBe(true);
  });
});
