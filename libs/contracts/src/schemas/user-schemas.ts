import { Timestamp } from './common-schemas';
import { z } from '../zod';
import { requestObject } from './request-object';

export const USER_ROLES = ['shopper', 'approver', 'admin'] as const;
export const USER_STATUSES = ['active', 'deactivated'] as const;

export const User = z
  .looseObject({
    id: z.string().openapi({ description: 'Same value as `login`' }),
    object: z.literal('user'),
    login: z.string(),
    cust_id: z.string(),
    name: z.string(),
    email: z.string(),
    roles: z.array(z.enum(USER_ROLES)),
    status: z.enum(USER_STATUSES),
    employee_id: z.string().nullable(),
    department: z.string().nullable(),
    cost_center: z.string().nullable(),
    created_at: Timestamp,
    deactivated_at: Timestamp.nullable(),
  })
  .openapi('User', { description: 'A shopper of a customer account' });
export type User = z.infer<typeof User>;

/**
 * A shopper's e-mail address, as every way of writing one (API, SCIM, import) checks it; at most
 * 254 characters, the longest address SMTP can carry (RFC 5321 4.5.3.1.3).
 */
export const EmailAddress = z.email().max(254);

const mutableUserFields = {
  email: EmailAddress,
  name: z.string().min(1).max(200).regex(/\S/, 'must not be blank'),
  roles: z
    .array(z.enum(USER_ROLES))
    .min(1)
    .refine((roles) => new Set(roles).size === roles.length, 'each role may appear once')
    .openapi({ uniqueItems: true }),
  employee_id: z.string().max(100).nullable(),
  department: z.string().max(200).nullable(),
  cost_center: z.string().max(100).nullable(),
};

/**
 * What a login may be: `+` as in e-mail-like logins (plus addressing), which SCIM and just-in-time
 * sign-up create.
 */
export const LOGIN_PATTERN = /^[A-Za-z0-9._@+-]{1,100}$/;
export const LOGIN_RULE = 'letters, digits and . _ @ + - only, at most 100 characters';

export const CreateUserRequest = requestObject({
  login: z.string().regex(LOGIN_PATTERN, LOGIN_RULE),
  email: mutableUserFields.email,
  name: mutableUserFields.name,
  cust_id: z.string().min(1).optional().openapi({ description: "Defaults to the token's account" }),
  roles: mutableUserFields.roles.optional().openapi({ description: 'Defaults to `["shopper"]`' }),
  employee_id: mutableUserFields.employee_id.optional(),
  department: mutableUserFields.department.optional(),
  cost_center: mutableUserFields.cost_center.optional(),
}).openapi('CreateUserRequest', { description: 'Body of POST /v1/users' });
export type CreateUserRequest = z.infer<typeof CreateUserRequest>;

export const UpdateUserRequest = requestObject(mutableUserFields)
  .partial()
  .openapi('UpdateUserRequest', { description: 'Body of PATCH /v1/users/{login}: the fields to change' });
export type UpdateUserRequest = z.infer<typeof UpdateUserRequest>;
