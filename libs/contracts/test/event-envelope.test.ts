import {
  EVENT_TYPES,
  EventValidationError,
  TOPICS,
  eventRoute,
  exampleCatalogItem,
  exampleOrder,
  exampleUser,
  newEvent,
  newEventId,
  parseEvent,
  topicOfEventType,
} from '../src';

const order = exampleOrder({ id: 'ord_42' });

function specEvent(overrides: Record<string, unknown> = {}) {
  return {
    id: 'evt_01JD0Z8Q3N4M5P6R7S8T9V0W1X',
    object: 'event',
    type: 'order.submitted',
    created_at: '2026-11-22T09:30:00Z',
    cust_id: 'ACME',
    api_version: 'v1',
    data: order,
    ...overrides,
  };
}

function issueOf(fn: () => unknown): EventValidationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof EventValidationError) return err;
    throw err;
  }
  throw new Error('expected an EventValidationError');
}

describe('the event envelope', () => {
  it('accepts a spec-shaped order.submitted event and keeps unknown (additive) fields', () => {
    const event = parseEvent(specEvent({ data: { ...order, gift_wrap: true }, future_field: 1 }));
    expect(event.type).toBe('order.submitted');
    expect(event.data).toMatchObject({
      id: 'ord_42',
      total: { amount: 1850, currency: 'USD' },
      gift_wrap: true,
    });
    expect(event).toHaveProperty('future_field', 1);
  });

  it('refuses a missing envelope field, naming it', () => {
    const { cust_id: _omit, ...withoutCust } = specEvent();
    const err = issueOf(() => parseEvent(withoutCust));
    expect(err.reason).toBe('invalid_envelope');
    expect(err.message).toContain('cust_id');
  });

  it('refuses a created_at that is not ISO 8601 UTC and an api_version other than v1', () => {
    expect(issueOf(() => parseEvent(specEvent({ created_at: '22/11/2026' }))).message).toContain(
      'created_at',
    );
    expect(
      issueOf(() => parseEvent(specEvent({ created_at: '2026-11-22T10:30:00+01:00' }))).message,
    ).toContain('created_at');
    expect(issueOf(() => parseEvent(specEvent({ api_version: 'v2' }))).message).toContain('api_version');
  });

  it('refuses an unknown event type', () => {
    const err = issueOf(() => parseEvent(specEvent({ type: 'order.teleported' })));
    expect(err.reason).toBe('unknown_type');
    expect(err.message).toMatch(/^Invalid event \(unknown_type\): type: /);
  });

  it('validates data by type with a useful path into the data', () => {
    const bad = { ...order, total: { amount: '18.50', currency: 'usd' } };
    const err = issueOf(() => parseEvent(specEvent({ data: bad })));
    expect(err.reason).toBe('invalid_data');
    expect(err.message).toContain('data.total.amount');
    expect(err.message).toContain('data.total.currency');
  });

  it('names the index of a bad order item', () => {
    const items = [...order.items, { ...order.items[0], quantity: 1.5 }];
    expect(issueOf(() => parseEvent(specEvent({ data: { ...order, items } }))).message).toContain(
      'data.items[1].quantity',
    );
  });
});

