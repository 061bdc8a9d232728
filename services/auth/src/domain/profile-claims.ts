// The `profile` scope's claims of a shopper (spec: name, employee ID, department, cost center), for
// ID tokens and UserInfo. A value the shopper does not have is left out, not sent as null or "":
// OpenID Connect Core 5.3.2 ("If a Claim is not returned, that Claim Name SHOULD be omitted").

export interface ProfileClaims {
  name?: string;
  employee_id?: string;
  department?: string;
  cost_center?: string;
}

export function profileClaims(user: {
  name: string | null;
  employee_id: string | null;
  department: string | null;
  cost_center: string | null;
}): ProfileClaims {
  const claims: ProfileClaims = {};
  for (const name of ['name', 'employee_id', 'department', 'cost_center'] as const) {
    const value = user[name];
    if (typeof value === 'string' && value !== '') claims[name] = value;
  }
  return claims;
}
