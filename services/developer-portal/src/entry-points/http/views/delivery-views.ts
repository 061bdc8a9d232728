// The deliveries of a subscription (filters, pages), one delivery with each attempt, and the
// replay of a time range after a dry-run count.
import {
  ALL_EVENT_TYPES,
  WEBHOOK_DELIVERY_STATUSES,
  type WebhookDelivery,
  type WebhookSubscription,
} from '@ordering/contracts';
import { html, type Html } from './html';
import { csrfField, formError, formatTime, page, type PageUser } from './layout';
import { disabledNote } from './webhook-views';

export interface DeliveryFilters {
  status?: string | undefined;
  event_type?: string | undefined;
  created_after?: string | undefined;
  created_before?: string | undefined;
}

const deliveryBadge = (status: string) =>
  html`<span
    class="badge ${status === 'succeeded' ? 'badge-ok' : status === 'failed' ? 'badge-bad' : 'badge-warn'}"
    >${status}</span
  >`;

/** When a delivery is tried next: a pending one of a disabled subscription is held, whatever its time. */
function nextAttempt(s: WebhookSubscription, d: WebhookDelivery): Html | string {
  if (d.status === 'pending' && s.status === 'disabled') return html`held: the subscription is disabled`;
  return formatTime(d.next_attempt_at);
}

