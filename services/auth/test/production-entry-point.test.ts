// The production path (src/start.ts with runService): configuration from the environment, the
// service answering, and a clean stop on SIGTERM.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensureDatabase, withDatabase, createKnex } from '@ordering/db';
import { PG_ADMIN_URL, REDIS_URL, freePort } from '@ordering/testing';

const serviceDir = path.resolve(__dirname, '..');

function run(env: Record<string, string>) {
  // One process (no tsx wrapper in between), so that the signal reaches the service itself.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(serviceDir, 'src', 'start.ts')], {
    cwd: serviceDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('src/start.ts', () => {
  it('starts from the environment, serves discovery and readiness, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const database = `test_auth_start_${randomBytes(4).toString('hex')}`;
    const url = withDatabase(PG_ADMIN_URL, database);
    await ensureDatabase(url);
    const proc = run({
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      DATABASE_URL: url,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test:auth-start:${randomBytes(4).toString('hex')}:`,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      KAFKA_CONSUMER_GROUP: `test-auth-start-${randomBytes(4).toString('hex')}`,
      KAFKA_FROM_BEGINNING: 'false',
      KAFKA_MAX_WAIT_MS: '200',
      INTERNAL_IDENTITY_SECRET: randomBytes(32).toString('hex'),
      AUTH_ISSUER: `http://127.0.0.1:${port}`,
    });
    try {
      const deadline = Date.now() + 25_000;
      let ready = false;
      while (!ready && Date.now() < deadline) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ready).toBe(true);
      const discovery = (await (
        await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)
      ).json()) as { issuer: string };
      expect(discovery.issuer).toBe(`http://127.0.0.1:${port}`);
      // A token request: its form body is read before oidc-provider, which says so on the console.
      const token = await fetch(`http://127.0.0.1:${port}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=nobody&client_secret=nothing',
      });
      expect(token.status).toBe(401);
      proc.child.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(proc.output()).toMatch(/auth stopped/);
      // Every line the process wrote is JSON a log shipper can read, the libraries' too.
      const lines = proc
        .output()
        .split('\n')
        .filter((line) => line.trim() !== '');
      for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    } finally {
      proc.child.kill('SIGKILL');
      const admin = createKnex({ url: PG_ADMIN_URL, pool: { max: 1 } });
      await admin.raw(`drop database if exists "${database}" with (force)`);
      await admin.destroy();
    }
  });

  it('refuses to start in production with the local development secrets', async () => {
    const proc = run({
      NODE_ENV: 'production',
      INTERNAL_IDENTITY_SECRET: randomBytes(32).toString('hex'),
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x',
    });
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toMatch(/CLIENT_SECRET_KEY is the local development value/);
    expect(proc.output()).toMatch(/KEY_ENCRYPTION_KEY is the local development value/);
  });
});
