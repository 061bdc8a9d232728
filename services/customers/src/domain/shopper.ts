// Shoppers (users of a customer account) as the domain sees them, and their API shape.
import type { User } from '@ordering/contracts';

export const ROLES = ['shopper', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export type ShopperStatus = 'active' | 'deactivated';

export interface Shopper {
  login: string;
  cust_id: string;
  name: string;
  email: string;
  roles: Role[];
  status: ShopperStatus;
  employee_id: string | null;
  department: string | null;
  cost_center: string | null;
  /** The identity provider's id of this user (SCIM `externalId`). */
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  has_password: boolean;
  /** Deleted through SCIM: deactivated, kept, and hidden from the SCIM feed. */
  scim_deleted: boolean;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
}

/** Fields a shopper is created with; the rest take their defaults. */
export type NewShopper = Pick<Shopper, 'login' | 'cust_id' | 'name' | 'email' | 'roles'> &
  Partial<
    Pick<Shopper, 'employee_id' | 'department' | 'cost_center' | 'external_id' | 'given_name' | 'family_name'>
  >;

export type ShopperChanges = Partial<
  Pick<
    Shopper,
    | 'name'
    | 'email'
    | 'roles'
    | 'employee_id'
    | 'department'
    | 'cost_center'
    | 'external_id'
    | 'given_name'
    | 'family_name'
  >
>;

export function userResource(s: Shopper): User {
  return {
    id: s.login,
    object: 'user',
    login: s.login,
    cust_id: s.cust_id,
    name: s.name,
    email: s.email,
    roles: s.roles,
    status: s.status,
    employee_id: s.employee_id,
    department: s.department,
    cost_center: s.cost_center,
    created_at: s.created_at.toISOString(),
    deactivated_at: s.deactivated_at ? s.deactivated_at.toISOString() : null,
  };
}
