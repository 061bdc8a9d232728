// The gateway's Redis connection takes TLS from the environment (REDIS_TLS_CA_FILE, the CA the chart
// mounts for a Redis with a private CA): against the local Redis, which speaks plaintext, a client
// that insists on TLS cannot connect (the gateway serves degraded), the same client without it can.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { redisTlsFromEnv } from '@ordering/config';
import { createLogger } from '@ordering/http';
import { REDIS_URL } from './support/gateway-harness';
import { createRedisConnection } from '../src/redis-connection';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const logger = createLogger({ service: 'redis-tls-test', level: 'silent' });

describe('Redis TLS from the environment', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-ca-'));
  const caFile = path.join(dir, 'ca.crt');
  fs.writeFileSync(caFile, PEM);
  afterAll(() => {
    delete process.env.REDIS_TLS_CA_FILE;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads the CA file into the client options, and names the variable when the file is missing', () => {
    expect(redisTlsFromEnv({})).toEqual({});
    expect(redisTlsFromEnv({ REDIS_TLS_CA_FILE: caFile })).toEqual({ tls: { ca: PEM } });
    expect(() => redisTlsFromEnv({ REDIS_TLS_CA_FILE: path.join(dir, 'missing.crt') })).toThrow(
      /REDIS_TLS_CA_FILE: cannot read/,
    );
  });

  it('the gateway connection speaks TLS when told to (refused by the plaintext Redis), plaintext otherwise', async () => {
    process.env.REDIS_TLS_CA_FILE = caFile;
    const tls = createRedisConnection({ url: REDIS_URL, commandTimeoutMs: 250, logger });
    try {
      await tls.settle(2000);
      expect(tls.usable()).toBe(false);
      await expect(tls.redis.ping()).rejects.toThrow();
    } finally {
      await tls.close();
    }
    delete process.env.REDIS_TLS_CA_FILE;
    const plain = createRedisConnection({ url: REDIS_URL, commandTimeoutMs: 250, logger });
    try {
      // Connected within a bound that leaves room for a busy machine.
      const deadline = Date.now() + 15_000;
      while (!plain.usable() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(plain.usable()).toBe(true);
      await expect(plain.redis.ping()).resolves.toBe('PONG');
    } finally {
      await plain.close();
    }
  });
});
