// Whether a token may call a route: it needs one of the route's scopes; `admin:all` implies all.
import { NotAllowedError } from '@ordering/errors';
import { type Identity, hasScope } from '@ordering/http';

/** 403 insufficient_scope unless `identity` holds one of `anyOf`. */
export function assertScopes(identity: Identity, anyOf: readonly string[]): void {
  if (anyOf.some((scope) => hasScope(identity, scope))) return;
  // RFC 6750 section 3: name the scope in the challenge when one scope would do.
  const challenge =
    anyOf.length === 1
      ? `Bearer error="insufficient_scope", scope="${anyOf[0]}"`
      : 'Bearer error="insufficient_scope"';
  throw new NotAllowedError(`This request needs the scope ${anyOf.join(' or ')}`, 'insufficient_scope', {
    'WWW-Authenticate': challenge,
  });
}
