// Finds the route-table entry for a request: the route and its path parameters, or "this path
// exists with other methods" (405 with Allow), or nothing (404).
import { AppError, NotFoundError } from '@ordering/errors';
import { isUnsafeText } from '@ordering/http';
import type { PrefixRoute, Route, UpstreamRoute } from './route-table';

export type RouteMatch =
  | {
      kind: 'route';
      route: Route;
      params: Record<string, string>;
      /** A parameter whose value no service accepts (undecodable, NUL, lone surrogate): 422. */
      unsafeParam?: string;
    }
  | { kind: 'wrong_method'; allow: string[] }
  | { kind: 'none' };

interface PathEntry {
  pattern: string;
  /** A literal segment, or a parameter name where `isParam[i]`. */
  segments: string[];
  isParam: boolean[];
  methods: Map<string, Route>;
  allow: string[];
}

/** 405 for a known path asked with a method it does not have; `Allow` lists those it has. */
export class MethodNotAllowedError extends AppError {
  constructor(method: string, path: string, allow: string[]) {
    super(
      405,
      'invalid_request',
      'method_not_allowed',
      `${path} does not support ${method}; use ${allow.join(', ')}`,
      {
        headers: { Allow: allow.join(', ') },
      },
    );
  }
}

/** 404 resource_missing, the same body as any unknown resource. */
export function unknownPath(method: string, path: string): NotFoundError {
  return new NotFoundError(`Unrecognized request URL (${method} ${path})`);
}

const PARAM = /^\{([a-z_][a-z0-9_]*)\}$/i;

function allowOf(methods: Map<string, Route | UpstreamRoute>): string[] {
  const allow = [...methods.keys()];
  if (methods.has('GET')) allow.push('HEAD');
  return allow.sort();
}

const UNSAFE = Symbol('unsafe');

/**
 * A decoded path parameter; undefined when it could climb out of its segment; UNSAFE when it
 * cannot be decoded or holds text no service accepts (NUL, a lone surrogate).
 */
function paramValue(raw: string): string | undefined | typeof UNSAFE {
  let value = raw;
  // Without a `%` there is nothing to decode (decodeURIComponent would hand back the same text).
  if (raw.includes('%')) {
    try {
      value = decodeURIComponent(raw);
    } catch {
      return UNSAFE;
    }
  }
  if (value === '.' || value === '..' || value.includes('/') || value.includes('\\')) return undefined;
  if (isUnsafeText(value)) return UNSAFE;
  return value;
}

interface PrefixEntry {
  /** The prefix's segments, e.g. ['scim', 'v2']. */
  segments: string[];
  methods: Map<string, UpstreamRoute>;
  allow: string[];
}

export class RouteMatcher {
  /** Path entries by segment count, most literal segments first. */
  private readonly bySegmentCount = new Map<number, PathEntry[]>();
  private readonly prefixes: PrefixEntry[];

  constructor(routes: readonly Route[], prefixRoutes: readonly PrefixRoute[] = []) {
    this.prefixes = prefixRoutes.map((p) => {
      const methods = new Map<string, UpstreamRoute>(
        p.methods.map((method) => [
          method,
          { method, path: `${p.prefix}/*`, service: p.service, scopes: p.scopes, summary: p.summary },
        ]),
      );
      return { segments: p.prefix.split('/').slice(1), methods, allow: allowOf(methods) };
    });
    const byPattern = new Map<string, PathEntry>();
    for (const route of routes) {
      let entry = byPattern.get(route.path);
      if (!entry) {
        const parts = route.path.split('/').slice(1);
        if (parts.some((p) => p === '')) throw new Error(`Route path ${route.path} has an empty segment`);
        entry = {
          pattern: route.path,
          segments: parts.map((p) => PARAM.exec(p)?.[1] ?? p),
          isParam: parts.map((p) => PARAM.test(p)),
          methods: new Map(),
          allow: [],
        };
        byPattern.set(route.path, entry);
      }
      if (entry.methods.has(route.method))
        throw new Error(`Route ${route.method} ${route.path} is listed twice`);
      entry.methods.set(route.method, route);
      entry.allow = allowOf(entry.methods);
    }
    for (const entry of byPattern.values()) {
      const list = this.bySegmentCount.get(entry.segments.length) ?? [];
      list.push(entry);
      this.bySegmentCount.set(entry.segments.length, list);
    }
    const literals = (e: PathEntry) => e.isParam.filter((p) => !p).length;
    for (const list of this.bySegmentCount.values()) list.sort((a, b) => literals(b) - literals(a));
  }

  /** `path` is the raw (still percent-encoded) path without the query. */
  match(method: string, path: string): RouteMatch {
    if (!path.startsWith('/')) return { kind: 'none' };
    const parts = path.split('/').slice(1);
    for (const entry of this.bySegmentCount.get(parts.length) ?? []) {
      const found = this.paramsOf(entry, parts);
      if (!found) continue;
      const route = entry.methods.get(method) ?? (method === 'HEAD' ? entry.methods.get('GET') : undefined);
      if (!route) return { kind: 'wrong_method', allow: entry.allow };
      return {
        kind: 'route',
        route,
        params: found.params,
        ...(found.unsafeParam ? { unsafeParam: found.unsafeParam } : {}),
      };
    }
    return this.matchPrefix(method, parts);
  }

  /**
   * A path under a prefix route: at least one segment after the prefix, none of them empty or
   * able to climb out of its place (`.`, `..`, an encoded `/` or `\`).
   */
  private matchPrefix(method: string, parts: string[]): RouteMatch {
    for (const entry of this.prefixes) {
      if (parts.length <= entry.segments.length) continue;
      if (entry.segments.some((segment, i) => parts[i] !== segment)) continue;
      const rest = parts.slice(entry.segments.length);
      if (rest.some((part) => part === '' || paramValue(part) === undefined)) return { kind: 'none' };
      // Refused by the service behind the prefix, in its own error format (SCIM).
      const route = entry.methods.get(method) ?? (method === 'HEAD' ? entry.methods.get('GET') : undefined);
      if (!route) return { kind: 'wrong_method', allow: entry.allow };
      return { kind: 'route', route, params: {} };
    }
    return { kind: 'none' };
  }

  private paramsOf(
    entry: PathEntry,
    parts: string[],
  ): { params: Record<string, string>; unsafeParam?: string } | undefined {
    const params: Record<string, string> = {};
    let unsafeParam: string | undefined;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] as string;
      const segment = entry.segments[i] as string;
      if (!entry.isParam[i]) {
        if (part !== segment) return undefined;
        continue;
      }
      if (part === '') return undefined;
      const value = paramValue(part);
      if (value === undefined) return undefined;
      if (value === UNSAFE) {
        unsafeParam ??= segment;
        params[segment] = '';
      } else params[segment] = value;
    }
    return unsafeParam ? { params, unsafeParam } : { params };
  }
}
