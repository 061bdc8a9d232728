import {
  AuthRevocation,
  CreateOrderRequest,
  Customer,
  ErrorBody,
  FulfilmentUpdate,
  Order,
  SUBSCRIBABLE_EVENT_TYPES,
  TOPICS,
  User,
  UserRolesChange,
  WebhookSubscription,
  authRevocationKey,
  exampleOrder,
  fulfilmentUpdateKey,
  generateOpenApiDocument,
  listOf,
  safeParseEvent,
  summarizeIssues,
  topicOfEventType,
  userRolesChangeKey,
} from '../src';

describe('resource schemas', () => {
  it('accept a spec-shaped order and refuse an unknown status at `status`', () => {
    expect(Order.safeParse(exampleOrder()).success).toBe(true);
    const bad = Order.safeParse({ ...exampleOrder(), status: 'teleported' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['status']);
  });

  it('accept a customer with addresses and a null parent', () => {
    const customer = {
      id: 'ACME',
      object: 'customer',
      name: 'Acme Corp',
      parent_cust_id: null,
      created_at: '2026-01-01T00:00:00Z',
      addresses: [
        {
          id: 'addr_1',
          object: 'address',
          type: 'shipping',
          label: 'HQ',
          attention: null,
          street_1: '1 Main St',
          street_2: null,
          city: 'Springfield',
          region: 'IL',
          postal_code: '62701',
          country: 'US',
          default: true,
        },
      ],
      currency: 'USD',
      approval_required_over: { amount: 100000, currency: 'USD' },
      billing_terms: 'net_30',
    };
    expect(Customer.parse(customer)).toEqual(customer);
    const noCity = Customer.safeParse({
      ...customer,
      addresses: [{ ...customer.addresses[0], city: undefined }],
    });
    expect(noCity.error!.issues[0]!.path).toEqual(['addresses', 0, 'city']);
  });

  it('the list envelope wraps items and allows a null next_cursor', () => {
    const OrderList = listOf(Order, 'OrderList');
    const page = {
      object: 'list',
      url: '/v1/orders',
      has_more: false,
      next_cursor: null,
      data: [exampleOrder()],
    };
    expect(OrderList.safeParse(page).success).toBe(true);
    expect(OrderList.safeParse({ ...page, data: [{ id: 'x' }] }).error!.issues[0]!.path[0]).toBe('data');
  });

  it('the error body of the spec', () => {
    const body = {
      error: {
        type: 'invalid_request',
        code: 'missing_required_field',
        message: 'Missing required field: items',
        param: 'items',
        request_id: 'req_1',
      },
    };
    expect(ErrorBody.parse(body)).toEqual(body);
    expect(ErrorBody.safeParse({ error: { ...body.error, request_id: undefined } }).success).toBe(false);
  });

  it('a user and a webhook subscription (the secret is optional: only on creation)', () => {
    expect(
      User.safeParse({
        id: 'jdoe',
        object: 'user',
        login: 'jdoe',
        cust_id: 'ACME',
        name: 'Jane',
        email: 'j@example.com',
        roles: ['shopper', 'approver'],
        status: 'deactivated',
        employee_id: null,
        department: null,
        cost_center: null,
        created_at: '2026-01-01T00:00:00Z',
        deactivated_at: '2026-02-01T00:00:00Z',
      }).success,
    ).toBe(true);
    const sub = {
      id: 'wh_1',
      object: 'webhook_subscription',
      url: 'https://example.com/hook',
      events: ['order.shipped'],
      description: null,
      status: 'enabled',
      ordering: 'none',
      created_at: '2026-01-01T00:00:00Z',
    };
    expect(WebhookSubscription.safeParse(sub).success).toBe(true);
    expect(
      WebhookSubscription.safeParse({ ...sub, events: ['webhook.test'] }).error!.issues[0]!.path,
    ).toEqual(['events', 0]);
  });
});

describe('request bodies', () => {
  it('tell a missing field from a malformed one, with the API param path', () => {
    const input = { cust_id: 'ACME', items: [{ item_code: 'PEN', quantity: 1 }, { quantity: 'two' }] };
    const result = CreateOrderRequest.safeParse(input);
    expect(result.success).toBe(false);
    expect(summarizeIssues(result.error!, input)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'shipping_address_id', missing: true }),
        expect.objectContaining({ path: 'items[1].item_code', missing: true }),
        expect.objectContaining({ path: 'items[1].quantity', missing: false }),
      ]),
    );
  });

  it('refuse an order of more than 100 items or of none', () => {
    const base = { cust_id: 'ACME', shipping_address_id: 'addr_1' };
    const item = { item_code: 'PEN', quantity: 1 };
    expect(CreateOrderRequest.safeParse({ ...base, items: [] }).success).toBe(false);
    expect(CreateOrderRequest.safeParse({ ...base, items: Array(100).fill(item) }).success).toBe(true);
    expect(CreateOrderRequest.safeParse({ ...base, items: Array(101).fill(item) }).success).toBe(false);
  });
});

