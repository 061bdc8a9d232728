// The lag gauges the alerts read, observed at each Prometheus scrape (not on the message path):
//   ordering_outbox_lag (seconds, in its UNIT line) / ordering_outbox_pending: the oldest unpublished outbox row's age
//     and how many wait, asked of the service's database by its relay;
//   ordering_consumer_lag{group,topic}: messages not yet processed by a consumer group (high
//     watermark minus committed offset, summed over partitions), asked of Kafka by the consumer.
// A failed query observes nothing: the series goes stale rather than reporting a false zero.
import type { Admin, Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { observeGauge, type GaugeRegistration } from '@ordering/telemetry';
import { OUTBOX_TABLE } from './outbox-migration';

export interface LagGauge {
  remove(): Promise<void>;
}

export function observeOutboxLag(knex: Knex): LagGauge {
  let last: { at: number; rows: Promise<{ pending: number; lag: number }> } | undefined;
  // One query serves both gauges of a scrape.
  const read = () => {
    if (!last || Date.now() - last.at > 1000) {
      last = {
        at: Date.now(),
        rows: knex(OUTBOX_TABLE)
          .whereNull('published_at')
          .select(
            knex.raw('count(*)::int as pending'),
            knex.raw('coalesce(extract(epoch from now() - min(created_at)), 0)::float as lag'),
          )
          .first()
          .then((row: { pending: number; lag: number } | undefined) => row ?? { pending: 0, lag: 0 }),
      };
    }
    return last.rows;
  };
  const registrations: GaugeRegistration[] = [
    observeGauge('outboxLag', async () => [{ value: (await read()).lag }]),
    observeGauge('outboxPending', async () => [{ value: (await read()).pending }]),
  ];
  return {
    remove: async () => {
      for (const r of registrations) r.remove();
    },
  };
}

async function topicLag(admin: Admin, groupId: string, topic: string): Promise<number> {
  const [ends, committed] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committedByPartition = new Map<number, number>();
  for (const t of committed) {
    for (const p of t.partitions) committedByPartition.set(p.partition, Number(p.offset));
  }
  let lag = 0;
  for (const p of ends) {
    const high = Number(p.high);
    const low = Number(p.low);
    const at = committedByPartition.get(p.partition) ?? -1;
    // -1: the group has committed nothing yet on this partition; it reads from the oldest retained.
    lag += Math.max(0, high - (at < 0 ? low : at));
  }
  return lag;
}

export function observeConsumerLag(kafka: Kafka, groupId: string, topics: string[]): LagGauge {
  let admin: Admin | undefined;
  let connecting: Promise<Admin> | undefined;
  const connected = () =>
    (connecting ??= (async () => {
      const a = kafka.admin();
      await a.connect();
      admin = a;
      return a;
    })().catch((err: unknown) => {
      connecting = undefined;
      throw err;
    }));
  const registration = observeGauge('consumerLag', async () => {
    const a = await connected();
    return Promise.all(
      topics.map(async (topic) => ({
        value: await topicLag(a, groupId, topic),
        attributes: { group: groupId, topic },
      })),
    );
  });
  return {
    remove: async () => {
      registration.remove();
      await connecting?.catch(() => undefined);
      await admin?.disconnect().catch(() => undefined);
    },
  };
}
