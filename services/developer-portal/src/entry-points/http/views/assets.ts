// The portal's only assets, compiled into the bundle (no CDN, nothing fetched from elsewhere): one
// stylesheet and an icon, served by the portal itself under a content-hashed path.
import { createHash } from 'node:crypto';

const CSS = `
:root { --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --accent: #0a5bd3; --accent-fg: #ffffff;
  --border: #d0d7de; --ok: #116329; --warn: #7d4e00; --bad: #a40e26; --soft: #f6f8fa; --focus: #bf4c00; }
* { box-sizing: border-box; }
html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px; color: var(--fg); background: var(--bg); }
body { margin: 0; line-height: 1.5; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip-link { position: absolute; left: -999px; top: 0; background: var(--bg); padding: .5rem 1rem; }
.skip-link:focus { left: .5rem; z-index: 10; }
.site-header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; padding: .75rem 1rem;
  border-bottom: 1px solid var(--border); background: var(--soft); }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
nav ul { list-style: none; display: flex; gap: 1rem; margin: 0; padding: 0; flex-wrap: wrap; }
nav a[aria-current="page"] { font-weight: 700; text-decoration-thickness: 3px; }
.user { margin-left: auto; display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; }
.user form { margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
main:focus { outline: none; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
.muted { color: var(--muted); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.table-wrap { position: relative; overflow-x: auto; border: 1px solid var(--border); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .5rem .75rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
tr:last-child td { border-bottom: 0; }
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.secret { display: block; padding: .75rem; background: var(--soft); border: 1px solid var(--border); border-radius: 6px; font-size: 1rem; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .875rem; border: 1px solid currentColor; white-space: nowrap; }
.badge-ok { color: var(--ok); } .badge-warn { color: var(--warn); } .badge-bad { color: var(--bad); } .badge-muted { color: var(--muted); }
form.inline { display: inline; margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 1rem 0; }
button, .button { font: inherit; padding: .5rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-fg); cursor: pointer; text-decoration: none; display: inline-block; min-height: 44px; }
button.secondary, .button.secondary { background: var(--bg); color: var(--accent); }
button.danger { background: var(--bad); border-color: var(--bad); }
.link-button { background: none; border: 0; color: var(--accent); text-decoration: underline; padding: .25rem; min-height: 0; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .875rem; }
input[type="text"], input[type="url"], input[type="datetime-local"], select, textarea {
  font: inherit; width: 100%; max-width: 40rem; padding: .5rem; border: 1px solid var(--muted); border-radius: 6px; }
fieldset { border: 1px solid var(--border); border-radius: 6px; margin: .75rem 0; padding: .5rem 1rem; max-width: 40rem; }
legend { font-weight: 600; padding: 0 .25rem; }
.checkbox { display: flex; gap: .5rem; align-items: center; font-weight: 400; margin: .25rem 0; }
.filters { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; }
.filters > div { min-width: 12rem; flex: 1 1 12rem; }
.flash { padding: .75rem 1rem; border-radius: 6px; border: 1px solid; }
.flash-success { color: var(--ok); background: #dafbe1; }
.flash-error, .form-error { color: var(--bad); background: #ffebe9; padding: .75rem 1rem; border-radius: 6px; border: 1px solid; }
.notice { background: #fff8c5; padding: .75rem 1rem; border-radius: 6px; border: 1px solid #d4a72c; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; word-break: break-word; }
pre { white-space: pre-wrap; word-break: break-all; background: var(--soft); padding: .5rem; border-radius: 6px; margin: 0; }
@media (max-width: 40rem) {
  .user { margin-left: 0; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .5rem; }
  th, td { padding: .4rem .5rem; }
}
`;

const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0a5bd3"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>';

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

export const STYLESHEET_PATH = `/assets/portal-${hash(CSS)}.css`;

export const ASSETS: Record<string, { type: string; body: string }> = {
  [STYLESHEET_PATH]: { type: 'text/css; charset=utf-8', body: CSS },
  '/assets/icon.svg': { type: 'image/svg+xml', body: ICON },
};
