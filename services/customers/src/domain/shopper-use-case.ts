// Shoppers of the account tree a caller may act for: create, change, deactivate, read, list.
// user.created and user.deactivated go through the outbox in the transaction of the change, and so
// does the internal user.roles_changed (not an event of the API: no webhook carries it).
import { EVENT_TYPES, USER_ROLES_CHANGE_TYPE, newEvent, newId } from '@ordering/contracts';
import { ConflictError, InputError, NotAllowedError, NotFoundError } from '@ordering/errors';
import type { CustomersDatabase, TransactionScope } from '../data-access/customers-database';
import { LoginTakenError } from '../data-access/user-repository';
import type { Clock } from '@ordering/service';
import {
  type NewShopper,
  type Role,
  type Shopper,
  type ShopperChanges,
  type ShopperStatus,
  userResource,
} from './shopper';

/** Who acts: a token's account tree (`reachRoot`), or an operator / service (`null`: every account). */
export interface Actor {
  reachRoot: string | null;
  /**
   * Whether the actor may grant the `admin` role and change admins (a token with `admin:all`;
   * operators always). Without it (`users:write` alone) only shoppers and approvers are managed:
   * an admin's role carries `admin:all`, which such a token does not hold and so cannot hand out.
   */
  managesAdmins?: boolean;
}

export const OPERATOR: Actor = { reachRoot: null, managesAdmins: true };

const ADMIN_ROLE: Role = 'admin';

function mayManageAdmins(actor: Actor): boolean {
  return actor.reachRoot === null || actor.managesAdmins === true;
}

function adminScopeRequired(what: string): NotAllowedError {
  return new NotAllowedError(`${what} needs the scope admin:all`, 'insufficient_scope', {
    'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="admin:all"',
  });
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return [...a].sort().join('\n') === [...b].sort().join('\n');
  return (a ?? null) === (b ?? null);
}

export interface CreateOptions {
  /** Runs inside the creating transaction, after the user and its event are written. */
  beforeCommit?: (tx: TransactionScope, user: Shopper) => Promise<void>;
  /**
   * Created deactivated (SCIM `active: false`): deactivated in the creating transaction, with its
   * user.deactivated after user.created, so that no failure leaves the user active.
   */
  deactivated?: boolean;
}

/** `beforeCommit` runs inside the deactivating transaction, after the user (and its event). */
export type DeactivateOptions = Pick<CreateOptions, 'beforeCommit'>;

/**
 * A check of the current record, run inside the changing transaction once the row is locked (so no
 * other change can slip in between); it throws to refuse the change (SCIM's If-Match: 412).
 */
export type ShopperPrecondition = (current: Shopper) => void;

export type CreateShopperInput = Omit<NewShopper, 'cust_id' | 'roles'> & { cust_id?: string; roles?: Role[] };

