// TLS and SASL settings of the environment reach every Kafka client createKafka builds: parsed into
// kafkajs's options, and used against the real (plaintext, no SASL) test broker, which then refuses
// the SASL handshake or the TLS connection.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
const testBrokers = () =>
  (process.env.KAFKA_BROKERS ?? `127.0.0.1:${process.env.TEST_KAFKA_PORT ?? 29092}`).split(',');
import { createKafka, kafkaConfig, kafkaSecurityFromEnv } from '../src';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('kafkaSecurityFromEnv', () => {
  it('is plaintext without SASL when nothing is set (the local broker)', () => {
    expect(kafkaSecurityFromEnv({})).toEqual({});
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'false', KAFKA_SASL_MECHANISM: '' })).toEqual({});
  });

  it('turns on TLS with the system CAs, or with the CA file the chart mounts', () => {
    expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'true' })).toEqual({ ssl: true });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-ca-'));
    const file = path.join(dir, 'ca.crt');
    fs.writeFileSync(file, PEM);
    try {
      expect(kafkaSecurityFromEnv({ KAFKA_SSL: 'true', KAFKA_SSL_CA_FILE: file })).toEqual({
        ssl: { ca: [PEM] },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(() => kafkaSecurityFromEnv({ KAFKA_SSL_CA_FILE: '/nonexistent/ca.crt' })).toThrow(
      'KAFKA_SSL_CA_FILE: cannot read /nonexistent/ca.crt',
    );
    expect(() => kafkaSecurityFromEnv({ KAFKA_SSL: 'maybe' })).toThrow(
      "KAFKA_SSL must be true or false, got 'maybe'",
    );
  });

  it('passes SASL credentials for the mechanisms kafkajs speaks, and refuses others or missing ones', () => {
    expect(
      kafkaSecurityFromEnv({
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'orders',
        KAFKA_SASL_PASSWORD: 'secret',
      }),
    ).toEqual({ sasl: { mechanism: 'scram-sha-512', username: 'orders', password: 'secret' } });
    expect(() => kafkaSecurityFromEnv({ KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(
      "KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512, got 'gssapi'",
    );
    expect(() => kafkaSecurityFromEnv({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u' })).toThrow(
      'KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD are required',
    );
  });
});

describe('createKafka reads the settings from the environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('puts them into the client configuration', () => {
    process.env.KAFKA_SSL = 'true';
    process.env.KAFKA_SASL_MECHANISM = 'scram-sha-256';
    process.env.KAFKA_SASL_USERNAME = 'auth';
    process.env.KAFKA_SASL_PASSWORD = 'pw';
    expect(kafkaConfig({ clientId: 'x', brokers: ['b:9093'] })).toMatchObject({
      ssl: true,
      sasl: { mechanism: 'scram-sha-256', username: 'auth', password: 'pw' },
    });
  });

  it('a client asked for SASL really authenticates: the plaintext test broker refuses the handshake', async () => {
    process.env.KAFKA_SASL_MECHANISM = 'plain';
    process.env.KAFKA_SASL_USERNAME = 'someone';
    process.env.KAFKA_SASL_PASSWORD = 'wrong';
    const admin = createKafka({
      clientId: 'sasl-test',
      brokers: testBrokers(),
      retry: { retries: 0 },
    }).admin();
    await expect(admin.connect()).rejects.toThrow(/SASL|sasl/);
    await admin.disconnect();
  });

  it('a client asked for TLS really speaks TLS: the plaintext test broker cannot be reached', async () => {
    process.env.KAFKA_SSL = 'true';
    const admin = createKafka({
      clientId: 'tls-test',
      brokers: testBrokers(),
      retry: { retries: 0 },
      connectionTimeoutMs: 1500,
      requestTimeoutMs: 1500,
    }).admin();
    await expect(admin.connect()).rejects.toThrow();
    await admin.disconnect();
    // The same client without TLS connects: the refusal came from TLS, not from the broker being away.
    delete process.env.KAFKA_SSL;
    const plain = createKafka({ clientId: 'tls-test', brokers: testBrokers() }).admin();
    await plain.connect();
    await plain.disconnect();
  });
});
