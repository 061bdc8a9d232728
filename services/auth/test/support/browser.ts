// A minimal browser for the sign-in page: follows redirects by hand, keeps cookies, submits forms.
// Stops at (and does not fetch) any URL under `stopAt` (the client's redirect URI).

export interface Page {
  url: string;
  status: number;
  html: string;
  headers: Headers;
}

export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly stopAt: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Fetches `url` and follows redirects until a page or the redirect URI. */
  async open(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Page> {
    let current = url;
    let method = init.method ?? 'GET';
    let body: string | undefined = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hops = 0; hops < 20; hops++) {
      if (current.startsWith(this.stopAt))
        return { url: current, status: 0, html: '', headers: new Headers() };
      const res = await fetch(current, {
        method,
        redirect: 'manual',
        headers: {
          cookie: this.cookieHeader(),
          ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(body ? { body } : {}),
      });
      this.keep(res);
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

  /** Submits the first form of `page` whose action matches, with the hidden fields plus `fields`. */
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
    return this.open(new URL(form[1]!.replace(/&#38;/g, '&'), page.url).toString(), {
      method: 'POST',
      form: { ...hidden, ...fields },
    });
  }
}
