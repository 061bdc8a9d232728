// Kafka topics: one per aggregate, keyed by the aggregate id so that one aggregate's events keep
// their order. Every consumer that gives up on a message sends it to the dead-letter topic.
export const TOPICS = {
  orders: 'ordering.orders.v1',
  users: 'ordering.users.v1',
  customers: 'ordering.customers.v1',
  catalogItems: 'ordering.catalog-items.v1',
  approvals: 'ordering.approvals.v1',
  /** Fulfilment updates from the ERP/warehouse (in_production, shipped, delivered). */
  fulfilment: 'ordering.fulfilment.v1',
  /** Token and grant revocations from the auth service. */
  auth: 'ordering.auth.v1',
  /** Role changes of users (internal: never delivered as webhooks), keyed by login. */
  userRoles: 'ordering.user-roles.v1',
  deadLetter: 'ordering.dead-letter.v1',
} as const;

export type Topic = (typeof TOPICS)[keyof typeof TOPICS];

export const ALL_TOPICS: { name: Topic; partitions: number }[] = Object.values(TOPICS).map((name) => ({
  name,
  partitions: 3,
}));
