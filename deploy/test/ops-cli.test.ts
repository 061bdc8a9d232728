// The operator CLI as operators run it: a separate process publishing onto the real broker.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { FulfilmentUpdate, TOPICS, exampleUser, parseEvent } from '@ordering/contracts';
import { createKnex, dropDatabase, ensureDatabase, withDatabase } from '@ordering/db';
import { PG_ADMIN_URL, readTopic, unique, type TopicReader } from '@ordering/testing';

/** This file's import files, removed after its tests. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'ops-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(',');
const kafka = new Kafka({ clientId: unique('ops-cli-test'), brokers, logLevel: logLevel.NOTHING });
const root = path.resolve(__dirname, '..', '..');

function ops(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'deploy/ops/cli.ts', ...args], {
      cwd: root,
      env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

let fulfilment: TopicReader;
let users: TopicReader;

beforeAll(async () => {
  [fulfilment, users] = await Promise.all([
    readTopic(kafka, TOPICS.fulfilment),
    readTopic(kafka, TOPICS.users),
  ]);
});
afterAll(async () => {
  await Promise.all([fulfilment.stop(), users.stop()]);
});

describe('ops fulfilment', () => {
  it('publishes a shipped update that the contract accepts, keyed by the order id', async () => {
    const orderId = unique('ord');
    const result = await ops([
      'fulfilment',
      orderId,
      'shipped',
      '--carrier',
      'UPS',
      '--tracking',
      '1Z999',
      '--estimated-delivery',
      '2026-12-01',
      '--brokers',
      brokers.join(','),
    ]);
    expect(result).toMatchObject({ code: 0 });
    const mine = () => fulfilment.messages.filter((m) => m.key === orderId);
    await fulfilment.waitFor(() => mine().length > 0);
    const update = FulfilmentUpdate.parse(JSON.parse(mine()[0]!.value!));
    expect(update).toMatchObject({
      order_id: orderId,
      status: 'shipped',
      shipment: { carrier: 'UPS', tracking_number: '1Z999', estimated_delivery: '2026-12-01' },
    });
  });

  it('refuses an unknown status without publishing, naming the problem', async () => {
    const result = await ops(['fulfilment', unique('ord'), 'teleported', '--brokers', brokers.join(',')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/status/);
  });

  it("names each missing or bad field of a shipped update in a line of its own, not the contract's JSON", async () => {
    const result = await ops(['fulfilment', unique('ord'), 'shipped', '--brokers', brokers.join(',')]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('invalid input:');
    expect(result.stderr).toMatch(/^ {2}- shipment\.tracking_number: .+$/m);
    expect(result.stderr).not.toMatch(/"code":|^\[/m);
  });
});

describe('ops event', () => {
  it('publishes a domain event in the spec envelope to its topic', async () => {
    const login = unique('ops-user');
    const file = path.join(scratch, 'user.json');
    fs.writeFileSync(file, JSON.stringify(exampleUser({ login, id: login, cust_id: 'OPS' })));
    const result = await ops([
      'event',
      'user.created',
      '--cust-id',
      'OPS',
      '--data-file',
      file,
      '--brokers',
      brokers.join(','),
    ]);
    expect(result).toMatchObject({ code: 0 });
    const mine = () => users.messages.filter((m) => m.key === login);
    await users.waitFor(() => mine().length > 0);
    const event = parseEvent(JSON.parse(mine()[0]!.value!));
    expect(event).toMatchObject({ object: 'event', type: 'user.created', cust_id: 'OPS', api_version: 'v1' });
  });

  it('refuses data that does not match the event type', async () => {
    const file = path.join(scratch, 'bad.json');
    fs.writeFileSync(file, JSON.stringify({ login: 42 }));
    const result = await ops([
      'event',
      'user.created',
      '--cust-id',
      'OPS',
      '--data-file',
      file,
      '--brokers',
      brokers.join(','),
    ]);
    expect(result.code).not.toBe(0);
  });

  it("speaks to the brokers with the environment's SASL settings, as the processes do", async () => {
    // The plaintext test broker refuses the SASL handshake: a client that ignored the settings
    // would publish, and could never reach a cluster's brokers that require them.
    const login = unique('ops-sasl-user');
    const file = path.join(scratch, 'sasl-user.json');
    fs.writeFileSync(file, JSON.stringify(exampleUser({ login, id: login, cust_id: 'OPS' })));
    const result = await ops(
      ['event', 'user.created', '--cust-id', 'OPS', '--data-file', file, '--brokers', brokers.join(',')],
      {
        ...process.env,
        KAFKA_SASL_MECHANISM: 'plain',
        KAFKA_SASL_USERNAME: 'ops',
        KAFKA_SASL_PASSWORD: 'wrong',
      },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/SASL|sasl/);
  });
});

describe('ops auth', () => {
  it("refuses to rotate with a KEY_ENCRYPTION_KEY that does not open the environment's keys, changing nothing", async () => {
    const url = withDatabase(
      PG_ADMIN_URL,
      `${unique('opsauthkek')
        .replace(/[^a-z0-9]/gi, '_')
        .toLowerCase()}`,
    );
    await ensureDatabase(url);
    const environmentKey = randomBytes(32).toString('base64');
    const { KEY_ENCRYPTION_KEY: _unset, ...env } = process.env;
    try {
      const first = await ops(['auth', 'keys', 'rotate'], {
        ...env,
        DATABASE_URL: url,
        KEY_ENCRYPTION_KEY: environmentKey,
      });
      expect(first).toMatchObject({ code: 0 });
      // The operator forgot the environment's key: the local default would seal the new key.
      const forgotten = await ops(['auth', 'keys', 'rotate'], { ...env, DATABASE_URL: url });
      expect(forgotten.code).not.toBe(0);
      expect(forgotten.stderr).toContain('KEY_ENCRYPTION_KEY does not open the active signing key');
      const knex = createKnex({ url, service: 'ops-cli-test' });
      try {
        const rows = await knex('signing_keys').select('kid', 'status');
        expect(rows).toEqual([{ kid: JSON.parse(first.stdout).kid, status: 'active' }]);
      } finally {
        await knex.destroy();
      }
    } finally {
      await dropDatabase(url);
    }
  }, 120_000);

  it("works on the local stack's auth database, DATABASE_NAME_PREFIX included, without DATABASE_URL", async () => {
    const prefix = `${unique('opsauth')
      .replace(/[^a-z0-9]/gi, '_')
      .toLowerCase()}_`;
    const url = withDatabase(PG_ADMIN_URL, `${prefix}auth`);
    await ensureDatabase(url);
    const { DATABASE_URL: _ignored, ...env } = process.env;
    try {
      const result = await ops(['auth', 'keys', 'rotate'], {
        ...env,
        DATABASE_BASE_URL: PG_ADMIN_URL.replace(/\/[^/]*$/, ''),
        DATABASE_NAME_PREFIX: prefix,
      });
      expect(result).toMatchObject({ code: 0 });
      const knex = createKnex({ url, service: 'ops-cli-test' });
      try {
        const rows = await knex('signing_keys').select('kid');
        expect(rows.map((r: { kid: string }) => r.kid)).toEqual([JSON.parse(result.stdout).kid]);
      } finally {
        await knex.destroy();
      }
    } finally {
      await dropDatabase(url);
    }
  });
});
