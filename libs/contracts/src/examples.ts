// Spec-shaped example resources: for documentation examples and for tests of anything that sends
// or receives them. Each takes overrides so that a test states only what it cares about.
import type { CatalogItem } from './schemas/catalog-schemas';
import type { Order } from './schemas/order-schemas';
import type { User } from './schemas/user-schemas';

export function exampleOrder(overrides: Partial<Order> = {}): Order {
  return {
    id: 'ord_01JD0Z8Q3N4M5P6R7S8T9V0W1X',
    object: 'order',
    cust_id: 'ACME',
    ordered_by: { login: 'jdoe', name: 'Jane Doe' },
    status: 'approved',
    submitted_at: '2026-11-22T09:30:00Z',
    approved_at: '2026-11-22T09:30:00Z',
    shipping_address: {
      attention: 'Receiving dock',
      street_1: '1 Main St',
      street_2: null,
      city: 'Springfield',
      region: 'IL',
      postal_code: '62701',
      country: 'US',
    },
    cost_center: 'CC-100',
    po_number: 'PO-4711',
    items: [
      {
        id: 'oi_1',
        item_code: 'PEN-BLUE',
        description: 'Blue ballpoint pen',
        quantity: 10,
        unit_price: { amount: 125, currency: 'USD' },
        line_total: { amount: 1250, currency: 'USD' },
      },
    ],
    subtotal: { amount: 1250, currency: 'USD' },
    tax: { amount: 100, currency: 'USD' },
    shipping: { amount: 500, currency: 'USD' },
    total: { amount: 1850, currency: 'USD' },
    ...overrides,
  };
}

export function exampleUser(overrides: Partial<User> = {}): User {
  return {
    id: 'jdoe',
    object: 'user',
    login: 'jdoe',
    cust_id: 'ACME',
    name: 'Jane Doe',
    email: 'jane.doe@example.com',
    roles: ['shopper'],
    status: 'active',
    employee_id: 'E-1001',
    department: 'Facilities',
    cost_center: 'CC-100',
    created_at: '2026-11-01T08:00:00Z',
    deactivated_at: null,
    ...overrides,
  };
}

export function exampleCatalogItem(overrides: Partial<CatalogItem> = {}): CatalogItem {
  return {
    id: 'item_pen_blue',
    object: 'catalog_item',
    item_code: 'PEN-BLUE',
    name: 'Blue pen',
    description: 'Blue ballpoint pen',
    category: { id: 'cat_office', name: 'Office supplies' },
    flags: [],
    images: ['https://cdn.example.com/pen-blue.png'],
    pricing: [
      { min_qty: 1, unit_price: { amount: 150, currency: 'USD' } },
      { min_qty: 10, unit_price: { amount: 125, currency: 'USD' } },
    ],
    available: true,
    lead_time_days: 2,
    ...overrides,
  };
}
