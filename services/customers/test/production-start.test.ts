// The production path: src/start.ts as its own process, configured by the environment, ready on
// /readyz, and stopped cleanly (exit 0) by SIGTERM.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { withDatabase } from '@ordering/db';
import { PG_ADMIN_URL } from '@ordering/testing';
import pg from 'pg';

const database = `test_customers_start_${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  await client.query(`drop database if exists "${database}" with (force)`);
  await client.end();
});

it('starts from the environment (creating and migrating its database), serves, and exits 0 on SIGTERM', async () => {
  const root = path.resolve(__dirname, '..', '..', '..');
  // node itself (not the tsx wrapper) receives the signal, as in production.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'src', 'start.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: withDatabase(PG_ADMIN_URL, database),
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      INTERNAL_IDENTITY_SECRET: 'start-test-secret',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (d) => (output += String(d)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening within 20 s:\n${output}`)), 20_000);
    child.stdout.on('data', (d: Buffer) => {
      output += String(d);
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const health = await fetch(`${url}/readyz`);
    expect(health.status).toBe(200);
    const unauthenticated = await fetch(`${url}/v1/users`);
    expect(unauthenticated.status).toBe(401);
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(output).toContain('customers stopped');
});
