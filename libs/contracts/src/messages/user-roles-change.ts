// A user's roles changed (PATCH /v1/users/{login}, the operators' PATCH), carried on
// TOPICS.userRoles keyed by login (so one user's changes keep their order), written by the
// customers service to its outbox in the transaction of the change. Internal: not an event of the
// API (the spec's user events are user.created and user.deactivated), so it travels on a topic of
// its own that the webhooks service does not read, and no subscription can choose it. The
// approvals service moves the pending approvals of a user who holds neither the approver nor the
// admin role any more to the admins (services/approvals/README.md "Demoted approvers").
import { Timestamp } from '../schemas/common-schemas';
import { USER_ROLES } from '../schemas/user-schemas';
import { TOPICS } from '../topics';
import { z } from '../zod';

export const USER_ROLES_CHANGE_TYPE = 'user.roles_changed' as const;

export const UserRolesChange = z
  .looseObject({
    id: z.string().min(1).openapi({ description: 'Unique id of this change (idempotency key), `urc_...`' }),
    type: z.literal(USER_ROLES_CHANGE_TYPE),
    login: z.string().min(1),
    cust_id: z.string().min(1),
    roles: z.array(z.enum(USER_ROLES)).openapi({ description: 'The roles the user holds from now on' }),
    previous_roles: z.array(z.enum(USER_ROLES)).openapi({ description: 'The roles held before' }),
    occurred_at: Timestamp,
  })
  .openapi('UserRolesChange', { description: "A user's roles changed (internal, never a webhook)" });
export type UserRolesChange = z.infer<typeof UserRolesChange>;

export const USER_ROLES_TOPIC = TOPICS.userRoles;

/** Kafka key of a change: the login, so one user's changes keep their order. */
export function userRolesChangeKey(change: UserRolesChange): string {
  return change.login;
}
