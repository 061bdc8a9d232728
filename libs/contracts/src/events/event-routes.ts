// Where each event type travels: one topic per aggregate, keyed by the aggregate id so that the
// events of one order (or user, or item) keep their order on one partition.
import { TOPICS, type Topic } from '../topics';
import type { EventEnvelope } from './event-envelope';
import { EVENT_TYPES, type EventType } from './event-types';

export interface EventRoute {
  topic: Topic;
  /** The Kafka message key: the aggregate id. */
  key: string;
}

const TOPIC_OF_TYPE: Record<EventType, Topic | null> = {
  [EVENT_TYPES.orderSubmitted]: TOPICS.orders,
  [EVENT_TYPES.orderApprovalRequested]: TOPICS.orders,
  [EVENT_TYPES.orderApproved]: TOPICS.orders,
  [EVENT_TYPES.orderRejected]: TOPICS.orders,
  [EVENT_TYPES.orderInProduction]: TOPICS.orders,
  [EVENT_TYPES.orderShipped]: TOPICS.orders,
  [EVENT_TYPES.orderDelivered]: TOPICS.orders,
  [EVENT_TYPES.orderCancelled]: TOPICS.orders,
  [EVENT_TYPES.userCreated]: TOPICS.users,
  [EVENT_TYPES.userDeactivated]: TOPICS.users,
  // Per receiving account, built by the webhooks service from the catalog's one change message per
  // item (TOPICS.catalogItems, messages/catalog-item-change.ts); never on Kafka as an envelope.
  [EVENT_TYPES.catalogItemUpdated]: null,
  // Delivered by the webhooks service straight to one subscription; never on Kafka.
  [EVENT_TYPES.webhookTest]: null,
};

/** The topic of an event type, or null for the types not published on Kafka as envelopes. */
export function topicOfEventType(type: EventType): Topic | null {
  return TOPIC_OF_TYPE[type];
}

/** Topic and key of an event; throws for a type that is not published on Kafka. */
export function eventRoute(event: EventEnvelope): EventRoute {
  const topic = TOPIC_OF_TYPE[event.type];
  if (topic === null) throw new Error(`Events of type ${event.type} are not published on Kafka`);
  // Every published type's data is an aggregate with an `id` (order, user, catalog item).
  return { topic, key: (event.data as { id: string }).id };
}

/** Event types carried on a topic (e.g. to list what a consumer of TOPICS.orders may receive). */
export function eventTypesOnTopic(topic: Topic): EventType[] {
  return (Object.keys(TOPIC_OF_TYPE) as EventType[]).filter((t) => TOPIC_OF_TYPE[t] === topic);
}
