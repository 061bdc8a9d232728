// Webhook subscriptions: the list, the form (create and edit), one subscription with its actions,
// and the confirmation of a deletion.
import { SUBSCRIBABLE_EVENT_TYPES, type WebhookSubscription } from '@ordering/contracts';
import { html, type Html } from './html';
import { csrfField, formError, formatTime, page, type PageUser } from './layout';

export interface WebhookFormValues {
  url: string;
  events: string[];
  description: string;
  status?: string;
  /** `none` or `per_resource` (an order's events in order, each after the previous settled). */
  ordering: string;
}

const statusBadge = (status: string) =>
  html`<span class="badge ${status === 'enabled' ? 'badge-ok' : 'badge-muted'}">${status}</span>`;

export function webhooksPage(options: {
  user: PageUser;
  subscriptions: WebhookSubscription[];
  nextCursor: string | null;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
}): string {
  const rows = options.subscriptions.map(
    (s) =>
      html`<tr>
        <td>
          <a href="/webhooks/${s.id}">${s.url}</a><br /><span class="muted">${s.description ?? ''}</span>
        </td>
        <td>${s.events.join(', ')}</td>
        <td>${statusBadge(s.status)}</td>
        <td>${formatTime(s.created_at)}</td>
        <td>
          <a href="/webhooks/${s.id}/deliveries"
            >Deliveries<span class="visually-hidden"> of ${s.url}</span></a
          >
        </td>
      </tr>`,
  );
  return page({
    title: 'Webhook subscriptions',
    user: options.user,
    section: 'webhooks',
    flash: options.flash,
    body: html`<h1>Webhook subscriptions</h1>
      <p class="actions"><a class="button" href="/webhooks/new">New subscription</a></p>
      ${
        options.subscriptions.length === 0
          ? html`<p>No subscriptions yet.</p>`
          : html`<div class="table-wrap" role="region" aria-label="Webhook subscriptions" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Endpoint</th>
                    <th scope="col">Events</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                    <th scope="col"><span class="visually-hidden">Deliveries</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>
            </div>`
      }
      ${
        options.nextCursor
          ? html`<p>
              <a href="/webhooks?starting_after=${encodeURIComponent(options.nextCursor)}">Next page</a>
            </p>`
          : ''
      }`,
  });
}

function eventCheckboxes(selected: string[]): Html {
  return html`<fieldset>
    <legend>Events</legend>
    ${SUBSCRIBABLE_EVENT_TYPES.map(
      (type) =>
        html`<label class="checkbox"
          ><input
            type="checkbox"
            name="events"
            value="${type}"
            ${selected.includes(type) ? html`checked` : ''}
          />
          <code>${type}</code></label
        >`,
    )}
  </fieldset>`;
}

export function webhookFormPage(options: {
  user: PageUser;
  mode: 'create' | 'edit';
  subscription?: WebhookSubscription;
  values: WebhookFormValues;
  error?: string | undefined;
  idempotencyKey?: string;
}): string {
  const { values, mode } = options;
  const action = mode === 'create' ? '/webhooks' : `/webhooks/${options.subscription!.id}`;
  const title = mode === 'create' ? 'New webhook subscription' : 'Edit webhook subscription';
  return page({
    title,
    user: options.user,
    section: 'webhooks',
    body: html`<h1>${title}</h1>
      ${formError(options.error)}
      <form method="post" action="${action}" ${options.error ? html`aria-describedby="form-error"` : ''}>
        ${csrfField(options.user.csrfToken)}
        ${options.idempotencyKey ? html`<input type="hidden" name="idempotency_key" value="${options.idempotencyKey}" />` : ''}
        <label for="url">Endpoint URL <span class="hint">https, reachable from the internet</span></label>
        <input type="url" id="url" name="url" required value="${values.url}" autocomplete="url" />
        ${eventCheckboxes(values.events)}
        <label for="description">Description <span class="hint">optional</span></label>
        <input
          type="text"
          id="description"
          name="description"
          maxlength="500"
          value="${values.description}"
        />
        <fieldset>
          <legend>Order of delivery</legend>
          <label class="checkbox"
            ><input
              type="radio"
              name="ordering"
              value="none"
              ${values.ordering !== 'per_resource' ? html`checked` : ''}
            />
            As fast as possible (events of one order may arrive out of order)</label
          >
          <label class="checkbox"
            ><input
              type="radio"
              name="ordering"
              value="per_resource"
              ${values.ordering === 'per_resource' ? html`checked` : ''}
            />
            In order per resource (each waits until the previous one succeeded or failed for good)</label
          >
        </fieldset>
        ${
          mode === 'edit'
            ? html`<fieldset>
                <legend>Status</legend>
                <label class="checkbox"
                  ><input
                    type="radio"
                    name="status"
                    value="enabled"
                    ${values.status === 'enabled' ? html`checked` : ''}
                  />
                  Enabled: events are delivered</label
                >
                <label class="checkbox"
                  ><input
                    type="radio"
                    name="status"
                    value="disabled"
                    ${values.status === 'disabled' ? html`checked` : ''}
                  />
                  Disabled: nothing is sent; pending deliveries wait until it is enabled</label
                >
              </fieldset>`
            : ''
        }
        <p class="actions">
          <button type="submit">${mode === 'create' ? 'Create subscription' : 'Save changes'}</button>
          <a href="${mode === 'create' ? '/webhooks' : `/webhooks/${options.subscription!.id}`}">Cancel</a>
        </p>
      </form>`,
  });
}

