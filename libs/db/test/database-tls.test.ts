// TLS settings of the environment reach every PostgreSQL client libs/db makes: parsed into
// node-postgres's `ssl` option, and used against the real local server (which has TLS off, so a
// client that asks for TLS is refused by it: proof that the setting took effect).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnex, databaseTlsFromEnv, ensureDatabase } from '../src';
import { ADMIN_URL, uniqueDatabaseUrl } from './db-test-server';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('databaseTlsFromEnv', () => {
  it('is off unless asked, encrypted with `require`, verified with `verify-full` (and the mounted CA)', () => {
    expect(databaseTlsFromEnv({})).toBe(false);
    expect(databaseTlsFromEnv({ DATABASE_SSL_MODE: 'disable' })).toBe(false);
    expect(databaseTlsFromEnv({ DATABASE_SSL_MODE: 'require' })).toEqual({ rejectUnauthorized: false });
    expect(databaseTlsFromEnv({ DATABASE_SSL_MODE: 'verify-full' })).toEqual({ rejectUnauthorized: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-ca-'));
    const file = path.join(dir, 'ca.crt');
    fs.writeFileSync(file, PEM);
    try {
      expect(databaseTlsFromEnv({ DATABASE_SSL_MODE: 'verify-full', DATABASE_SSL_CA_FILE: file })).toEqual({
        rejectUnauthorized: true,
        ca: PEM,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a mode it does not know, and a CA file without verify-full', () => {
    expect(() => databaseTlsFromEnv({ DATABASE_SSL_MODE: 'prefer' })).toThrow(
      "DATABASE_SSL_MODE must be one of disable, require, verify-full, got 'prefer'",
    );
    expect(() =>
      databaseTlsFromEnv({ DATABASE_SSL_MODE: 'require', DATABASE_SSL_CA_FILE: '/ca.crt' }),
    ).toThrow('DATABASE_SSL_CA_FILE needs DATABASE_SSL_MODE=verify-full');
  });
});

describe('the database clients read the settings from the environment', () => {
  const saved = process.env.DATABASE_SSL_MODE;
  afterEach(() => {
    if (saved === undefined) delete process.env.DATABASE_SSL_MODE;
    else process.env.DATABASE_SSL_MODE = saved;
  });

  it('the pool asks the server for TLS, which this server (ssl off) refuses; without the setting it connects', async () => {
    process.env.DATABASE_SSL_MODE = 'require';
    const quiet = { warn: () => {}, error: () => {}, debug: () => {} };
    const tls = createKnex({
      url: ADMIN_URL,
      service: 'tls-test',
      acquireConnectionTimeoutMs: 3000,
      logger: quiet,
    });
    try {
      await expect(tls.raw('select 1')).rejects.toThrow(/does not support SSL/);
    } finally {
      await tls.destroy();
    }
    delete process.env.DATABASE_SSL_MODE;
    const plain = createKnex({ url: ADMIN_URL, service: 'tls-test' });
    try {
      await expect(plain.raw('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    } finally {
      await plain.destroy();
    }
  });

  it('ensureDatabase asks for TLS too', async () => {
    process.env.DATABASE_SSL_MODE = 'verify-full';
    await expect(ensureDatabase(uniqueDatabaseUrl('tls'))).rejects.toThrow(/does not support SSL/);
  });
});
