// A minimal browser for flows across several hosts (our sign-in page and a company identity
// provider): cookies kept per origin and path, redirects followed by hand, forms submitted, and
// the step page to the identity provider (meta refresh) followed. Stops at (and does not fetch)
// any URL starting with one of `stopAt`.
import type { Page } from './browser';

interface StoredCookie {
  origin: string;
  path: string;
  name: string;
  value: string;
}

export class ScopedBrowser {
  private cookies: StoredCookie[] = [];
  /** Sent with every request, e.g. the `X-Forwarded-For` a proxy in front would add. */
  headers: Record<string, string> = {};

  constructor(private readonly stopAt: string[]) {}

  /** Stops no longer at `prefix` (to continue a flow held there). */
  passThrough(prefix: string): void {
    const i = this.stopAt.indexOf(prefix);
    if (i >= 0) this.stopAt.splice(i, 1);
  }

  private cookieHeader(url: URL): string {
    return this.cookies
      .filter(
        (c) =>
          c.origin === url.origin &&
          (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
      )
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  private keep(url: URL, res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      const pathAttr = attributes.map((a) => a.trim()).find((a) => /^path=/i.test(a));
      const path = pathAttr ? pathAttr.slice(5) : '/';
      this.cookies = this.cookies.filter(
        (c) => !(c.origin === url.origin && c.name === name && c.path === path),
      );
      if (!/expires=Thu, 01 Jan 1970/i.test(line) && value !== '')
        this.cookies.push({ origin: url.origin, path, name, value });
    }
  }

  async open(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    let current = url;
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      if (this.stopAt.some((stop) => current.startsWith(stop)))
        return { url: current, status: 0, html: '', headers: new Headers() };
      const target = new URL(current);
      const res = await fetch(current, {
        method,
        redirect: 'manual',
        headers: {
          ...this.headers,
          cookie: this.cookieHeader(target),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body } : {}),
      });
      this.keep(target, res);
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        current = new URL(location, current).toString();
        method = 'GET';
        body = undefined;
        await res.arrayBuffer();
        continue;
      }
      return { url: current, status: res.status, html: await res.text(), headers: res.headers };
    }
    throw new Error('too many redirects');
  }

  /** Submits the form of `page` whose action contains `actionContains`, hidden fields plus `fields`. */
  submit(page: Page, actionContains: string, fields: Record<string, string> = {}): Promise<Page> {
    const forms = [...page.html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
    const form = forms.find((f) => f[1]!.includes(actionContains));
    if (!form) throw new Error(`no form with action containing ${actionContains} in:\n${page.html}`);
    const hidden = Object.fromEntries(
      [...form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    return this.open(new URL(unescape(form[1]!), page.url).toString(), {
      method: 'POST',
      form: { ...hidden, ...fields },
    });
  }

  /** Follows the meta refresh of a step page (as a browser does without script). */
  followRefresh(page: Page): Promise<Page> {
    const match = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(page.html);
    if (!match) throw new Error(`no meta refresh in:\n${page.html}`);
    return this.open(new URL(unescape(match[1]!), page.url).toString());
  }
}

function unescape(value: string): string {
  return value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
}
