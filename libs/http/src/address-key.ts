// The key a client address is counted under by a limit per address (the gateway's bucket for
// requests without a valid token, the auth service's sign-in throttle): an IPv4 address as is (an
// IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64, since one subscriber (or one
// attacker) is given a whole /64 and could otherwise rotate through 2^64 fresh counts. The address
// itself is the one the caller trusts (the peer, or the last X-Forwarded-For entry behind one
// trusted proxy). Parsing is ipaddr.js's, zone ids included.
import ipaddr from 'ipaddr.js';

export function addressKeyOf(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const groups = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((g) => g.toString(16));
  return `${groups.join(':')}::/64`;
}
