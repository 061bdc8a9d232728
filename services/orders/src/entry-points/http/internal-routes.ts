// The internal API (never routed by the gateway): a quote of a draft order without creating it,
// for the approvals service's preview. The caller names on whose behalf it asks (the token it
// verified), so the same reach rules apply.
import { Router } from 'express';
import { CreateOrderRequest, requestObject } from '@ordering/contracts';
import { parseBody } from '@ordering/http';
import { z } from 'zod';
import { quoteOrder } from '../../domain/quote-order';
import type { UseCases } from '../../domain/use-cases';

const QuoteRequest = requestObject({
  on_behalf_of: requestObject({ cust_id: z.string().min(1), login: z.string().min(1) }),
  order: z.unknown(),
});

export function internalRoutes(uc: UseCases): Router {
  const router = Router();
  router.post('/internal/v1/orders/quote', async (req, res) => {
    const { on_behalf_of: who, order } = parseBody(QuoteRequest, req.body);
    const draft = parseBody(CreateOrderRequest, order);
    const quote = await quoteOrder(uc, { custId: who.cust_id, login: who.login, scopes: [] }, draft);
    const money = (amount: number) => ({ amount, currency: quote.currency });
    res.json({
      object: 'order_quote',
      cust_id: quote.cust_id,
      subtotal: money(quote.subtotal),
      tax: money(quote.tax),
      shipping: money(quote.shipping),
      total: money(quote.total),
      approval_required_over: quote.threshold === null ? null : money(quote.threshold),
      above_threshold: quote.aboveThreshold,
    });
  });
  return router;
}
