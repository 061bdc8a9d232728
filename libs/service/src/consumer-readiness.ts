// A consuming service's readiness check for its consumer. The consumer must have joined its group,
// except while Kafka itself cannot be reached: then the service stays ready, degraded, as a
// publishing service does (`kafka: 'degraded'`). Its HTTP API does not need Kafka (what it writes
// waits in the outbox, what it would consume waits in Kafka), and other services call it: the orders
// service asks the approvals service for the chain of every order above its account's threshold.
// Any other failure to join (Kafka answers, the consumer does not join) makes it unready.
import type { ReadinessCheck } from '@ordering/http';
import type { ConsumerRunner } from '@ordering/messaging';

export function consumerReadiness(consumer: ConsumerRunner, timeoutMs = 500): ReadinessCheck {
  return {
    name: 'consumer',
    check: () =>
      consumer.waitForGroupJoin(timeoutMs).then(
        () => undefined,
        (err: unknown) => {
          if (!consumer.waitingForKafka()) throw err;
          return 'degraded: Kafka is unreachable; the consumer joins its group once it answers';
        },
      ),
  };
}
