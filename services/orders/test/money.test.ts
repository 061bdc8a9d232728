// The money rules against hand-computed orders: tiers come priced from the catalog; tax by the
// shipping address's country/region, rounded half-up once per order; shipping by subtotal band.
import { applyRateHalfUp, orderTotals, shippingFor, taxRateBp } from '../src/domain/money';

it('rounds half-up once on the whole subtotal, not per line', () => {
  // Three lines of 10 cents at 5%: per-line rounding would give 3 x 1 = 3 (0.5 each); once: 1.5 -> 2.
  expect(orderTotals([10, 10, 10], { country: 'CA', region: 'ON' })).toEqual({
    subtotal: 30,
    tax: 2,
    shipping: 1500,
    total: 1532,
  });
  expect(applyRateHalfUp(10n, 500)).toBe(1n); // 0.5 -> 1
  expect(applyRateHalfUp(9n, 500)).toBe(0n); // 0.45 -> 0
  expect(applyRateHalfUp(10_575n, 725)).toBe(767n); // 766.6875 -> 767
});

it('uses the region rate, then the country rate, then zero', () => {
  expect(taxRateBp('US', 'CA')).toBe(725);
  expect(taxRateBp('us', 'ny')).toBe(400);
  expect(taxRateBp('US', 'OR')).toBe(0);
  expect(taxRateBp('DE', 'BE')).toBe(1900);
  expect(taxRateBp('JP', '13')).toBe(0);
});

it('charges shipping by subtotal band', () => {
  expect([0n, 9_999n, 10_000n, 49_999n, 50_000n, 99_999n, 100_000n, 10_000_000n].map(shippingFor)).toEqual([
    1500n,
    1500n,
    1000n,
    1000n,
    500n,
    500n,
    0n,
    0n,
  ]);
});

it('adds up hand-computed orders', () => {
  // 12 x 8.49 (tier 10+) + 3 x 1.29 = 105.75; CA 7.25% = 7.666875 -> 7.67; band 100-499.99: 10.00
  expect(orderTotals([10_188, 387], { country: 'US', region: 'CA' })).toEqual({
    subtotal: 10_575,
    tax: 767,
    shipping: 1_000,
    total: 12_342,
  });
  // 5 x 329.00 (tier 5+) = 1645.00 EUR; DE 19% = 312.55; free shipping from 1000.00
  expect(orderTotals([164_500], { country: 'DE', region: 'BE' })).toEqual({
    subtotal: 164_500,
    tax: 31_255,
    shipping: 0,
    total: 195_755,
  });
  // NL 21% of 0.50 = 0.105 -> 0.11
  expect(orderTotals([50], { country: 'NL', region: '' })).toEqual({
    subtotal: 50,
    tax: 11,
    shipping: 1_500,
    total: 1_561,
  });
});

it('refuses totals beyond exact integers (422 naming items)', () => {
  expect(() => orderTotals([Number.MAX_SAFE_INTEGER, 1], { country: 'US', region: 'OR' })).toThrow(
    expect.objectContaining({ status: 422, param: 'items' }),
  );
});
