// Webhook subscriptions of the token's account (decisions.md "Webhooks"): create (the signing secret
// shown once), list, retrieve, update, delete, rotate the secret (the old one signs 24 h more) and
// send a `webhook.test` event to one subscription.
import type { Knex } from 'knex';
import { EVENT_TYPES, newEvent, newId } from '@ordering/contracts';
import { ConflictError, InputError, NotFoundError } from '@ordering/errors';
import type { DeliveryRepository, DeliveryRow } from '../data-access/delivery-repository';
import type {
  SubscriptionChanges,
  SubscriptionOrdering,
  SubscriptionRepository,
  SubscriptionRow,
} from '../data-access/subscription-repository';
import type { UrlPolicy } from '../delivery/url-policy';
import { UrlRefusedError } from '../delivery/url-policy';
import type { DeliveryClock } from './delivery-clock';
import { type GivenUpLogger, failHeldPastHorizon, reportHeldGivenUp } from './held-deliveries';
import { type SecretBox, newSigningSecret, sealedSecretResponses } from './secret-box';

export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Secrets that sign one delivery at most (the current one and up to 9 rotated out within 24 h, each
 * a `v1` of 68 bytes in `Service-Signature`): an 11th rotation in a day ends the oldest overlap
 * early rather than growing the header without bound.
 */
export const MAX_SIGNING_SECRETS = 10;

const noSuchSubscription = () => new NotFoundError('No such webhook subscription', 'id');

/**
 * Subscriptions one account may hold. Every event is written once per subscription in the
 * consumer's transaction, which other accounts' events share: without a bound, one account's
 * thousands of subscriptions would slow everyone's deliveries.
 */
export const MAX_SUBSCRIPTIONS_PER_ACCOUNT = 500;

export interface CreateInput {
  url: string;
  events: string[];
  description?: string | undefined;
  ordering?: SubscriptionOrdering | undefined;
}

export interface SubscriptionsDeps {
  knex: Knex;
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  secrets: SecretBox;
  policy: UrlPolicy;
  clock: DeliveryClock;
  /** Called after a delivery was committed (wakes this replica's worker). */
  onDeliveryQueued?: () => void;
  /** Where a held delivery given up when its subscription is enabled again is told. */
  logger?: GivenUpLogger;
}

