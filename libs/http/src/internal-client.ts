// Calls from one service to another's internal API (`/internal/...`, never routed by the gateway).
// Each call carries an internal identity signed with INTERNAL_IDENTITY_SECRET and a time bound; a
// service that cannot be reached, times out or fails (5xx) becomes 503 `service_unavailable` for
// the caller's own client, so nothing half-done is reported as success.
import { randomUUID } from 'node:crypto';
import { UnavailableError } from '@ordering/errors';
import { ATTR, recordError, startClientSpan } from '@ordering/telemetry';
import { IDENTITY_HEADER, INTERNAL_SCOPE, signIdentity } from './identity';

export interface InternalClientOptions {
  /** Base URL of the called service, e.g. http://catalog:8102 */
  baseUrl: string;
  /** INTERNAL_IDENTITY_SECRET */
  secret: string;
  /** The calling service's name (the identity's subject is `service:<caller>`). */
  caller: string;
  /** The called service's name, for error messages. */
  callee: string;
  /** Bound on one call; default 5 s. */
  timeoutMs?: number;
}

export interface InternalResponse<T = unknown> {
  status: number;
  body: T;
}

export class InternalApiClient {
  private readonly timeoutMs: number;

  constructor(private readonly options: InternalClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * One call; resolves with any 2xx or 4xx answer (the caller decides what a 404 means) and throws
   * UnavailableError for no answer, a timeout or a 5xx.
   */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<InternalResponse<T>> {
    const { caller, callee } = this.options;
    const identity = signIdentity(
      {
        sub: `service:${caller}`,
        cust_id: '*',
        login: caller,
        client_id: `service:${caller}`,
        scopes: [INTERNAL_SCOPE],
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      this.options.secret,
    );
    // A CLIENT span whose traceparent the called service continues.
    const { span, headers: trace } = startClientSpan(`${method} ${callee}`, { [ATTR.service]: callee });
    try {
      const answer = await this.send<T>(method, path, body, identity, trace);
      if (span.isRecording()) span.setAttribute('http.response.status_code', answer.status);
      return answer;
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  private async send<T>(
    method: string,
    path: string,
    body: unknown,
    identity: string,
    trace: Record<string, string>,
  ): Promise<InternalResponse<T>> {
    const { callee } = this.options;
    let res: Response;
    try {
      res = await fetch(`${this.options.baseUrl}${path}`, {
        method,
        headers: {
          ...trace,
          [IDENTITY_HEADER]: identity,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      throw Object.assign(new UnavailableError(`The ${callee} service is unavailable; retry later`), {
        cause,
      });
    }
    if (res.status >= 500) {
      await res.body?.cancel();
      throw new UnavailableError(`The ${callee} service is unavailable; retry later`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch (cause) {
      throw Object.assign(new UnavailableError(`The ${callee} service answered something other than JSON`), {
        cause,
      });
    }
    return { status: res.status, body: parsed as T };
  }

  /** An answer the caller did not expect (a 4xx it has no meaning for): treated as unavailable. */
  unexpected(res: InternalResponse, path: string): UnavailableError {
    return new UnavailableError(`The ${this.options.callee} service answered ${res.status} to ${path}`);
  }
}
