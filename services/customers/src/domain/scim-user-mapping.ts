// SCIM 2.0 (RFC 7643) User <-> shopper. userName is the login (and the SCIM id); the first (or
// primary) e-mail is the shopper's; `active` is the status; the enterprise extension carries
// employeeNumber, department and costCenter.
import { EmailAddress, UpdateUserRequest } from '@ordering/contracts';
import { AppError } from '@ordering/errors';
import type { Shopper, ShopperChanges } from './shopper';

export const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const SCIM_ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const SCIM_LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue';

/** An error with the RFC 7644 section 3.12 `scimType`. */
export class ScimError extends AppError {
  constructor(
    status: number,
    readonly scimType: ScimType | undefined,
    detail: string,
  ) {
    super(status, 'invalid_request', scimType ?? 'scim_error', detail);
  }
}

/** The attributes of a SCIM user this service keeps. */
export interface ScimUserState {
  userName: string;
  active: boolean;
  externalId: string | null;
  formatted: string | null;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  email: string | null;
  employeeNumber: string | null;
  department: string | null;
  costCenter: string | null;
}

export function stateOf(user: Shopper): ScimUserState {
  return {
    userName: user.login,
    active: user.status === 'active',
    externalId: user.external_id,
    formatted: user.name,
    givenName: user.given_name,
    familyName: user.family_name,
    displayName: user.name,
    email: user.email,
    employeeNumber: user.employee_id,
    department: user.department,
    costCenter: user.cost_center,
  };
}

/** The display name a state gives: formatted, else displayName, else given + family, else userName. */
export function nameOf(s: ScimUserState): string {
  return (
    s.formatted?.trim() ||
    s.displayName?.trim() ||
    [s.givenName, s.familyName].filter(Boolean).join(' ').trim() ||
    s.userName
  );
}

/** The SCIM attribute a shopper field comes from, to name it in an error. */
const SCIM_ATTRIBUTE_OF: Record<string, string> = {
  name: 'name.formatted',
  employee_id: `${SCIM_ENTERPRISE_SCHEMA}:employeeNumber`,
  department: `${SCIM_ENTERPRISE_SCHEMA}:department`,
  cost_center: `${SCIM_ENTERPRISE_SCHEMA}:costCenter`,
};

/** The shopper fields a state stands for; without any e-mail (RFC 7643 requires none): `""`. */
function shopperFieldsOf(s: ScimUserState): ShopperChanges & { email: string; name: string } {
  return {
    name: nameOf(s),
    email: s.email ?? '',
    external_id: s.externalId,
    given_name: s.givenName,
    family_name: s.familyName,
    employee_id: s.employeeNumber,
    department: s.department,
    cost_center: s.costCenter,
  };
}

/** SCIM must not store what POST and PATCH /v1/users refuse: e-mail, lengths (name 200, ...). */
function checkAsTheApi(fields: ShopperChanges): void {
  if (fields.email && !EmailAddress.safeParse(fields.email).success) {
    throw new ScimError(
      400,
      'invalidValue',
      `emails: ${JSON.stringify(fields.email)} is not an e-mail address`,
    );
  }
  const { name, employee_id, department, cost_center } = fields;
  const issue = UpdateUserRequest.safeParse({ name, employee_id, department, cost_center }).error?.issues[0];
  if (issue) {
    const field = String(issue.path[0]);
    throw new ScimError(400, 'invalidValue', `${SCIM_ATTRIBUTE_OF[field] ?? field}: ${issue.message}`);
  }
}

/** The shopper a state creates (POST). */
export function changesOf(s: ScimUserState): ShopperChanges & { email: string; name: string } {
  const fields = shopperFieldsOf(s);
  checkAsTheApi(fields);
  return fields;
}

/**
 * What a PUT or PATCH changes on `current`: only the fields whose value differs from how SCIM
 * shows the user now. A request that touches nothing else (`active: false`) changes no field, so
 * it is never refused for a stored value SCIM would write differently (a name read back trimmed,
 * one stored before a check existed); identity providers must be able to deprovision everyone.
 */
export function changesSince(s: ScimUserState, current: Shopper): ShopperChanges {
  const now = shopperFieldsOf(stateOf(current));
  const changed = Object.fromEntries(
    Object.entries(shopperFieldsOf(s)).filter(([field, value]) => value !== now[field as keyof typeof now]),
  ) as ShopperChanges;
  checkAsTheApi(changed);
  return changed;
}

