// OAuth clients with their secrets' due dates, and the page that shows a new secret once.
import type { OAuthClientResource } from '@ordering/contracts';
import { html, type Html } from './html';
import { csrfField, formatTime, page, type PageUser } from './layout';

const DAY_MS = 24 * 3600 * 1000;

/** Overdue, due within 30 days, or fine. */
export function dueBadge(client: OAuthClientResource, now = Date.now()): Html {
  if (!client.secret_due_at) return html`<span class="badge badge-muted">no secret</span>`;
  const left = Date.parse(client.secret_due_at) - now;
  if (client.secret_overdue || left <= 0)
    return html`<span class="badge badge-bad">overdue: no tokens</span>`;
  const days = Math.ceil(left / DAY_MS);
  if (days <= 30) return html`<span class="badge badge-warn">due in ${days} days</span>`;
  return html`<span class="badge badge-ok">due in ${days} days</span>`;
}

export function oauthClientsPage(options: {
  user: PageUser;
  clients: OAuthClientResource[];
  nextCursor: string | null;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
}): string {
  const { user, clients } = options;
  const rows = clients.map(
    (c) =>
      html`<tr>
        <td><strong>${c.name}</strong><br /><code>${c.id}</code></td>
        <td>${c.type}<br /><span class="muted">${c.cust_id}</span></td>
        <td>${c.status}</td>
        <td>${formatTime(c.secret_issued_at)}</td>
        <td>${formatTime(c.secret_due_at)}<br />${dueBadge(c)}</td>
        <td>
          ${
            c.previous_secret_expires_at
              ? html`<span class="muted"
                    >Previous secret works until ${formatTime(c.previous_secret_expires_at)}</span
                  ><br />`
              : ''
          }
          ${
            c.type !== 'native' && c.status === 'active'
              ? html`<form method="post" action="/oauth-clients/${c.id}/rotate-secret" class="inline">
                  ${csrfField(user.csrfToken)}
                  <button type="submit" class="secondary">
                    Rotate secret<span class="visually-hidden"> of ${c.name}</span>
                  </button>
                </form>`
              : ''
          }
        </td>
      </tr>`,
  );
  return page({
    title: 'OAuth clients',
    user,
    section: 'clients',
    flash: options.flash,
    body: html`<h1>OAuth clients</h1>
      <p>
        Each client secret falls due 180 days after it was issued; from then on it gets no tokens until it is
        rotated. A rotation shows the new secret once; the previous one keeps working for 24 hours so that
        your deployment can switch.
      </p>
      ${
        clients.length === 0
          ? html`<p>Your account has no OAuth clients.</p>`
          : html`<div class="table-wrap" role="region" aria-label="OAuth clients" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Secret issued</th>
                    <th scope="col">Secret due</th>
                    <th scope="col">Rotation</th>
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
              <a href="/oauth-clients?starting_after=${encodeURIComponent(options.nextCursor)}">Next page</a>
            </p>`
          : ''
      }`,
  });
}

export function newSecretPage(options: {
  user: PageUser;
  title: string;
  what: string;
  secret: string;
  note: string;
  back: { href: string; label: string };
}): string {
  return page({
    title: options.title,
    user: options.user,
    body: html`<h1>${options.title}</h1>
      <p>${options.what}</p>
      <p role="status"><strong>Copy it now: it is shown this once and cannot be read again.</strong></p>
      <label for="new-secret">New secret</label>
      <input type="text" id="new-secret" class="secret" readonly value="${options.secret}" />
      <p>${options.note}</p>
      <p><a href="${options.back.href}">${options.back.label}</a></p>`,
  });
}