export function subscriptionsUseCase(deps: SubscriptionsDeps) {
  const checkUrl = async (url: string) => {
    try {
      await deps.policy.checkForSubscription(url);
    } catch (err) {
      if (err instanceof UrlRefusedError) throw new InputError(err.message, 'url');
      throw err;
    }
  };
  const mustFind = async (custId: string, id: string) => {
    const row = await deps.subscriptions.find(custId, id);
    if (!row) throw noSuchSubscription();
    return row;
  };

  return {
    /** How the creation answer is kept for Idempotency-Key replays: its secret sealed. */
    storedCreation: sealedSecretResponses(deps.secrets),

    async create(
      custId: string,
      input: CreateInput,
      beforeCommit: (trx: Knex.Transaction, row: SubscriptionRow, secret: string) => Promise<void>,
    ): Promise<{ row: SubscriptionRow; secret: string }> {
      await checkUrl(input.url);
      const secret = newSigningSecret();
      const row: SubscriptionRow = {
        id: newId('we'),
        cust_id: custId,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description ?? null,
        status: 'enabled',
        ordering: input.ordering ?? 'none',
        created_at: new Date(),
      };
      await deps.knex.transaction(async (trx) => {
        // Creations of one account queue here, so two at once cannot both take the last place.
        if ((await deps.subscriptions.lockAndCount(trx, custId)) >= MAX_SUBSCRIPTIONS_PER_ACCOUNT)
          throw new ConflictError(
            'webhook_limit_reached',
            `An account can have at most ${MAX_SUBSCRIPTIONS_PER_ACCOUNT} webhook subscriptions; delete one first`,
          );
        await deps.subscriptions.insert(trx, row, deps.secrets.seal(secret));
        await beforeCommit(trx, row, secret);
      });
      return { row, secret };
    },

    list: (custId: string, options: { afterId?: string; limit: number }) =>
      deps.subscriptions.list(custId, options),

    get: (custId: string, id: string) => mustFind(custId, id),

    /**
     * Enabling a disabled subscription releases its held deliveries: those whose 24 h ended while it
     * was disabled fail (as the sweep would have failed them), the others are due at once.
     */
    async update(custId: string, id: string, changes: SubscriptionChanges): Promise<SubscriptionRow> {
      await mustFind(custId, id);
      if (changes.url !== undefined) await checkUrl(changes.url);
      const next = { ...changes, ...(changes.events ? { events: [...new Set(changes.events)] } : {}) };
      const now = deps.clock.now();
      const givenUp: DeliveryRow[] = [];
      let pending = 0;
      const row = await deps.knex.transaction(async (trx) => {
        const before = await deps.subscriptions.findLocked(trx, custId, id, 'noKeyUpdate');
        if (!before) throw noSuchSubscription();
        const enabling = before.status === 'disabled' && next.status === 'enabled';
        if (enabling)
          givenUp.push(...(await failHeldPastHorizon(deps.deliveries, now, { subscriptionId: id, trx })));
        const updated = await deps.subscriptions.update(custId, id, next, trx);
        if (!updated) throw noSuchSubscription();
        if (enabling) pending = await deps.deliveries.resumeHeld(trx, id, now);
        return updated;
      });
      reportHeldGivenUp(deps.logger, givenUp);
      if (pending > 0) deps.onDeliveryQueued?.();
      return row;
    },

    async remove(custId: string, id: string): Promise<void> {
      if (!(await deps.subscriptions.delete(custId, id))) throw noSuchSubscription();
    },

    async rotateSecret(custId: string, id: string): Promise<{ row: SubscriptionRow; secret: string }> {
      const secret = newSigningSecret();
      const now = deps.clock.now();
      const row = await deps.knex.transaction(async (trx) => {
        // Locked before anything is written: a DELETE that commits first makes this a 404.
        const found = await deps.subscriptions.findLocked(trx, custId, id, 'update');
        if (!found) throw noSuchSubscription();
        await deps.subscriptions.rotate(
          trx,
          id,
          deps.secrets.seal(secret),
          now,
          new Date(now.getTime() + SECRET_OVERLAP_MS),
          MAX_SIGNING_SECRETS,
        );
        return found;
      });
      return { row, secret };
    },

    /**
     * Queues a `webhook.test` event for this subscription alone, also when it is disabled (a test
     * is how an endpoint is checked before it is enabled; events stay held until then).
     */
    async sendTest(custId: string, id: string) {
      const deliveryId = newId('whdel');
      const now = deps.clock.now();
      await deps.knex.transaction(async (trx) => {
        // Held for the insert: a DELETE that commits meanwhile makes this a 404, not a foreign-key failure.
        const row = await deps.subscriptions.findLocked(trx, custId, id, 'keyShare');
        if (!row) throw noSuchSubscription();
        const event = newEvent({
          type: EVENT_TYPES.webhookTest,
          cust_id: custId,
          data: { webhook_id: row.id, message: 'A test event sent with POST /v1/webhooks/{id}/test' },
        });
        await deps.deliveries.insert(trx, [
          {
            id: deliveryId,
            subscription_id: row.id,
            event_id: event.id,
            event_type: event.type,
            event,
            resource_key: null,
            ordered: false,
            next_attempt_at: now,
            created_at: new Date(),
          },
        ]);
      });
      deps.onDeliveryQueued?.();
      const delivery = await deps.deliveries.find(id, deliveryId);
      if (!delivery) throw noSuchSubscription();
      return delivery;
    },
  };
}

export type SubscriptionsUseCase = ReturnType<typeof subscriptionsUseCase>;