const str = (v: unknown, attr: string): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ScimError(400, 'invalidValue', `${attr} must be a string`);
  return v;
};

function bool(v: unknown, attr: string): boolean {
  if (typeof v === 'boolean') return v;
  // Entra ID sends "True"/"False" as strings in PATCH.
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw new ScimError(400, 'invalidValue', `${attr} must be a boolean`);
}

function emailOf(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null;
  if (!Array.isArray(emails)) throw new ScimError(400, 'invalidValue', 'emails must be an array');
  if (!emails.every(isObject))
    throw new ScimError(400, 'invalidValue', 'emails must be an array of objects with a value');
  const list = emails as { value?: unknown; primary?: unknown }[];
  const chosen = list.find((e) => e?.primary === true) ?? list[0];
  return chosen ? str(chosen.value, 'emails.value') : null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Attribute names are case-insensitive (RFC 7643 section 2.1). */
function get(obj: Record<string, unknown>, name: string): unknown {
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : obj[key];
}

/** A full representation (POST, PUT) as a state; absent attributes are cleared. */
export function parseScimUser(body: unknown): ScimUserState {
  if (!isObject(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a SCIM User object');
  const userName = str(get(body, 'userName'), 'userName');
  if (!userName || !userName.trim()) throw new ScimError(400, 'invalidValue', 'userName is required');
  if (!/^[A-Za-z0-9._@+-]{1,100}$/.test(userName)) {
    throw new ScimError(
      400,
      'invalidValue',
      'userName: letters, digits and . _ @ + - only, at most 100 characters',
    );
  }
  const name = get(body, 'name');
  const enterprise = get(body, SCIM_ENTERPRISE_SCHEMA);
  // A complex attribute of another type is refused, not read as absent (a PUT would clear it).
  if (name !== undefined && name !== null && !isObject(name))
    throw new ScimError(400, 'invalidValue', 'name must be an object');
  if (enterprise !== undefined && enterprise !== null && !isObject(enterprise))
    throw new ScimError(400, 'invalidValue', `${SCIM_ENTERPRISE_SCHEMA} must be an object`);
  const ent = isObject(enterprise) ? enterprise : {};
  const nm = isObject(name) ? name : {};
  const active = get(body, 'active');
  return {
    userName,
    active: active === undefined ? true : bool(active, 'active'),
    externalId: str(get(body, 'externalId'), 'externalId'),
    formatted: str(get(nm, 'formatted'), 'name.formatted'),
    givenName: str(get(nm, 'givenName'), 'name.givenName'),
    familyName: str(get(nm, 'familyName'), 'name.familyName'),
    displayName: str(get(body, 'displayName'), 'displayName'),
    email: emailOf(get(body, 'emails')),
    employeeNumber: str(get(ent, 'employeeNumber'), 'employeeNumber'),
    department: str(get(ent, 'department'), 'department'),
    costCenter: str(get(ent, 'costCenter'), 'costCenter'),
  };
}

type Op = 'add' | 'replace' | 'remove';

/**
 * Before a PATCH changes givenName or familyName: a stored name that was made of them (or of the
 * userName, when there were none) is forgotten, so that the name is made again of the new ones.
 * The stored name is read back as both `formatted` and `displayName`; one a client chose stays.
 */
function forgetDerivedName(state: ScimUserState): void {
  const derived = [state.givenName, state.familyName].filter(Boolean).join(' ').trim() || state.userName;
  if (state.formatted?.trim() === derived) state.formatted = null;
  if (state.displayName?.trim() === derived) state.displayName = null;
}

const IGNORED_ATTRIBUTES = new Set([
  'nickname',
  'profileurl',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'password',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'groups',
  'entitlements',
  'roles',
  'x509certificates',
  'schemas',
]);

/**
 * Sets one attribute path (as RFC 7644 section 3.5.2 names them) on a state. `withinExtension`: the
 * path came from the keys of an enterprise extension object, which holds attributes, never another
 * extension object (so a hostile nesting of `{"": {"": ...}}` stops at the first level).
 */
function setPath(
  state: ScimUserState,
  op: Op,
  rawPath: string,
  value: unknown,
  withinExtension = false,
): void {
  // A core attribute may be named with its schema URN (RFC 7644 3.10: `urn:...:core:2.0:User:displayName`).
  const corePrefix = `${SCIM_USER_SCHEMA.toLowerCase()}:`;
  const trimmed = rawPath.trim();
  const path = trimmed.toLowerCase().startsWith(corePrefix) ? trimmed.slice(corePrefix.length) : trimmed;
  const lower = path.toLowerCase();
  const entPrefix = `${SCIM_ENTERPRISE_SCHEMA.toLowerCase()}:`;
  const v = op === 'remove' ? null : value;
  // The extension itself (RFC 7644 3.5.2: the value of a PATCH without path holds it under its
  // URN, as Okta and Entra ID send it): its attributes, or `remove` of the whole extension.
  if (lower === entPrefix.slice(0, -1)) {
    if (op === 'remove') {
      state.employeeNumber = state.department = state.costCenter = null;
      return;
    }
    if (!isObject(v)) throw new ScimError(400, 'invalidValue', `${SCIM_ENTERPRISE_SCHEMA} must be an object`);
    for (const [k, x] of Object.entries(v)) {
      if (k.toLowerCase().startsWith('urn:'))
        throw new ScimError(400, 'invalidValue', `${SCIM_ENTERPRISE_SCHEMA} holds attributes, not ${k}`);
      setPath(state, op, `${path}:${k}`, x, true);
    }
    return;
  }
  if (lower.startsWith(entPrefix)) {
    const attr = lower.slice(entPrefix.length);
    if (attr === 'employeenumber') state.employeeNumber = str(v, path);
    else if (attr === 'department') state.department = str(v, path);
    else if (attr === 'costcenter') state.costCenter = str(v, path);
    else if (attr === '' && isObject(v)) {
      if (withinExtension)
        throw new ScimError(
          400,
          'invalidValue',
          `${SCIM_ENTERPRISE_SCHEMA} holds attributes, not a nested object`,
        );
      for (const [k, x] of Object.entries(v)) setPath(state, op, `${path}${k}`, x, true);
    }
    return;
  }
  switch (lower) {
    case 'active':
      if (op === 'remove') throw new ScimError(400, 'mutability', 'active cannot be removed');
      state.active = bool(v, 'active');
      return;
    case 'username':
      if (op === 'remove' || str(v, 'userName')?.toLowerCase() !== state.userName.toLowerCase()) {
        throw new ScimError(400, 'mutability', 'userName is the login and cannot change');
      }
      return;
    case 'externalid':
      state.externalId = str(v, path);
      return;
    case 'displayname':
      state.displayName = str(v, path);
      if (state.displayName !== null) state.formatted = null;
      return;
    case 'name':
      if (v === null) {
        state.formatted = state.givenName = state.familyName = null;
        return;
      }
      if (!isObject(v)) throw new ScimError(400, 'invalidValue', 'name must be an object');
      for (const [k, x] of Object.entries(v)) setPath(state, op, `name.${k}`, x);
      return;
    case 'name.formatted':
      state.formatted = str(v, path);
      return;
    case 'name.givenname':
      forgetDerivedName(state);
      state.givenName = str(v, path);
      return;
    case 'name.familyname':
      forgetDerivedName(state);
      state.familyName = str(v, path);
      return;
    case 'emails':
      if (op === 'remove')
        throw new ScimError(400, 'mutability', 'this service needs an e-mail address per user');
      state.email = emailOf(v) ?? state.email;
      return;
  }
  // emails[type eq "work"].value, emails[primary eq true].value, emails[type eq "work"]
  if (/^emails\[.*\](\.value)?$/.test(lower) || lower === 'emails.value') {
    if (op === 'remove')
      throw new ScimError(400, 'mutability', 'this service needs an e-mail address per user');
    state.email = isObject(v) ? str(get(v, 'value'), `${path}.value`) : str(v, path);
    return;
  }
  // Attributes of the core User schema this service does not keep: accepted and ignored.
  const attr = lower.split(/[.[]/)[0] ?? '';
  if (IGNORED_ATTRIBUTES.has(attr) || lower.startsWith('name.')) return;
  throw new ScimError(400, 'invalidPath', `The path ${path} is not an attribute of the User schema`);
}

/** Applies a PatchOp message (RFC 7644 section 3.5.2) to a state. */
export function applyPatch(current: ScimUserState, body: unknown): ScimUserState {
  if (!isObject(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a SCIM PatchOp message');
  const schemas = get(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.includes(SCIM_PATCH_SCHEMA)) {
    throw new ScimError(400, 'invalidSyntax', `schemas must list ${SCIM_PATCH_SCHEMA}`);
  }
  const operations = get(body, 'Operations');
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new ScimError(400, 'invalidSyntax', 'Operations must be a non-empty array');
  }
  const state = { ...current };
  for (const operation of operations) {
    if (!isObject(operation)) throw new ScimError(400, 'invalidSyntax', 'Each operation must be an object');
    const op = String(get(operation, 'op') ?? '').toLowerCase() as Op;
    if (!['add', 'replace', 'remove'].includes(op)) {
      throw new ScimError(400, 'invalidSyntax', `op must be add, replace or remove`);
    }
    const path = get(operation, 'path');
    const value = get(operation, 'value');
    if (typeof path === 'string' && path.trim() !== '') setPath(state, op, path, value);
    else if (op === 'remove') throw new ScimError(400, 'noTarget', 'remove needs a path');
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) setPath(state, op, k, v);
    else throw new ScimError(400, 'invalidValue', 'An operation without a path needs an object value');
  }
  return state;
}

export interface ScimMetaContext {
  /** Absolute base of the SCIM endpoint, e.g. `https://api.example.com/scim/v2`. */
  baseUrl: string;
}

export function toScimUser(user: Shopper, ctx: ScimMetaContext) {
  const enterprise = {
    ...(user.employee_id ? { employeeNumber: user.employee_id } : {}),
    ...(user.department ? { department: user.department } : {}),
    ...(user.cost_center ? { costCenter: user.cost_center } : {}),
  };
  const hasEnterprise = Object.keys(enterprise).length > 0;
  return {
    schemas: hasEnterprise ? [SCIM_USER_SCHEMA, SCIM_ENTERPRISE_SCHEMA] : [SCIM_USER_SCHEMA],
    id: user.login,
    ...(user.external_id ? { externalId: user.external_id } : {}),
    userName: user.login,
    name: {
      formatted: user.name,
      ...(user.given_name ? { givenName: user.given_name } : {}),
      ...(user.family_name ? { familyName: user.family_name } : {}),
    },
    displayName: user.name,
    ...(user.email ? { emails: [{ value: user.email, type: 'work', primary: true }] } : {}),
    active: user.status === 'active',
    roles: user.roles.map((r) => ({ value: r })),
    ...(hasEnterprise ? { [SCIM_ENTERPRISE_SCHEMA]: enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: user.created_at.toISOString(),
      lastModified: user.updated_at.toISOString(),
      location: `${ctx.baseUrl}/Users/${encodeURIComponent(user.login)}`,
      version: scimVersionOf(user),
    },
  };
}

/** The resource's version (`meta.version`, the `ETag` header): weak, changed by every write. */
export function scimVersionOf(user: Shopper): string {
  return `W/"${user.updated_at.getTime()}"`;
}

/**
 * The precondition of an `If-Match` header (RFC 7644 3.14, RFC 9110 13.1.1) on PUT, PATCH and
 * DELETE: `*` or a list of entity tags, one of which must be the resource's current version.
 * SCIM versions are weak tags and RFC 7644 compares them as such (the `W/` prefix is not part of
 * the comparison). A mismatch is 412 and nothing is changed. No header: no precondition.
 */
export function ifMatchPrecondition(header: string | undefined): ((user: Shopper) => void) | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  if (header.trim() === '*') return () => undefined;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = header
    .split(',')
    .map(opaque)
    .filter((t) => t !== '');
  if (wanted.some((t) => !/^"[^"]*"$/.test(t))) {
    throw new ScimError(400, 'invalidValue', 'If-Match must be * or a list of entity tags such as W/"1"');
  }
  return (user) => {
    if (!wanted.includes(opaque(scimVersionOf(user)))) {
      throw new ScimError(
        412,
        undefined,
        `The resource has changed: its version is ${scimVersionOf(user)}, not the one of If-Match; read it again`,
      );
    }
  };
}

/** `userName eq "bjensen"` / `externalId eq "..."` (the filters identity providers send). */
export function parseScimFilter(filter: string | undefined): { userName?: string; externalId?: string } {
  if (filter === undefined || filter.trim() === '') return {};
  // The attribute may be named with its schema URN (RFC 7644 3.10), as in a PATCH path.
  const m =
    /^\s*(?:urn:ietf:params:scim:schemas:core:2\.0:User:)?(userName|externalId)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(
      filter,
    );
  if (!m) {
    throw new ScimError(400, 'invalidFilter', 'Supported filters: userName eq "...", externalId eq "..."');
  }
  const value = m[2]!.replace(/\\(.)/g, '$1');
  return m[1]!.toLowerCase() === 'username' ? { userName: value } : { externalId: value };
}
