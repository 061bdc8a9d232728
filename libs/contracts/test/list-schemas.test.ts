import {
  ListCatalogItemsQuery,
  ListOrdersQuery,
  OrderList,
  WebhookDelivery,
  WebhookDeliveryList,
  exampleOrder,
} from '../src';

describe('list schemas', () => {
  it('list queries: limit defaults to 25 and stays within 1..100', () => {
    expect(ListOrdersQuery.parse({})).toEqual({ limit: 25 });
    expect(ListOrdersQuery.safeParse({ limit: 101 }).error!.issues[0]!.path).toEqual(['limit']);
    expect(ListOrdersQuery.safeParse({ limit: 0 }).success).toBe(false);
    expect(ListOrdersQuery.safeParse({ status: 'teleported' }).error!.issues[0]!.path).toEqual(['status']);
  });

  it('the catalog list needs cust_id', () => {
    expect(ListCatalogItemsQuery.safeParse({}).error!.issues[0]!.path).toEqual(['cust_id']);
    expect(ListCatalogItemsQuery.parse({ cust_id: 'ACME', available: true })).toEqual({
      cust_id: 'ACME',
      available: true,
      limit: 25,
    });
  });

  it('named list envelopes hold their resource', () => {
    const page = {
      object: 'list',
      url: '/v1/orders',
      has_more: false,
      next_cursor: null,
      data: [exampleOrder()],
    };
    expect(OrderList.safeParse(page).success).toBe(true);
    expect(OrderList.safeParse({ ...page, data: [{ id: 'x' }] }).success).toBe(false);
  });

  it('a webhook delivery with its attempts', () => {
    const delivery = {
      id: 'whd_1',
      object: 'webhook_delivery',
      subscription_id: 'we_1',
      event_id: 'evt_1',
      event_type: 'webhook.test',
      status: 'pending',
      attempts: [
        {
          attempted_at: '2026-11-22T09:30:00Z',
          status_code: 500,
          latency_ms: 120,
          error: 'HTTP 500',
          response_excerpt: 'busy',
        },
      ],
      next_attempt_at: '2026-11-22T09:31:00Z',
      created_at: '2026-11-22T09:30:00Z',
    };
    expect(WebhookDelivery.parse(delivery)).toEqual(delivery);
    expect(WebhookDelivery.safeParse({ ...delivery, status: 'lost' }).error!.issues[0]!.path).toEqual([
      'status',
    ]);
    const list = { object: 'list', url: '/v1/webhooks/we_1/deliveries', has_more: false, next_cursor: null };
    expect(WebhookDeliveryList.safeParse({ ...list, data: [delivery] }).success).toBe(true);
  });
});