export class ShopperManagement {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly clock: Clock,
  ) {}

  async create(actor: Actor, input: CreateShopperInput, options: CreateOptions = {}): Promise<Shopper> {
    const custId = input.cust_id ?? actor.reachRoot;
    if (custId === null || custId === undefined) throw new InputError('cust_id is required', 'cust_id');
    if (input.roles?.includes(ADMIN_ROLE) && !mayManageAdmins(actor))
      throw adminScopeRequired('Creating a user with the admin role');
    await this.assertAccountUsable(actor, custId);
    try {
      return await this.db.transaction(async (tx) => {
        const user = await tx.users.insert(
          { ...input, cust_id: custId, roles: input.roles ?? ['shopper'] },
          this.clock.now(),
        );
        await tx.publish(
          newEvent({ type: EVENT_TYPES.userCreated, cust_id: user.cust_id, data: userResource(user) }),
        );
        const created = options.deactivated ? await this.deactivateIn(tx, user) : user;
        await options.beforeCommit?.(tx, created);
        return created;
      });
    } catch (err) {
      if (err instanceof LoginTakenError) {
        throw new ConflictError('login_taken', `The login ${input.login} is taken`, 'login');
      }
      throw err;
    }
  }

  async get(actor: Actor, login: string): Promise<Shopper> {
    const user = await this.db.users.find(login);
    if (!user || !(await this.canReach(actor, user.cust_id))) throw notFound(login);
    return user;
  }

  /**
   * Changes fields and, with `status`, deactivates or reactivates in the same transaction (SCIM's
   * PUT and PATCH): a failure leaves neither half done.
   */
  async update(
    actor: Actor,
    login: string,
    changes: ShopperChanges,
    precondition?: ShopperPrecondition,
    status?: ShopperStatus,
  ): Promise<Shopper> {
    return this.db.transaction(async (tx) => {
      const user = await tx.users.findForUpdate(login);
      if (!user || !(await this.canReach(actor, user.cust_id))) throw notFound(login);
      precondition?.(user);
      const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
      if (!mayManageAdmins(actor)) {
        if (user.roles.includes(ADMIN_ROLE)) {
          const changed = Object.entries(defined).some(
            ([field, value]) => !sameValue(value, user[field as keyof Shopper]),
          );
          if (changed) throw adminScopeRequired(`Changing ${user.login}, an admin,`);
        } else if (changes.roles?.includes(ADMIN_ROLE)) throw adminScopeRequired('Granting the admin role');
      }
      const updated =
        Object.keys(defined).length === 0
          ? user
          : await tx.users.update(user.login, defined, this.clock.now());
      if (!sameValue(updated.roles, user.roles)) await this.announceRoles(tx, user, updated);
      if (status === 'deactivated' && updated.status === 'active') return this.deactivateIn(tx, updated);
      if (status === 'active' && updated.status === 'deactivated')
        return this.reactivateIn(tx, actor, updated);
      return updated;
    });
  }

  /** Deactivates once: user.deactivated fires on the change; deactivating again changes nothing. */
  async deactivate(
    actor: Actor,
    login: string,
    precondition?: ShopperPrecondition,
    options: DeactivateOptions = {},
  ): Promise<Shopper> {
    return this.db.transaction(async (tx) => {
      const user = await tx.users.findForUpdate(login);
      if (!user || !(await this.canReach(actor, user.cust_id))) throw notFound(login);
      precondition?.(user);
      const deactivated = user.status === 'deactivated' ? user : await this.deactivateIn(tx, user);
      await options.beforeCommit?.(tx, deactivated);
      return deactivated;
    });
  }

  /**
   * Tells the services that act on roles (approvals: a user who may no longer approve has their
   * pending approvals moved to the admins) that `before`'s roles are now `after`'s, in `tx`.
   */
  private async announceRoles(tx: TransactionScope, before: Shopper, after: Shopper): Promise<void> {
    await tx.announceRoles({
      id: newId('urc'),
      type: USER_ROLES_CHANGE_TYPE,
      login: after.login,
      cust_id: after.cust_id,
      roles: after.roles,
      previous_roles: before.roles,
      occurred_at: after.updated_at.toISOString(),
    });
  }

  /** The deactivation of an active user and its user.deactivated, in `tx`. */
  private async deactivateIn(tx: TransactionScope, user: Shopper): Promise<Shopper> {
    const now = this.clock.now();
    const updated = await tx.users.update(user.login, { status: 'deactivated', deactivated_at: now }, now);
    await tx.publish(
      newEvent({
        type: EVENT_TYPES.userDeactivated,
        cust_id: updated.cust_id,
        data: userResource(updated),
      }),
    );
    return updated;
  }

  /** Lets a deactivated user sign in again (SCIM `active: true`, operators); no event. */
  async reactivate(actor: Actor, login: string): Promise<Shopper> {
    return this.db.transaction(async (tx) => {
      const user = await tx.users.findForUpdate(login);
      if (!user || !(await this.canReach(actor, user.cust_id))) throw notFound(login);
      if (user.status === 'active') return user;
      return this.reactivateIn(tx, actor, user);
    });
  }

  /** The reactivation of a deactivated user, in `tx`. */
  private async reactivateIn(tx: TransactionScope, actor: Actor, user: Shopper): Promise<Shopper> {
    // It gives access back, and an admin's access carries admin:all (deactivating stays open).
    if (user.roles.includes(ADMIN_ROLE) && !mayManageAdmins(actor))
      throw adminScopeRequired(`Reactivating ${user.login}, an admin,`);
    return tx.users.update(user.login, { status: 'active', deactivated_at: null }, this.clock.now());
  }

  async list(
    actor: Actor & { reachRoot: string },
    query: { custId?: string; status?: ShopperStatus; role?: Role; afterLogin?: string; limit: number },
  ): Promise<Shopper[]> {
    if (query.custId !== undefined && !(await this.canReach(actor, query.custId))) {
      throw new NotFoundError(`No such customer: ${query.custId}`, 'cust_id');
    }
    return this.db.users.list({ ...query, reachOf: actor.reachRoot });
  }

  async canReach(actor: Actor, custId: string): Promise<boolean> {
    if (actor.reachRoot === null) return true;
    return this.db.customers.isWithinReach(actor.reachRoot, custId);
  }

  private async assertAccountUsable(actor: Actor, custId: string): Promise<void> {
    const reachable =
      actor.reachRoot === null
        ? (await this.db.customers.find(custId)) !== undefined
        : await this.db.customers.isWithinReach(actor.reachRoot, custId);
    if (!reachable) throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
  }
}

function notFound(login: string): NotFoundError {
  return new NotFoundError(`No such user: ${login}`, 'login');
}