describe('event data by type', () => {
  it('order.shipped carries the shipment of the spec', () => {
    const event = parseEvent(
      specEvent({
        type: 'order.shipped',
        data: {
          id: 'ord_42',
          object: 'order',
          status: 'shipped',
          shipment: {
            carrier: 'UPS',
            tracking_number: '1Z999AA10123456784',
            shipped_at: '2026-11-23T15:00:00Z',
            estimated_delivery: '2026-11-26',
          },
        },
      }),
    );
    expect(event.type).toBe('order.shipped');
  });

  it('order.shipped without a tracking number is refused at data.shipment.tracking_number', () => {
    const err = issueOf(() =>
      parseEvent(
        specEvent({
          type: 'order.shipped',
          data: {
            id: 'ord_42',
            object: 'order',
            status: 'shipped',
            shipment: {
              carrier: 'UPS',
              shipped_at: '2026-11-23T15:00:00Z',
              estimated_delivery: '2026-11-26',
            },
          },
        }),
      ),
    );
    expect(err.message).toContain('data.shipment.tracking_number');
  });

  it('order.rejected needs the rejection, order.cancelled the cancellation, approval.requested the approval', () => {
    expect(issueOf(() => parseEvent(specEvent({ type: 'order.rejected' }))).message).toContain(
      'data.rejection',
    );
    expect(issueOf(() => parseEvent(specEvent({ type: 'order.cancelled' }))).message).toContain(
      'data.cancellation',
    );
    expect(issueOf(() => parseEvent(specEvent({ type: 'order.approval.requested' }))).message).toContain(
      'data.approval',
    );
    const rejected = parseEvent(
      specEvent({
        type: 'order.rejected',
        data: {
          ...order,
          status: 'cancelled',
          rejection: {
            reason: 'Over budget',
            rejected_by: { login: 'boss', name: 'B. Oss' },
            rejected_at: '2026-11-22T10:00:00Z',
          },
        },
      }),
    );
    expect(rejected.data).toHaveProperty('rejection.reason', 'Over budget');
  });

  it('user events carry the user and catalog.item.updated the item', () => {
    expect(parseEvent(specEvent({ type: 'user.created', data: exampleUser() })).type).toBe('user.created');
    expect(
      issueOf(() =>
        parseEvent(specEvent({ type: 'user.created', data: exampleUser({ roles: ['boss' as never] }) })),
      ).message,
    ).toContain('data.roles[0]');
    expect(parseEvent(specEvent({ type: 'catalog.item.updated', data: exampleCatalogItem() })).type).toBe(
      'catalog.item.updated',
    );
  });
});

describe('newEvent', () => {
  it('fills id (evt_ + ULID), object, created_at and api_version', () => {
    const before = Date.now();
    const event = newEvent({ type: EVENT_TYPES.orderApproved, cust_id: 'ACME', data: order });
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(event).toMatchObject({
      object: 'event',
      type: 'order.approved',
      cust_id: 'ACME',
      api_version: 'v1',
    });
    expect(Date.parse(event.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(event.created_at).toMatch(/Z$/);
  });

  it('keeps a given id and created_at, and refuses bad data', () => {
    const event = newEvent({
      type: 'user.created',
      cust_id: 'ACME',
      data: exampleUser(),
      id: 'evt_x',
      created_at: new Date(0),
    });
    expect(event).toMatchObject({ id: 'evt_x', created_at: '1970-01-01T00:00:00.000Z' });
    expect(() =>
      newEvent({
        type: 'user.created',
        cust_id: 'ACME',
        data: { ...exampleUser(), email: undefined } as never,
      }),
    ).toThrow(/data\.email/);
  });

  it('gives unique identifiers that sort by creation time', () => {
    const ids = [newEventId(1_700_000_000_000), newEventId(1_700_000_000_001), newEventId(1_800_000_000_000)];
    expect([...ids].sort()).toEqual(ids);
    const many = Array.from({ length: 1000 }, () => newEventId(1_700_000_000_000));
    expect(new Set(many).size).toBe(1000);
  });
});

describe('event routes', () => {
  it('sends order events to the orders topic keyed by order id, user events by user id', () => {
    expect(eventRoute(newEvent({ type: 'order.delivered', cust_id: 'ACME', data: order }))).toEqual({
      topic: TOPICS.orders,
      key: 'ord_42',
    });
    expect(eventRoute(newEvent({ type: 'user.deactivated', cust_id: 'ACME', data: exampleUser() }))).toEqual({
      topic: TOPICS.users,
      key: 'jdoe',
    });
    // Built per receiving account by the webhooks service from the catalog's change messages.
    expect(topicOfEventType('catalog.item.updated')).toBeNull();
  });

  it('refuses to route webhook.test, which never travels on Kafka', () => {
    const test = newEvent({
      type: 'webhook.test',
      cust_id: 'ACME',
      data: { webhook_id: 'wh_1', message: 'hi' },
    });
    expect(() => eventRoute(test)).toThrow(/not published on Kafka/);
  });
});
