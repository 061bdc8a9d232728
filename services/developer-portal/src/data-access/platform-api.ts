// The public API, called through the gateway with the signed-in admin's own token: the portal has
// no access of its own. Shapes are the contracts' (libs/contracts); an error answer becomes an
// ApiError with the API's `error` object so that pages can show its message and field.
import { randomUUID } from 'node:crypto';
import type {
  OAuthClientResource,
  OAuthClientWithSecret,
  WebhookDelivery,
  WebhookSubscription,
  WebhookSubscriptionWithSecret,
} from '@ordering/contracts';

export interface ApiErrorBody {
  type?: string;
  code?: string;
  message?: string;
  param?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(body.message ?? `The API answered ${status}`);
    this.name = 'ApiError';
  }
}

export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface WebhookReplayResult {
  object: 'webhook_replay';
  count: number;
  dry_run: boolean;
}

export type Query = Record<string, string | undefined>;

export class PlatformApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** The API for one signed-in admin's token. */
  as(accessToken: string): AdminApi {
    return new AdminApi(this.baseUrl, this.timeoutMs, accessToken);
  }
}

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

const seg = encodeURIComponent;

export class AdminApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly accessToken: string,
  ) {}

  private async call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    // `.` and `..` segments (an id of a page's URL) would be resolved as steps up the path and send
    // the admin's token to another endpoint of the API: no resource has such an id.
    if (
      path
        .split('?')[0]!
        .split('/')
        .some((part) => part === '.' || part === '..')
    )
      throw new ApiError(404, { message: 'Not found' });
    let res: Response;
    try {
      res = await this.send(method, path, body, headers);
    } catch (err) {
      // Unreachable or too slow: the platform did not answer (a page says so, 502).
      throw new ApiError(503, {
        code: 'platform_unreachable',
        message: err instanceof Error ? err.message : String(err),
      });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const error = (json as { error?: ApiErrorBody } | undefined)?.error ?? {};
      throw new ApiError(res.status, error);
    }
    return json as T;
  }

  private send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<Response> {
    return fetch(new URL(path, this.baseUrl), {
      method,
      headers: {
        Authorization: `Bearer ${this.accessToken}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }

  listOAuthClients(query: Query) {
    return this.call<ListPage<OAuthClientResource>>('GET', withQuery('/v1/oauth_clients', query));
  }

  rotateOAuthClientSecret(id: string) {
    return this.call<OAuthClientWithSecret>('POST', `/v1/oauth_clients/${seg(id)}/rotate_secret`);
  }

  listWebhooks(query: Query) {
    return this.call<ListPage<WebhookSubscription>>('GET', withQuery('/v1/webhooks', query));
  }

  getWebhook(id: string) {
    return this.call<WebhookSubscription>('GET', `/v1/webhooks/${seg(id)}`);
  }

  /** Creation with an Idempotency-Key of the form (a second submit answers the first creation). */
  createWebhook(
    body: { url: string; events: string[]; ordering?: string; description?: string },
    idempotencyKey: string = randomUUID(),
  ) {
    return this.call<WebhookSubscriptionWithSecret>('POST', '/v1/webhooks', body, {
      'Idempotency-Key': idempotencyKey,
    });
  }

  updateWebhook(id: string, body: Record<string, unknown>) {
    return this.call<WebhookSubscription>('PATCH', `/v1/webhooks/${seg(id)}`, body);
  }

  deleteWebhook(id: string) {
    return this.call<{ id: string; deleted: true }>('DELETE', `/v1/webhooks/${seg(id)}`);
  }

  rotateWebhookSecret(id: string) {
    return this.call<WebhookSubscriptionWithSecret>('POST', `/v1/webhooks/${seg(id)}/rotate_secret`);
  }

  testWebhook(id: string) {
    return this.call<WebhookDelivery>('POST', `/v1/webhooks/${seg(id)}/test`);
  }

  listDeliveries(id: string, query: Query) {
    return this.call<ListPage<WebhookDelivery>>(
      'GET',
      withQuery(`/v1/webhooks/${seg(id)}/deliveries`, query),
    );
  }

  getDelivery(id: string, deliveryId: string) {
    return this.call<WebhookDelivery>('GET', `/v1/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}`);
  }

  replayDelivery(id: string, deliveryId: string) {
    return this.call<WebhookDelivery>('POST', `/v1/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}/replay`);
  }

  replayRange(id: string, body: { since: string; until?: string; dry_run: boolean }) {
    return this.call<WebhookReplayResult>('POST', `/v1/webhooks/${seg(id)}/replay`, body);
  }
}
