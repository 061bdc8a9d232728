// kafkajs's warnings and errors reach the service's logger, each distinct message at most once per
// window: a broker outage repeats the same connection errors many times a second.
import { freePort as closedPort } from '@ordering/testing';
import { createKafka } from '../src';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string | undefined;
}

function recordingLogger() {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message?: string) => {
    lines.push({ level, fields: fields as Record<string, unknown>, message });
  };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

async function failToConnect(logger: ReturnType<typeof recordingLogger>['logger'], windowMs: number) {
  const kafka = createKafka({
    clientId: 'logging-test',
    brokers: [`127.0.0.1:${await closedPort()}`],
    logger,
    retry: { retries: 4, initialRetryTime: 20, maxRetryTime: 50 },
    logRepeatWindowMs: windowMs,
  });
  const admin = kafka.admin();
  await expect(admin.connect()).rejects.toThrow();
  await admin.disconnect();
  return admin;
}

it('logs each distinct kafkajs message once per window while the broker cannot be reached', async () => {
  const every = recordingLogger();
  await failToConnect(every.logger, 0);
  const once = recordingLogger();
  await failToConnect(once.logger, 60_000);
  const distinct = new Set(every.lines.map((l) => `${l.level} ${String(l.fields.kafkajs)} ${l.message}`));
  // The outage repeats itself: without the window, the same lines come again and again.
  expect(every.lines.length).toBeGreaterThan(distinct.size);
  expect(once.lines).toHaveLength(distinct.size);
  expect(once.lines[0]).toMatchObject({ level: 'error', fields: { kafkajs: expect.any(String) } });
  expect(once.lines.every((l) => l.fields.repeated === undefined)).toBe(true);
});

it('after the window, the line comes again with how many identical lines were left out', async () => {
  const { lines, logger } = recordingLogger();
  const kafka = createKafka({
    clientId: 'logging-test',
    brokers: [`127.0.0.1:${await closedPort()}`],
    logger,
    retry: { retries: 4, initialRetryTime: 20, maxRetryTime: 50 },
    logRepeatWindowMs: 1_000,
  });
  const admin = kafka.admin();
  await expect(admin.connect()).rejects.toThrow();
  const first = lines.length;
  await new Promise((r) => setTimeout(r, 1_100));
  await expect(admin.connect()).rejects.toThrow();
  await admin.disconnect();
  const again = lines.slice(first);
  expect(again.length).toBeGreaterThan(0);
  expect(again.some((l) => typeof l.fields.repeated === 'number' && l.fields.repeated > 0)).toBe(true);
});
