// The address sign-in attempts are counted under. The auth service sees the client's address as
// Express derives it (`req.ip`): the connection's peer, or behind the trusted proxy (TRUST_PROXY,
// one hop) the last `X-Forwarded-For` entry, the one that proxy wrote. Here it becomes a counting
// key: an IPv4 address as is (an IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64,
// since one subscriber (or one attacker) is given a whole /64 and could otherwise rotate through
// 2^64 fresh counts.
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

export function throttleAddressOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
  return 'unknown';
}

/** The eight groups of an IPv6 address, lower-case hexadecimal without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const first = head ? head.split(':') : [];
  const last = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined
      ? first
      : [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
