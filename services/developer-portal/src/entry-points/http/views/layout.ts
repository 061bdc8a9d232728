// The page frame: skip link, header with the navigation and the signed-in user, one <main> with
// the page's <h1>, a message shown once. No script anywhere; one stylesheet of our own.
import { html, type Fragment, type Html } from './html';
import { STYLESHEET_PATH } from './assets';

export interface PageUser {
  name: string;
  login: string;
  custId: string;
  csrfToken: string;
}

export interface PageOptions {
  title: string;
  user?: PageUser | undefined;
  /** Which navigation entry is the current page. */
  section?: 'clients' | 'webhooks' | undefined;
  flash?: { kind: 'success' | 'error'; text: string } | undefined;
  body: Fragment;
}

function nav(section: PageOptions['section']): Html {
  const link = (href: string, label: string, key: PageOptions['section']) =>
    html`<li><a href="${href}" ${section === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Main">
    <ul>
      ${link('/webhooks', 'Webhooks', 'webhooks')} ${link('/oauth-clients', 'OAuth clients', 'clients')}
    </ul>
  </nav>`;
}

export function page(options: PageOptions): string {
  const { user } = options;
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · Developer portal</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml" />
      </head>
      <body>
        <a class="skip-link" href="#main">Skip to content</a>
        <header class="site-header">
          <a class="brand" href="/">Ordering · Developer portal</a>
          ${user ? nav(options.section) : ''}
          ${
            user
              ? html`<div class="user">
                  <span>${user.name} <span class="muted">(${user.login}, ${user.custId})</span></span>
                  <form method="post" action="/sign-out">
                    ${csrfField(user.csrfToken)}
                    <button type="submit" class="link-button">Sign out</button>
                  </form>
                </div>`
              : ''
          }
        </header>
        <main id="main" tabindex="-1">
          ${
            options.flash
              ? html`<p
                  class="flash flash-${options.flash.kind}"
                  role="${options.flash.kind === 'error' ? 'alert' : 'status'}"
                >
                  ${options.flash.text}
                </p>`
              : ''
          }
          ${options.body}
        </main>
      </body>
    </html>`.value
  }`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="csrf_token" value="${token}" />`;
}

/** An error of a form, announced and linked to its field. */
export function formError(message: string | undefined): Html | '' {
  return message ? html`<p class="form-error" role="alert" id="form-error">${message}</p>` : '';
}

export function formatTime(iso: string | null | undefined): Html | string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return html`<time datetime="${d.toISOString()}"
    >${d.toISOString().replace('T', ' ').slice(0, 19)} UTC</time
  >`;
}
