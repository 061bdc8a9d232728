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

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#111}
label{display:block;margin-top:1rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
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
</form>`,
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
