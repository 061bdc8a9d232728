// Every request body schema of the contracts is strict: an unknown field is an issue naming it
// (the API's 422 unknown_field), never dropped. A new `...Request` schema built with `z.object`
// instead of `requestObject` fails here.
import * as contracts from '../src';
import { summarizeIssues, z } from '../src';

/** Named `...Request` but not a request body: event data (order.approval.requested's `approval`). */
const NOT_REQUEST_BODIES = new Set(['ApprovalRequest']);

const requestSchemas = (Object.entries(contracts) as [string, unknown][]).filter(
  (entry): entry is [string, z.ZodObject] =>
    entry[0].endsWith('Request') && !NOT_REQUEST_BODIES.has(entry[0]) && entry[1] instanceof z.ZodObject,
);

describe('request schemas', () => {
  it('are all found (orders, users, approvals, webhooks, approval chains)', () => {
    expect(requestSchemas.map(([name]) => name).sort()).toEqual(
      expect.arrayContaining([
        'ApproveRequest',
        'CancelOrderRequest',
        'CreateOrderRequest',
        'CreateUserRequest',
        'CreateWebhookRequest',
        'PutApprovalChainRequest',
        'RejectRequest',
        'UpdateUserRequest',
        'UpdateWebhookRequest',
      ]),
    );
  });

  it.each(requestSchemas)('%s refuses an unknown field, naming it', (_name, schema) => {
    const input = { definitely_unknown: 1 };
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    expect(summarizeIssues(result.error!, input)).toContainEqual({
      path: 'definitely_unknown',
      missing: false,
      unknown: true,
      message: expect.any(String),
    });
  });

  it('nested request objects are strict too, with the nested path', () => {
    const input = {
      cust_id: 'ACME',
      shipping_address_id: 'addr_1',
      items: [
        { item_code: 'PEN', quantity: 1 },
        { item_code: 'PEN', quantity: 1 },
        { item_code: 'PEN', quantity: 1, foo: true },
      ],
    };
    const result = contracts.CreateOrderRequest.safeParse(input);
    expect(summarizeIssues(result.error!, input)).toEqual([
      expect.objectContaining({ path: 'items[2].foo', unknown: true }),
    ]);
    const chain = { steps: [{ approver: 'a', step: 1 }] };
    expect(summarizeIssues(contracts.PutApprovalChainRequest.safeParse(chain).error!, chain)).toEqual([
      expect.objectContaining({ path: 'steps[0].step', unknown: true }),
    ]);
  });
});
