// The catalog's internal pricing call (libs/contracts internal/catalog-pricing.ts): every line of an
// order priced in one round trip. A catalog that is down, slow or answers something unexpected is
// 503 `service_unavailable` for our caller (InternalApiClient), and nothing is written.
import {
  CATALOG_PRICES_PATH,
  PriceLinesResponse,
  type PriceLinesRequest,
  type PriceLinesResponse as Quote,
} from '@ordering/contracts';
import { UnavailableError } from '@ordering/errors';
import { InternalApiClient } from '@ordering/http';

export class CatalogPricingClient {
  private readonly api: InternalApiClient;

  constructor(options: { baseUrl: string; secret: string; timeoutMs?: number }) {
    this.api = new InternalApiClient({ ...options, caller: 'orders', callee: 'catalog' });
  }

  async price(request: PriceLinesRequest): Promise<Quote> {
    const res = await this.api.request('POST', CATALOG_PRICES_PATH, request);
    if (res.status !== 200) throw this.api.unexpected(res, CATALOG_PRICES_PATH);
    const parsed = PriceLinesResponse.safeParse(res.body);
    if (!parsed.success || parsed.data.lines.length !== request.lines.length) {
      throw new UnavailableError('The catalog service answered a malformed price quote');
    }
    return parsed.data;
  }
}
