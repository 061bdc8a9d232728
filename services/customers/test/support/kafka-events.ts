// Reads events back from the real test broker: a consumer of its own group, starting at the end of
// the topic as it is when the reader is created (so nothing published after that can be missed,
// and earlier runs' events are not read), collecting the events that match.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { EventEnvelopeBase } from '@ordering/contracts';

export interface EventReader {
  events: EventEnvelopeBase[];
  /** Resolves with the matching events once `done` holds for them (fails after `timeoutMs`). */
  waitFor(done: (events: EventEnvelopeBase[]) => boolean, timeoutMs?: number): Promise<EventEnvelopeBase[]>;
  stop(): Promise<void>;
}

export async function readEvents(
  topic: string,
  match: (event: EventEnvelopeBase) => boolean,
): Promise<EventReader> {
  const kafka = new Kafka({
    clientId: 'customers-test',
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(','),
    logLevel: logLevel.NOTHING,
  });
  const consumer: Consumer = kafka.consumer({
    groupId: `customers-test-${randomUUID()}`,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    rebalanceTimeout: 3000,
    maxWaitTimeInMs: 100,
  });
  const events: EventEnvelopeBase[] = [];
  let notify = () => {};
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const event = JSON.parse(message.value?.toString() ?? 'null') as EventEnvelopeBase;
      if (event && match(event)) {
        events.push(event);
        notify();
      }
    },
  });
  for (const { partition, offset } of ends) consumer.seek({ topic, partition, offset });
  return {
    events,
    waitFor: (done, timeoutMs = 20_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          reject(
            new Error(
              `events not seen within ${timeoutMs} ms; got ${JSON.stringify(events.map((e) => e.type))}`,
            ),
          );
        }, timeoutMs);
        notify = () => {
          if (done(events)) {
            clearTimeout(timer);
            resolve(events);
          }
        };
        notify();
      }),
    stop: () => consumer.disconnect(),
  };
}
