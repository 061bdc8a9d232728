// Revocations from the auth service, carried on TOPICS.auth: the gateway denies a revoked token
// (by `jti`) or every token of a revoked grant (by `grant_id`) until `exp`.
import { TOPICS } from '../topics';
import { z } from '../zod';

const exp = z
  .int()
  .min(0)
  .openapi({ description: 'Seconds since epoch after which the entry can be forgotten' });

export const AuthRevocation = z
  .discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('token.revoked'),
      jti: z.string().min(1),
      grant_id: z.string().optional(),
      exp,
    }),
    z.looseObject({
      type: z.literal('grant.revoked'),
      grant_id: z.string().min(1),
      jti: z.string().optional(),
      exp,
    }),
  ])
  .openapi('AuthRevocation', { description: 'An access token or a whole grant was revoked' });
export type AuthRevocation = z.infer<typeof AuthRevocation>;

export const AUTH_TOPIC = TOPICS.auth;

/** Kafka key and idempotency id: `token.revoked:<jti>` or `grant.revoked:<grant_id>`. */
export function authRevocationKey(message: AuthRevocation): string {
  return message.type === 'token.revoked'
    ? `token.revoked:${message.jti}`
    : `grant.revoked:${message.grant_id}`;
}

export function parseAuthRevocation(value: unknown): AuthRevocation {
  return AuthRevocation.parse(value);
}
