// The `webhooks` of the OpenAPI 3.1 document: what a subscriber's HTTPS endpoint receives for each
// event type (the spec's "Events": a signed POST of the event envelope), so that integrators can
// generate their receiver from the same document.
import {
  ALL_EVENT_TYPES,
  EVENT_SCHEMAS,
  type OpenAPIRegistry,
  eventComponentName,
  z,
} from '@ordering/contracts';

export const WEBHOOK_SIGNATURE_SCHEME = 'webhookSignature';

export const webhookSignatureScheme = {
  type: 'apiKey' as const,
  in: 'header' as const,
  name: 'Service-Signature',
  description:
    '`t=<unix_timestamp>,v1=<hex_signature>`, one `v1` per signing secret (two during a rotation). ' +
    "Each signature is the lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the subscription's " +
    'signing secret. Accept the delivery when any `v1` matches (compare in constant time) and `t` is ' +
    'within 300 seconds of your clock.',
};

const DeliveryHeaders = z.object({
  'Service-Event': z.string().openapi({ description: 'The event type' }),
  'Service-Delivery': z.string().openapi({ description: 'Delivery identifier, constant across retries' }),
  'Service-Signature': z.string().openapi({ description: 'The signature header (see the security scheme)' }),
});

const operationIdOf = (type: string) => {
  const name = eventComponentName(type as Parameters<typeof eventComponentName>[0]);
  return `receive${name}`;
};

export function registerEventWebhooks(registry: OpenAPIRegistry): void {
  for (const type of ALL_EVENT_TYPES) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: operationIdOf(type),
      summary: `Event ${type}`,
      description:
        type === 'webhook.test'
          ? 'Sent on demand by POST /v1/webhooks/{id}/test to that subscription alone.'
          : 'Sent to every enabled subscription of the account (or an ancestor) that chose this type.',
      security: [{ [WEBHOOK_SIGNATURE_SCHEME]: [] }],
      request: {
        headers: DeliveryHeaders,
        body: { required: true, content: { 'application/json': { schema: EVENT_SCHEMAS[type] } } },
      },
      responses: {
        200: {
          description:
            'Any 2xx within 10 seconds acknowledges the delivery; anything else is retried with backoff ' +
            'for 24 hours. Delivery is at least once: deduplicate on `Service-Delivery`.',
        },
      },
    });
  }
}
