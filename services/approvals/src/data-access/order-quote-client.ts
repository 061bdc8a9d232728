// The orders service's internal quote (pricing a draft order without creating it). Its refusals
// (404 account out of reach, 422 naming the field) are the caller's own errors, passed on as they are.
import { ORDER_QUOTE_PATH } from '@ordering/contracts';
import { AppError, type ErrorType } from '@ordering/errors';
import { InternalApiClient } from '@ordering/http';
import type { OrderQuote, OrderQuotes } from '../domain/ports';

interface ErrorBody {
  error?: { type?: ErrorType; code?: string; message?: string; param?: string };
}

export class OrderQuoteClient implements OrderQuotes {
  private readonly api: InternalApiClient;

  constructor(options: { baseUrl: string; secret: string; timeoutMs?: number }) {
    this.api = new InternalApiClient({ ...options, caller: 'approvals', callee: 'orders' });
  }

  async quote(onBehalfOf: { cust_id: string; login: string }, draft: unknown): Promise<OrderQuote> {
    const res = await this.api.request('POST', ORDER_QUOTE_PATH, { on_behalf_of: onBehalfOf, order: draft });
    if (res.status === 200) return res.body as OrderQuote;
    const error = (res.body as ErrorBody | undefined)?.error;
    if ((res.status === 404 || res.status === 422) && error?.type && error.code) {
      throw new AppError(res.status, error.type, error.code, error.message ?? 'Invalid order', {
        ...(error.param ? { param: error.param } : {}),
      });
    }
    throw this.api.unexpected(res, ORDER_QUOTE_PATH);
  }
}
