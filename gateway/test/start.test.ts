// The production path: the esbuild bundle run as its own process (start.ts: config, then
// runService), as the local stack and the container run it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { IDENTITY_SECRET, REDIS_URL } from './support/gateway-harness';
import { RecordingUpstream } from './support/recording-upstream';
import { TestIssuer } from './support/test-issuer';
import { waitFor } from './support/wait-for';

const gatewayDir = path.resolve(__dirname, '..');
const bundleScript = path.resolve(gatewayDir, '../deploy/build/bundle.mjs');

function run(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--enable-source-maps', path.join(gatewayDir, 'dist/start.js')], {
    cwd: gatewayDir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

describe('the bundled gateway process', () => {
  let issuer: TestIssuer;
  let orders: RecordingUpstream;

  beforeAll(async () => {
    await promisify(execFile)(process.execPath, [bundleScript, gatewayDir]);
    issuer = await new TestIssuer().start();
    orders = await new RecordingUpstream('orders').start();
  });
  afterAll(async () => {
    await Promise.all([issuer.close(), orders.close()]);
  });

  it('serves from dist/start.js and exits 0 on SIGTERM', async () => {
    const { child, output } = run({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      AUTH_JWKS_URL: issuer.jwksUrl,
      AUTH_ISSUER: issuer.issuer,
      API_AUDIENCE: issuer.audience,
      INTERNAL_IDENTITY_SECRET: IDENTITY_SECRET,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test:gateway-bundle:${process.pid}:`,
      ORDERS_URL: orders.url,
    });
    try {
      let url = '';
      await waitFor(
        () => {
          url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output())?.[1] ?? '';
          return url !== '' || child.exitCode !== null;
        },
        10_000,
        'the gateway to listen',
      );
      expect(url).not.toBe('');
      await request(url)
        .get('/readyz')
        .expect(200, { status: 'ready', checks: { redis: 'ok' } });
      const res = await request(url)
        .get('/v1/orders')
        .set('Authorization', `Bearer ${issuer.mint()}`)
        .expect(200);
      expect(res.body).toEqual({ service: 'orders', method: 'GET', url: '/v1/orders' });

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(output()).toMatch(/gateway stopped/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('refuses to start with a configuration that names what is wrong', async () => {
    const { child, output } = run({ AUTH_JWKS_URL: 'not a url', INTERNAL_IDENTITY_SECRET: 'short' });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(output()).toMatch(/AUTH_JWKS_URL is malformed/);
    expect(output()).toMatch(/AUTH_ISSUER is missing/);
    expect(output()).toMatch(/INTERNAL_IDENTITY_SECRET is malformed/);
  });
});
