// Server-rendered sign-in and consent pages: plain HTML with labelled fields, a CSRF token in every
// form, no script. Everything interpolated is escaped.
const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are',
  profile: 'See your name, employee ID, department and cost center',
  email: 'See your email address',
  offline_access: 'Stay signed in',
  'orders:read': 'Read your orders and their history',
  'orders:write': 'Place and cancel orders',
  'catalog:read': 'Read the catalog, prices and availability',
  'users:read': 'Read shopper records of your account',
  'users:write': 'Create, update and deactivate shopper records',
  'admin:all': 'Administer your customer account',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function layout(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${head}<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#111}
label{display:block;margin-top:1rem;font-weight:600}
input[type=text],input[type=password],input[type=email]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1.5rem;padding:.6rem 1.2rem;font-size:1rem}
.error{color:#a00;border:1px solid #a00;padding:.5rem}
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export interface SignInView {
  action: string;
  csrfToken: string;
  clientName: string;
  login?: string;
  error?: string;
  /** Where "Sign in with your company account" posts; no such section without it. */
  federationAction?: string;
  email?: string;
  federationError?: string;
  /** Where "Return to the application without signing in" posts (access_denied for the client). */
  cancelAction?: string;
}

function federationSection(view: SignInView): string {
  if (!view.federationAction) return '';
  const error = view.federationError
    ? `<p class="error" role="alert" id="company-sign-in-error">${escapeHtml(view.federationError)}</p>\n`
    : '';
  return `<section aria-labelledby="company-sign-in">
<h2 id="company-sign-in">Sign in with your company account</h2>
${error}<form method="post" action="${escapeHtml(view.federationAction)}"${view.federationError ? ' aria-describedby="company-sign-in-error"' : ''}>
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<label for="email">Work email</label>
<input type="email" id="email" name="email" autocomplete="email" required value="${escapeHtml(view.email ?? '')}"${view.federationError ? ' aria-invalid="true"' : ''}>
<button type="submit">Continue with your company account</button>
</form>
</section>`;
}

export function signInPage(view: SignInView): string {
  const error = view.error
    ? `<p class="error" role="alert" id="sign-in-error">${escapeHtml(view.error)}</p>`
    : '';
  return layout(
    'Sign in',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(view.clientName)}</strong></p>
${error}
<form method="post" action="${escapeHtml(view.action)}" autocomplete="on"${view.error ? ' aria-describedby="sign-in-error"' : ''}>
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<label for="login">Login</label>
<input type="text" id="login" name="login" autocomplete="username" required autofocus value="${escapeHtml(view.login ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${
  view.cancelAction
    ? `<form method="post" action="${escapeHtml(view.cancelAction)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<button type="submit">Return to ${escapeHtml(view.clientName)} without signing in</button>
</form>`
    : ''
}
${federationSection(view)}`,
  );
}

/**
 * The step to the company's identity provider. A page, not a redirect: the sign-in page's CSP
 * (`form-action 'self'`) would stop a browser from following a form post's redirect to another
 * origin. It moves on by itself (meta refresh, no script) and offers a link.
 */
export function federationRedirectPage(view: { url: string; displayName: string }): string {
  const url = escapeHtml(view.url);
  return layout(
    'Continue to your company sign-in',
    `<h1>Continue to ${escapeHtml(view.displayName)}</h1>
<p>You are being sent to your company's sign-in page.</p>
<p><a id="continue" href="${url}">Continue to ${escapeHtml(view.displayName)}</a></p>`,
    `<meta http-equiv="refresh" content="0;url=${url}">\n<meta name="referrer" content="no-referrer">\n`,
  );
}

export interface ConsentView {
  action: string;
  abortAction: string;
  csrfToken: string;
  clientName: string;
  scopes: string[];
}

export function consentPage(view: ConsentView): string {
  const items = view.scopes
    .map((s) => `<li>${escapeHtml(SCOPE_TEXT[s] ?? s)} <code>${escapeHtml(s)}</code></li>`)
    .join('\n');
  return layout(
    'Allow access',
    `<h1>Allow access</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to:</p>
<ul>
${items}
</ul>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<button type="submit">Allow</button>
</form>
<form method="post" action="${escapeHtml(view.abortAction)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(view.csrfToken)}">
<button type="submit">Deny</button>
</form>`,
  );
}

export function errorPage(error: string, description: string | undefined): string {
  return layout(
    'Sign-in error',
    `<h1>Something went wrong</h1>
<p><strong>${escapeHtml(error)}</strong></p>
${description ? `<p>${escapeHtml(description)}</p>` : ''}
<p>Go back to the application and start signing in again.</p>`,
  );
}
