// OAuth clients of an account as its admins see them (spec: "Secrets are rotated through the
// developer portal at least every 180 days"; limit "Client secret rotation: at least every 180
// days"). Never a secret, except the new one in the answer of rotate_secret, shown that once.
// Answer of `GET /v1/oauth_clients` (as a list), `GET /v1/oauth_clients/{id}` and
// `POST /v1/oauth_clients/{id}/rotate_secret`.
import { Timestamp, listOf } from './common-schemas';
import { PaginationQuery } from './list-schemas';
import { z } from '../zod';

export const OAUTH_CLIENT_TYPES = ['service', 'web', 'native'] as const;
export const OAUTH_CLIENT_STATUSES = ['active', 'disabled'] as const;
export const CLIENT_SECRET_LIFETIME_DAYS = 180;

export const OAuthClientResource = z
  .looseObject({
    id: z.string().openapi({ description: 'The `client_id`' }),
    object: z.literal('oauth_client'),
    name: z.string(),
    type: z.enum(OAUTH_CLIENT_TYPES).openapi({
      description:
        '`service`: client credentials; `web`: code flow with a secret; `native`: code flow, public (no secret)',
    }),
    cust_id: z.string().openapi({ description: 'The account the client is issued to' }),
    login: z.string().openapi({ description: 'The integration login client-credentials tokens act for' }),
    scopes: z.array(z.string()),
    redirect_uris: z.array(z.string()),
    status: z.enum(OAUTH_CLIENT_STATUSES),
    secret_issued_at: Timestamp.nullable().openapi({
      description: 'When the current secret was issued; null for a `native` client (no secret)',
    }),
    secret_due_at: Timestamp.nullable().openapi({
      description:
        'Issued-at + 180 days. From then on the secret gets no token (`invalid_client`) until it is rotated',
    }),
    secret_overdue: z.boolean().openapi({ description: 'True once `secret_due_at` has passed' }),
    previous_secret_expires_at: Timestamp.nullable().openapi({
      description: 'After a rotation, until when the previous secret still works (24 hours); else null',
    }),
    created_at: Timestamp,
  })
  .openapi('OAuthClient', {
    description: "An OAuth client of the token's account or a descendant, with its secret's due date",
  });
export type OAuthClientResource = z.infer<typeof OAuthClientResource>;

/** The answer of rotate_secret: the only one that shows a secret. */
export const OAuthClientWithSecret = z
  .looseObject({
    ...OAuthClientResource.shape,
    client_secret: z.string().openapi({ description: 'The new secret, shown this once' }),
  })
  .openapi('OAuthClientWithSecret', {
    description: 'An OAuth client with its new secret: the answer of rotate_secret',
  });
export type OAuthClientWithSecret = z.infer<typeof OAuthClientWithSecret>;

export const OAuthClientList = listOf(OAuthClientResource, 'OAuthClientList');

export const ListOAuthClientsQuery = PaginationQuery;