describe('internal messages', () => {
  it('a shipped fulfilment update needs carrier, tracking number, shipped_at and estimated_delivery', () => {
    const shipped = {
      id: 'ful_1',
      order_id: 'ord_42',
      status: 'shipped',
      occurred_at: '2026-11-23T15:00:00Z',
      shipment: {
        carrier: 'UPS',
        tracking_number: '1Z',
        shipped_at: '2026-11-23T15:00:00Z',
        estimated_delivery: '2026-11-26',
      },
    };
    expect(fulfilmentUpdateKey(FulfilmentUpdate.parse(shipped))).toBe('ord_42');
    const bad = FulfilmentUpdate.safeParse({
      ...shipped,
      shipment: { ...shipped.shipment, estimated_delivery: 'soon' },
    });
    expect(bad.error!.issues[0]!.path).toEqual(['shipment', 'estimated_delivery']);
    expect(FulfilmentUpdate.safeParse({ ...shipped, status: 'lost' }).success).toBe(false);
    expect(
      FulfilmentUpdate.safeParse({
        id: 'f2',
        order_id: 'o',
        status: 'delivered',
        occurred_at: shipped.occurred_at,
      }).success,
    ).toBe(true);
  });

  it('an auth revocation names the token or the grant it revokes', () => {
    expect(
      authRevocationKey(AuthRevocation.parse({ type: 'token.revoked', jti: 'j1', exp: 1800000000 })),
    ).toBe('token.revoked:j1');
    expect(
      authRevocationKey(AuthRevocation.parse({ type: 'grant.revoked', grant_id: 'g1', exp: 1800000000 })),
    ).toBe('grant.revoked:g1');
    expect(
      AuthRevocation.safeParse({ type: 'token.revoked', grant_id: 'g1', exp: 1 }).error!.issues[0]!.path,
    ).toEqual(['jti']);
  });
});

describe('the OpenAPI document', () => {
  it('names every resource as a component, with descriptions, and lists each event as a webhook', () => {
    const doc = generateOpenApiDocument({ title: 'Ordering API', version: 'v1' });
    const schemas = doc.components!.schemas!;
    for (const name of [
      'Money',
      'Order',
      'OrderItem',
      'CatalogItem',
      'Customer',
      'Address',
      'User',
      'Approval',
      'WebhookSubscription',
      'Error',
      'OrderShippedEvent',
    ]) {
      expect(schemas).toHaveProperty(name);
    }
    expect(JSON.stringify(schemas.Money)).toContain('minor unit');
    expect(JSON.stringify(schemas.Order)).toContain('#/components/schemas/Money');
    expect(Object.keys(doc.webhooks!)).toEqual(expect.arrayContaining(['order.shipped', 'user.created']));
    expect(Object.keys(doc.webhooks!)).not.toContain('webhook.test');
  });
});

describe('the internal user.roles_changed message', () => {
  const change = {
    id: 'urc_01JD0Z8Q3N4M5P6R7S8T9V0W1X',
    type: 'user.roles_changed',
    login: 'dee',
    cust_id: 'ACME',
    roles: ['shopper'],
    previous_roles: ['shopper', 'approver'],
    occurred_at: '2026-01-01T00:00:00Z',
  };

  it('is keyed by login and refuses a role the API does not know', () => {
    expect(userRolesChangeKey(UserRolesChange.parse(change))).toBe('dee');
    expect(UserRolesChange.safeParse({ ...change, roles: ['owner'] }).error!.issues[0]!.path).toEqual([
      'roles',
      0,
    ]);
  });

  it('is never a webhook: no event type, no subscription can choose it, absent from the public document', () => {
    expect(SUBSCRIBABLE_EVENT_TYPES as string[]).not.toContain('user.roles_changed');
    expect(safeParseEvent({ ...change, object: 'event', api_version: 'v1', data: {} }).success).toBe(false);
    const sub = {
      id: 'wh_1',
      object: 'webhook_subscription',
      url: 'https://example.com/hook',
      events: ['user.roles_changed'],
      description: null,
      status: 'enabled',
      created_at: '2026-01-01T00:00:00Z',
    };
    expect(WebhookSubscription.safeParse(sub).success).toBe(false);
    const doc = generateOpenApiDocument({ title: 't', version: '1' });
    expect(Object.keys(doc.webhooks!)).not.toContain('user.roles_changed');
    expect(doc.components!.schemas).not.toHaveProperty('UserRolesChange');
    // Its topic is not one any event type travels on (the webhooks service reads those).
    expect(SUBSCRIBABLE_EVENT_TYPES.map(topicOfEventType)).not.toContain(TOPICS.userRoles);
  });
});
