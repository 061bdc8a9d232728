// Pages every part of the portal uses: the home page and a page that says one thing.
import { html } from './html';
import { page, type PageUser } from './layout';

export function messagePage(options: {
  title: string;
  text: string;
  user?: PageUser | undefined;
  action?: { href: string; label: string };
}): string {
  return page({
    title: options.title,
    user: options.user,
    body: html`<h1>${options.title}</h1>
      <p>${options.text}</p>
      <p>
        <a href="${options.action?.href ?? '/'}">${options.action?.label ?? 'Back to the start page'}</a>
      </p>`,
  });
}

export function homePage(user: PageUser | undefined, isAdmin: boolean): string {
  if (!user) {
    return page({
      title: 'Sign in',
      body: html`<h1>Developer portal</h1>
        <p>
          Manage your account's webhook subscriptions, look at their deliveries and replay them, and rotate
          the secrets of your OAuth clients. Account administrators only.
        </p>
        <p><a class="button" href="/sign-in">Sign in</a></p>`,
    });
  }
  return page({
    title: 'Start',
    user,
    body: html`<h1>Developer portal</h1>
      ${
        isAdmin
          ? html`<ul class="cards">
              <li>
                <a href="/webhooks">Webhook subscriptions</a>: endpoints, events, deliveries, replay, signing
                secrets
              </li>
              <li>
                <a href="/oauth-clients">OAuth clients</a>: when each secret falls due, and its rotation
              </li>
            </ul>`
          : html`<p role="alert" class="form-error">
              Your role does not allow managing webhooks and OAuth clients. Ask an administrator of
              ${user.custId}, or sign out and sign in as an administrator.
            </p>`
      }`,
  });
}
