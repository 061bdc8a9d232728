// `sub` of every token the service issues: `shopper:<cust_id lower-case>:<login>`, the account id
// oidc-provider knows the shopper by.
export function shopperSubject(custId: string, login: string): string {
  return `shopper:${custId.toLowerCase()}:${login}`;
}

/** The parts of a shopper subject, or undefined for anything else. */
export function parseShopperSubject(sub: string): { custIdLower: string; login: string } | undefined {
  const match = /^shopper:([^:]+):(.+)$/.exec(sub);
  if (!match) return undefined;
  return { custIdLower: match[1]!, login: match[2]! };
}
