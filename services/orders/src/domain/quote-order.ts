// Everything about a draft order short of storing it: the account within the caller's reach, the
// shipping address and settings of the account (customers service), every line priced in one call
// (catalog service), the totals, and whether the total is above the approval threshold. Shared by
// placing an order and by the approvals preview (the internal quote endpoint).
import { type CreateOrderRequest, isUnpricedLine, type PricedLine } from '@ordering/contracts';
import { InputError, NotFoundError, UnavailableError } from '@ordering/errors';
import { orderTotals, type Totals } from './money';
import type { ShippingAddressCopy } from './order';
import type { Actor, Directory, Pricing } from './ports';

export interface Quote extends Totals {
  cust_id: string;
  currency: string;
  ordered_by: { login: string; name: string };
  shipping_address: ShippingAddressCopy;
  lines: PricedLine[];
  /** The account's `approval_required_over` amount, or null when orders never need approval. */
  threshold: number | null;
  aboveThreshold: boolean;
}

export async function quoteOrder(
  deps: { directory: Directory; pricing: Pricing },
  actor: Actor,
  draft: CreateOrderRequest,
): Promise<Quote> {
  const custId = draft.cust_id;
  if (!(await deps.directory.withinReach(actor.custId, custId))) {
    throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
  }
  const [account, user, quote] = await Promise.all([
    deps.directory.account(custId),
    deps.directory.user(actor.login),
    deps.pricing.price({
      cust_id: custId,
      lines: draft.items.map((i) => ({ item_code: i.item_code, quantity: i.quantity })),
    }),
  ]);
  if (!account) throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
  const shippingAddressOf = (a: typeof account) =>
    a.addresses.find((x) => x.id === draft.shipping_address_id && x.type === 'shipping');
  let address = shippingAddressOf(account);
  if (!address) {
    // The account may be a cached copy from before the address was added: ask once more, fresh.
    const fresh = await deps.directory.account(custId, { fresh: true });
    address = fresh && shippingAddressOf(fresh);
  }
  if (!address) {
    throw new InputError(
      `No shipping address ${draft.shipping_address_id} for customer ${custId}`,
      'shipping_address_id',
      'invalid_address',
    );
  }
  const lines: PricedLine[] = [];
  for (const [index, line] of quote.lines.entries()) {
    if (isUnpricedLine(line)) {
      // The quantity makes an amount too large; otherwise the item is the line's problem.
      const field = line.error.code === 'amount_too_large' ? 'quantity' : 'item_code';
      throw new InputError(line.error.message, `items[${index}].${field}`, line.error.code);
    }
    lines.push(line);
  }
  if (quote.currency !== account.currency || lines.some((l) => l.line_total.currency !== account.currency)) {
    throw new UnavailableError(
      `The catalog priced in ${quote.currency}; the account pays in ${account.currency}`,
    );
  }
  const name = user?.name ?? actor.login;
  const totals = orderTotals(
    lines.map((l) => l.line_total.amount),
    address,
  );
  const threshold = account.approval_required_over?.amount ?? null;
  return {
    ...totals,
    cust_id: custId,
    currency: account.currency,
    ordered_by: { login: actor.login, name },
    shipping_address: {
      // The account's own attention line (a receiving dock, a department) when its address has
      // one; else the person who ordered.
      attention:
        typeof address.attention === 'string' && address.attention.trim() !== '' ? address.attention : name,
      street_1: address.street_1,
      street_2: typeof address.street_2 === 'string' ? address.street_2 : null,
      city: address.city,
      region: address.region,
      postal_code: address.postal_code,
      country: address.country,
    },
    lines,
    threshold,
    aboveThreshold: threshold !== null && totals.total > threshold,
  };
}
