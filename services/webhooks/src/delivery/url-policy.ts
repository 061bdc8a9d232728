// Where a webhook may be sent (decisions.md "Webhooks", the SSRF rules of the issue): `https` only,
// never to a loopback, private, link-local, CGNAT, multicast, reserved or cloud-metadata address,
// whether the URL names it or a hostname resolves to it. Checked at creation and at every delivery;
// at delivery the check runs inside the connection's own DNS lookup, so the socket goes to exactly
// the address that was checked (a DNS answer that changes between check and connect cannot slip a
// private address in). The development setting admits `http(s)://127.0.0.1`, `localhost` and
// `[::1]` receivers, and loopback addresses for those names only.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Addresses of cloud metadata and platform services that are not in a private range. */
const METADATA_ADDRESSES = new Set(['168.63.129.16', '100.100.100.200', '169.254.169.254', 'fd00:ec2::254']);
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export class UrlRefusedError extends Error {
  constructor(
    message: string,
    readonly reason: 'scheme' | 'address' | 'credentials' | 'unresolvable',
  ) {
    super(message);
    this.name = 'UrlRefusedError';
  }
}

/** Why `address` may not receive webhooks (its range name), or undefined when it is a public unicast address. */
export function refusedAddressKind(address: string, allowLoopback = false): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const normal = parsed.toString();
  if (METADATA_ADDRESSES.has(normal)) return 'metadata';
  const range = parsed.range();
  // ::a.b.c.d, the deprecated IPv4-compatible form (RFC 4291 2.5.5.1): ipaddr.js calls it unicast,
  // but a stack that still maps it would reach the IPv4 address inside (::7f00:1 is 127.0.0.1).
  if (
    range === 'unicast' &&
    parsed.kind() === 'ipv6' &&
    (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)
  )
    return 'ipv4Compatible';
  if (range === 'unicast') return undefined;
  if (range === 'loopback' && allowLoopback) return undefined;
  return range;
}

export interface UrlPolicyOptions {
  allowLocalHttp: boolean;
  resolver?: Resolver;
}

export class UrlPolicy {
  readonly allowLocalHttp: boolean;
  private readonly resolver: Resolver;

  constructor(options: UrlPolicyOptions) {
    this.allowLocalHttp = options.allowLocalHttp;
    this.resolver = options.resolver ?? systemResolver;
  }

  /** True when the development setting admits this host (its loopback addresses included). */
  isLocalDevHost(hostname: string): boolean {
    return this.allowLocalHttp && LOCAL_HOSTS.has(hostname.toLowerCase());
  }

  /** Scheme, credentials and a literal address: what can be refused without DNS. Throws UrlRefusedError. */
  checkSyntax(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new UrlRefusedError('url must be an absolute https URL', 'scheme');
    }
    const local = this.isLocalDevHost(url.hostname);
    if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) {
      throw new UrlRefusedError(
        this.allowLocalHttp
          ? 'url must use https (http is accepted only for 127.0.0.1, localhost and [::1] in development)'
          : 'url must use https',
        'scheme',
      );
    }
    if (url.username || url.password)
      throw new UrlRefusedError('url must not carry credentials', 'credentials');
    // Nothing listens on port 0: every delivery would fail for 24 h.
    if (url.port === '0')
      throw new UrlRefusedError('url has port 0, which cannot receive webhooks', 'address');
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(literal)) {
      const kind = refusedAddressKind(literal, local);
      if (kind)
        throw new UrlRefusedError(
          `url points to a ${kind} address, which cannot receive webhooks`,
          'address',
        );
    }
    return url;
  }

  /**
   * The addresses `hostname` resolves to, all of them allowed; throws UrlRefusedError when any is
   * refused (a name with one private answer is refused whole) or when it does not resolve.
   */
  async resolveAllowed(hostname: string): Promise<{ address: string; family: number }[]> {
    const literal = hostname.replace(/^\[|\]$/g, '');
    const family = net.isIP(literal);
    const local = this.isLocalDevHost(hostname);
    if (family) {
      const kind = refusedAddressKind(literal, local);
      if (kind)
        throw new UrlRefusedError(
          `${literal} is a ${kind} address, which cannot receive webhooks`,
          'address',
        );
      return [{ address: literal, family }];
    }
    let answers: { address: string; family: number }[];
    try {
      answers = await this.resolver(hostname);
    } catch (err) {
      throw new UrlRefusedError(
        `${hostname} does not resolve (${(err as { code?: string }).code ?? 'error'})`,
        'unresolvable',
      );
    }
    if (answers.length === 0) throw new UrlRefusedError(`${hostname} does not resolve`, 'unresolvable');
    for (const a of answers) {
      const kind = refusedAddressKind(a.address, local);
      if (kind) {
        throw new UrlRefusedError(
          `${hostname} resolves to ${a.address}, a ${kind} address, which cannot receive webhooks`,
          'address',
        );
      }
    }
    return answers;
  }

  /**
   * The check at creation and update: syntax, then the DNS answers when the name resolves. A name
   * that does not resolve yet is accepted (the check at each delivery refuses it until it does).
   */
  async checkForSubscription(raw: string): Promise<URL> {
    const url = this.checkSyntax(raw);
    try {
      await this.resolveAllowed(url.hostname);
    } catch (err) {
      if (err instanceof UrlRefusedError && err.reason === 'unresolvable') return url;
      throw err;
    }
    return url;
  }

  /**
   * A `lookup` for net/tls.connect: resolves, refuses any disallowed answer, and hands the socket
   * exactly the checked addresses.
   */
  connectLookup(): net.LookupFunction {
    return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
      this.resolveAllowed(hostname).then(
        (answers) => {
          if (options.all) callback(null, answers);
          else callback(null, answers[0]!.address, answers[0]!.family);
        },
        (err: unknown) => callback(err),
      );
    }) as unknown as net.LookupFunction;
  }
}
