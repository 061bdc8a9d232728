// The address sign-in attempts are counted under. The auth service sees the client's address as
// Express derives it (`req.ip`): the connection's peer, or behind the trusted proxy (TRUST_PROXY,
// one hop) the last `X-Forwarded-For` entry, the one that proxy wrote. Here it becomes a counting
// key: an IPv4 address as is (an IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64,
// since one subscriber (or one attacker) is given a whole /64 and could otherwise rotate through
// 2^64 fresh counts. Parsing is ipaddr.js's (as the webhooks service's URL policy), zone ids included.
import ipaddr from 'ipaddr.js';

export function throttleAddressOf(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const groups = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((g) => g.toString(16));
  return `${groups.join(':')}::/64`;
}
