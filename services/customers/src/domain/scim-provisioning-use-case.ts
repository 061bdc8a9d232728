// The SCIM 2.0 provisioning feed (RFC 7644) over the same shopper operations as the REST API, so
// it fires the same events: create -> user.created, active false or DELETE -> user.deactivated.
// Records are never hard-deleted.
import { ConflictError, NotFoundError } from '@ordering/errors';
import type { CustomersDatabase } from '../data-access/customers-database';
import type { Clock } from '@ordering/service';
import type { Shopper } from './shopper';
import {
  type ScimMetaContext,
  ScimError,
  SCIM_LIST_SCHEMA,
  applyPatch,
  changesOf,
  changesSince,
  ifMatchPrecondition,
  parseScimFilter,
  parseScimUser,
  stateOf,
  toScimUser,
  type ScimUserState,
} from './scim-user-mapping';
import type { ShopperManagement } from './shopper-use-case';

export const SCIM_MAX_RESULTS = 200;

export interface ScimCaller {
  /** The account the bearer token acts for: users are created there and read within its tree. */
  custId: string;
  /** The token holds `admin:all`: it may change admins (see `Actor.managesAdmins`). */
  managesAdmins?: boolean;
}

const actorOf = (caller: ScimCaller) => ({
  reachRoot: caller.custId,
  managesAdmins: caller.managesAdmins === true,
});

export class ScimProvisioning {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly shoppers: ShopperManagement,
    private readonly clock: Clock,
  ) {}

  async create(caller: ScimCaller, body: unknown, ctx: ScimMetaContext) {
    const state = parseScimUser(body);
    let user: Shopper;
    try {
      user = await this.shoppers.create(
        actorOf(caller),
        { login: state.userName, cust_id: caller.custId, roles: ['shopper'], ...changesOf(state) },
        { deactivated: !state.active },
      );
    } catch (err) {
      if (err instanceof ConflictError)
        throw new ScimError(409, 'uniqueness', `userName ${state.userName} is taken`);
      throw err;
    }
    return toScimUser(user, ctx);
  }

  async get(caller: ScimCaller, id: string, ctx: ScimMetaContext) {
    return toScimUser(await this.find(caller, id), ctx);
  }

  async list(
    caller: ScimCaller,
    query: { filter?: string; startIndex?: string; count?: string },
    ctx: ScimMetaContext,
  ) {
    const filter = parseScimFilter(query.filter);
    // RFC 7644 3.4.2.4: startIndex < 1 is 1; count < 0 is 0.
    const startIndex = Math.max(1, intOr(query.startIndex, 1, 'startIndex'));
    const count = Math.min(SCIM_MAX_RESULTS, Math.max(0, intOr(query.count, 100, 'count')));
    const { total, users } = await this.db.users.listForScim({
      reachOf: caller.custId,
      ...filter,
      offset: startIndex - 1,
      limit: count,
    });
    return {
      schemas: [SCIM_LIST_SCHEMA],
      totalResults: total,
      startIndex,
      itemsPerPage: users.length,
      Resources: users.map((u) => toScimUser(u, ctx)),
    };
  }

  /** `ifMatch`: the request's If-Match header; a version other than the current one is 412. */
  async replace(caller: ScimCaller, id: string, body: unknown, ctx: ScimMetaContext, ifMatch?: string) {
    const precondition = ifMatchPrecondition(ifMatch);
    const current = await this.find(caller, id);
    const state = parseScimUser(body);
    if (state.userName.toLowerCase() !== current.login.toLowerCase()) {
      throw new ScimError(400, 'mutability', 'userName is the login and cannot change');
    }
    return toScimUser(await this.apply(caller, current, state, precondition), ctx);
  }

  async patch(caller: ScimCaller, id: string, body: unknown, ctx: ScimMetaContext, ifMatch?: string) {
    const precondition = ifMatchPrecondition(ifMatch);
    const current = await this.find(caller, id);
    const state = applyPatch(stateOf(current), body);
    return toScimUser(await this.apply(caller, current, state, precondition), ctx);
  }

  /** DELETE deactivates; the record stays (and later reads show `active: false`). */
  async delete(caller: ScimCaller, id: string, ifMatch?: string): Promise<void> {
    const precondition = ifMatchPrecondition(ifMatch);
    const user = await this.find(caller, id);
    // One transaction: a failure between the two writes must not leave a deactivated user that
    // SCIM still lists (or, the other way round, one SCIM hides that can still sign in).
    await this.shoppers.deactivate(actorOf(caller), user.login, precondition, {
      beforeCommit: (tx, deactivated) => tx.users.markScimDeleted(deactivated.login, this.clock.now()),
    });
  }

  /**
   * The fields and `active` in one write, whose row lock the precondition is checked under: the
   * state was computed from `current`, read before it, and a write in between changed the version
   * it compares.
   */
  private async apply(
    caller: ScimCaller,
    current: Shopper,
    state: ScimUserState,
    precondition?: (user: Shopper) => void,
  ): Promise<Shopper> {
    return this.shoppers.update(
      actorOf(caller),
      current.login,
      changesSince(state, current),
      precondition,
      state.active ? 'active' : 'deactivated',
    );
  }

  private async find(caller: ScimCaller, id: string): Promise<Shopper> {
    try {
      const user = await this.shoppers.get(actorOf(caller), id);
      if (user.scim_deleted) throw new NotFoundError();
      return user;
    } catch (err) {
      if (err instanceof NotFoundError) throw new ScimError(404, undefined, `Resource ${id} not found`);
      throw err;
    }
  }
}

function intOr(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d{1,9}$/.test(raw)) throw new ScimError(400, 'invalidValue', `${name} must be an integer`);
  return Number(raw);
}
