// The attribute names an on-call engineer searches traces by (Zipkin: tag search; any OTLP
// backend: attribute filters). One list, so that every process names them the same way.
import { trace, type Attributes } from '@opentelemetry/api';

export const ATTR = {
  requestId: 'ordering.request_id',
  custId: 'ordering.cust_id',
  login: 'ordering.login',
  clientId: 'ordering.client_id',
  orderId: 'ordering.order_id',
  approvalId: 'ordering.approval_id',
  eventId: 'ordering.event_id',
  eventType: 'ordering.event_type',
  deliveryId: 'ordering.delivery_id',
  subscriptionId: 'ordering.subscription_id',
  service: 'ordering.upstream_service',
} as const;

/** Route parameters that name something worth searching by, and the attribute each becomes. */
const PARAM_ATTRIBUTES: Record<string, string> = {
  order_id: ATTR.orderId,
  cust_id: ATTR.custId,
  approval_id: ATTR.approvalId,
  login: ATTR.login,
  webhook_id: ATTR.subscriptionId,
  subscription_id: ATTR.subscriptionId,
  delivery_id: ATTR.deliveryId,
  event_id: ATTR.eventId,
  item_code: 'ordering.item_code',
};

/** What a bare `{id}` names, by the collection before it in the route template. */
const ID_OF_COLLECTION: Record<string, string> = {
  orders: ATTR.orderId,
  approvals: ATTR.approvalId,
  webhooks: ATTR.subscriptionId,
  deliveries: ATTR.deliveryId,
  events: ATTR.eventId,
  items: 'ordering.item_code',
};

function idAttribute(template: string | undefined): string | undefined {
  const match = template ? /\/([a-z_]+)\/[{:]id\}?(?:\/|$)/.exec(template) : null;
  return match ? ID_OF_COLLECTION[match[1]!] : undefined;
}

/**
 * The searchable attributes among a route's parameters: `{ order_id: 'ord_1' }`, or `{ id: 'ord_1' }`
 * of `/v1/orders/{id}`, give ordering.order_id.
 */
export function paramAttributes(params: Record<string, unknown> | undefined, template?: string): Attributes {
  const out: Attributes = {};
  if (!params) return out;
  for (const key in params) {
    const name = key === 'id' ? idAttribute(template) : PARAM_ATTRIBUTES[key];
    const value = params[key];
    if (name && typeof value === 'string' && value.length <= 200) out[name] = value;
  }
  return out;
}

/**
 * Adds attributes to the span of the work in progress (e.g. `{ [ATTR.orderId]: order.id }` once a
 * new order has its id). A no-op outside a trace or when it is sampled out.
 */
export function setTraceAttributes(attributes: Attributes): void {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) span.setAttributes(attributes);
}

/** The attribute naming a created resource, by its `object`. */
const CREATED_ATTRIBUTES: Record<string, string> = {
  order: ATTR.orderId,
  user: ATTR.login,
  webhook_subscription: ATTR.subscriptionId,
  approval: ATTR.approvalId,
};

/**
 * Names the resource a request created on the span of the work in progress (`{ object: 'order',
 * id: 'ord_1' }` gives ordering.order_id), so that a new order's trace is found by its id.
 */
export function nameCreatedResource(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const { object, id } = body as { object?: unknown; id?: unknown };
  const name = typeof object === 'string' ? CREATED_ATTRIBUTES[object] : undefined;
  if (name && typeof id === 'string') setTraceAttributes({ [name]: id });
}
