// A minimal browser for the sign-in page of one host: the ScopedBrowser (cookies per origin and
// path, redirects followed by hand, forms submitted), stopping at the client's redirect URI.
import { ScopedBrowser } from './scoped-browser';

export interface Page {
  url: string;
  status: number;
  html: string;
  headers: Headers;
}

export class Browser extends ScopedBrowser {
  constructor(stopAt: string) {
    super([stopAt]);
  }
}