/** `2026-11-24T01:02` (a datetime-local value, UTC) from an ISO time, or ''. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 16);
}

function select(name: string, label: string, options: readonly string[], value: string | undefined): Html {
  return html`<div>
    <label for="${name}">${label}</label>
    <select id="${name}" name="${name}">
      <option value="">Any</option>
      ${options.map((o) => html`<option value="${o}" ${o === value ? html`selected` : ''}>${o}</option>`)}
    </select>
  </div>`;
}

export function deliveriesPage(options: {
  user: PageUser;
  subscription: WebhookSubscription;
  deliveries: WebhookDelivery[];
  filters: DeliveryFilters;
  nextCursor: string | null;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
  error?: string | undefined;
}): string {
  const s = options.subscription;
  const f = options.filters;
  const next = new URLSearchParams(
    Object.entries({ ...f, starting_after: options.nextCursor ?? '' }).filter(([, v]) => v) as [
      string,
      string,
    ][],
  );
  const rows = options.deliveries.map(
    (d) =>
      html`<tr>
        <td>
          <a href="/webhooks/${s.id}/deliveries/${d.id}"><code>${d.id}</code></a>
        </td>
        <td><code>${d.event_type}</code></td>
        <td>${deliveryBadge(d.status)}</td>
        <td>${d.attempts.length}</td>
        <td>${formatTime(d.created_at)}</td>
        <td>${nextAttempt(s, d)}</td>
      </tr>`,
  );
  return page({
    title: 'Deliveries',
    user: options.user,
    section: 'webhooks',
    flash: options.flash,
    body: html`<p><a href="/webhooks/${s.id}">← Subscription</a></p>
      <h1>Deliveries to <code>${s.url}</code></h1>
      ${s.status === 'disabled' ? disabledNote() : ''} ${formError(options.error)}
      <form method="get" action="/webhooks/${s.id}/deliveries" class="filters" aria-label="Filter deliveries">
        ${select('status', 'Status', WEBHOOK_DELIVERY_STATUSES, f.status)}
        ${select('event_type', 'Event type', ALL_EVENT_TYPES, f.event_type)}
        <div>
          <label for="created_after">Created from <span class="hint">UTC</span></label>
          <input
            type="datetime-local"
            id="created_after"
            name="created_after"
            value="${toLocalInput(f.created_after)}"
          />
        </div>
        <div>
          <label for="created_before">Created before <span class="hint">UTC</span></label>
          <input
            type="datetime-local"
            id="created_before"
            name="created_before"
            value="${toLocalInput(f.created_before)}"
          />
        </div>
        <div><button type="submit">Filter</button></div>
      </form>
      ${
        s.status === 'enabled'
          ? html`<p class="actions">
              <a href="/webhooks/${s.id}/replay">Replay failed deliveries of a time range</a>
            </p>`
          : ''
      }
      ${
        options.deliveries.length === 0
          ? html`<p>No deliveries match.</p>`
          : html`<div class="table-wrap" role="region" aria-label="Deliveries" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Delivery</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Created</th>
                    <th scope="col">Next attempt</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>
            </div>`
      }
      ${options.nextCursor ? html`<p><a href="/webhooks/${s.id}/deliveries?${next.toString()}">Next page</a></p>` : ''}`,
  });
}

export function deliveryPage(options: {
  user: PageUser;
  subscription: WebhookSubscription;
  delivery: WebhookDelivery;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
}): string {
  const { subscription: s, delivery: d } = options;
  const attempts = d.attempts.map((a, i) => {
    const excerpt = (a as Record<string, unknown>).response_excerpt;
    return html`<tr>
      <td>${i + 1}</td>
      <td>${formatTime(a.attempted_at)}</td>
      <td>${a.status_code ?? '—'}</td>
      <td>${a.latency_ms === null ? '—' : `${a.latency_ms} ms`}</td>
      <td>${a.error ?? '—'}</td>
      <td>${typeof excerpt === 'string' && excerpt ? html`<pre>${excerpt}</pre>` : '—'}</td>
    </tr>`;
  });
  return page({
    title: `Delivery ${d.id}`,
    user: options.user,
    section: 'webhooks',
    flash: options.flash,
    body: html`<p><a href="/webhooks/${s.id}/deliveries">← Deliveries</a></p>
      <h1>Delivery <code>${d.id}</code></h1>
      <dl class="facts">
        <dt>Event</dt>
        <dd><code>${d.event_type}</code> (<code>${d.event_id}</code>)</dd>
        <dt>Status</dt>
        <dd>${deliveryBadge(d.status)}</dd>
        <dt>Created</dt>
        <dd>${formatTime(d.created_at)}</dd>
        <dt>Next attempt</dt>
        <dd>${nextAttempt(s, d)}</dd>
      </dl>
      ${
        s.status === 'disabled'
          ? disabledNote()
          : html`<form method="post" action="/webhooks/${s.id}/deliveries/${d.id}/replay" class="actions">
              ${csrfField(options.user.csrfToken)}
              <button type="submit">Replay this delivery</button>
              <span class="hint">Sent again with the same <code>Service-Delivery</code> id.</span>
            </form>`
      }
      <h2>Attempts</h2>
      ${
        d.attempts.length === 0
          ? html`<p>No attempt yet.</p>`
          : html`<div class="table-wrap" role="region" aria-label="Attempts" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">Time</th>
                    <th scope="col">HTTP status</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Error</th>
                    <th scope="col">Response excerpt</th>
                  </tr>
                </thead>
                <tbody>
                  ${attempts}
                </tbody>
              </table>
            </div>`
      }`,
  });
}

export function replayPage(options: {
  user: PageUser;
  subscription: WebhookSubscription;
  since: string;
  until: string;
  /** After the dry run: how many failed deliveries the range holds. */
  count?: number;
  /** After the dry run: the end of the range it counted (ISO), which the confirmation replays. */
  countedUntil?: string | undefined;
  error?: string | undefined;
}): string {
  const s = options.subscription;
  const csrf = csrfField(options.user.csrfToken);
  return page({
    title: 'Replay failed deliveries',
    user: options.user,
    section: 'webhooks',
    body: html`<p><a href="/webhooks/${s.id}/deliveries">← Deliveries</a></p>
      <h1>Replay failed deliveries</h1>
      ${s.status === 'disabled' ? disabledNote() : ''}
      <p>
        Every <em>failed</em> delivery to <code>${s.url}</code> created in the range is sent again. First
        count them.
      </p>
      ${formError(options.error)}
      <form method="post" action="/webhooks/${s.id}/replay">
        ${csrf}<input type="hidden" name="dry_run" value="true" />
        <label for="since">From <span class="hint">UTC, inclusive</span></label>
        <input type="datetime-local" id="since" name="since" required value="${options.since}" />
        <label for="until">Until <span class="hint">UTC, exclusive; empty: now</span></label>
        <input type="datetime-local" id="until" name="until" value="${options.until}" />
        <p class="actions"><button type="submit" class="secondary">Count failed deliveries</button></p>
      </form>
      ${
        options.count === undefined
          ? ''
          : html`<section aria-labelledby="dry-run-result">
              <h2 id="dry-run-result">Dry run</h2>
              <p role="status">
                <strong>${options.count}</strong> failed ${options.count === 1 ? 'delivery' : 'deliveries'} in
                this range would be sent again.
              </p>
              ${
                options.countedUntil && !options.until
                  ? html`<p>
                      The range ends at ${options.countedUntil.slice(0, 19).replace('T', ' ')} UTC, when they
                      were counted.
                    </p>`
                  : ''
              }
              ${
                options.count > 0 && s.status === 'enabled'
                  ? html`<form method="post" action="/webhooks/${s.id}/replay">
                      ${csrf}<input type="hidden" name="dry_run" value="false" />
                      <input type="hidden" name="since" value="${options.since}" />
                      <input type="hidden" name="until" value="${options.countedUntil ?? options.until}" />
                      <button type="submit">
                        Replay ${options.count} ${options.count === 1 ? 'delivery' : 'deliveries'}
                      </button>
                    </form>`
                  : ''
              }
            </section>`
      }`,
  });
}