/**
 * What a disabled subscription means for its deliveries (the webhooks service's README, "Disabled
 * subscriptions"), on every page about it.
 */
export function disabledNote(): Html {
  return html`<p class="notice" role="note">
    <strong>Disabled:</strong> no event is sent to this endpoint. Pending deliveries are held (no attempt) and
    go out as soon as it is enabled again; one whose 24 hours of retries end meanwhile fails. Replays need it
    enabled; a test event still goes (check the endpoint, then enable it).
  </p>`;
}

export function webhookPage(options: {
  user: PageUser;
  subscription: WebhookSubscription;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
}): string {
  const s = options.subscription;
  const csrf = csrfField(options.user.csrfToken);
  return page({
    title: `Webhook ${s.url}`,
    user: options.user,
    section: 'webhooks',
    flash: options.flash,
    body: html`<p><a href="/webhooks">← All subscriptions</a></p>
      <h1>Webhook subscription</h1>
      <dl class="facts">
        <dt>Endpoint</dt>
        <dd><code>${s.url}</code></dd>
        <dt>Id</dt>
        <dd><code>${s.id}</code></dd>
        <dt>Status</dt>
        <dd>${statusBadge(s.status)}</dd>
        <dt>Events</dt>
        <dd>${s.events.map((e, i) => html`${i ? ', ' : ''}<code>${e}</code>`)}</dd>
        <dt>Description</dt>
        <dd>${s.description ?? '—'}</dd>
        <dt>Order of delivery</dt>
        <dd>
          ${(s as { ordering?: string }).ordering === 'per_resource' ? 'in order per resource' : 'as fast as possible'}
        </dd>
        <dt>Created</dt>
        <dd>${formatTime(s.created_at)}</dd>
      </dl>
      ${s.status === 'disabled' ? disabledNote() : ''}
      <div class="actions">
        <a class="button" href="/webhooks/${s.id}/deliveries">Deliveries</a>
        <a class="button secondary" href="/webhooks/${s.id}/edit">Edit</a>
        <form method="post" action="/webhooks/${s.id}/test" class="inline">
          ${csrf}<button type="submit" class="secondary">Send a test event</button>
        </form>
        <form method="post" action="/webhooks/${s.id}" class="inline">
          ${csrf}<input
            type="hidden"
            name="status"
            value="${s.status === 'enabled' ? 'disabled' : 'enabled'}"
          />
          <input type="hidden" name="only_status" value="1" />
          <button type="submit" class="secondary">${s.status === 'enabled' ? 'Disable' : 'Enable'}</button>
        </form>
        <form method="post" action="/webhooks/${s.id}/rotate-secret" class="inline">
          ${csrf}<button type="submit" class="secondary">Rotate signing secret</button>
        </form>
        ${
          s.status === 'enabled'
            ? html`<a class="button secondary" href="/webhooks/${s.id}/replay">Replay failed deliveries</a>`
            : ''
        }
        <a class="button danger" href="/webhooks/${s.id}/delete">Delete</a>
      </div>`,
  });
}

export function deleteWebhookPage(options: { user: PageUser; subscription: WebhookSubscription }): string {
  const s = options.subscription;
  return page({
    title: 'Delete webhook subscription',
    user: options.user,
    section: 'webhooks',
    body: html`<h1>Delete this subscription?</h1>
      <p>Events stop being delivered to <code>${s.url}</code>. This cannot be undone.</p>
      <form method="post" action="/webhooks/${s.id}/delete" class="actions">
        ${csrfField(options.user.csrfToken)}
        <button type="submit" class="danger">Delete subscription</button>
        <a href="/webhooks/${s.id}">Keep it</a>
      </form>`,
  });
}
