import {
  ListCatalogItemsQuery,
  ListOrdersQuery,
  ListWebhookDeliveriesQuery,
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

  it('created_after / created_before take what the services take: a date-time with a zone, or a date', () => {
    // The services read these with parseIsoTimestamp (libs/http): `2026-11-22` is midnight UTC and
    // an offset is honoured; the document shown to integrators must not refuse either.
    for (const value of [
      '2026-11-22T09:30:00Z',
      '2026-11-22T09:30:00.123Z',
      '2026-11-22T10:30:00+01:00',
      '2026-11-22',
    ]) {
      expect(ListOrdersQuery.safeParse({ created_after: value }).success).toBe(true);
      expect(
        ListWebhookDeliveriesQuery.safeParse({ created_after: value, created_before: value }).success,
      ).toBe(true);
    }
    for (const value of ['yesterday', '2026-11-22T09:30:00', '1764000000', '2026-02-30']) {
      expect(ListOrdersQuery.safeParse({ created_after: value }).error!.issues[0]!.path).toEqual([
        'created_after',
      ]);
    }
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
