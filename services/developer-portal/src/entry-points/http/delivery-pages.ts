// Deliveries of a subscription (filters: status, event type, creation time range; pages), one
// delivery with its attempts, the replay of one, and the replay of a time range after a dry run.
import { Router, type Request } from 'express';
import { parseIsoTimestamp } from '@ordering/http';
import { ApiError } from '../../data-access/platform-api';
import {
  apiFor,
  field,
  flash,
  pageHandler,
  queryValue,
  takeFlash,
  userOf,
  type PortalDeps,
} from './portal-context';
import {
  deliveriesPage,
  deliveryPage,
  replayPage,
  toLocalInput,
  type DeliveryFilters,
} from './views/delivery-views';

/** A form's time: empty, a time the API will read, or text that is not one (refused, not dropped). */
type TimeInput = { iso?: string; invalid?: true };

/**
 * A `datetime-local` value (UTC, as the form says) or an ISO time, read as the API reads times
 * (a real calendar day and clock time; `Date` alone would roll 2026-02-30 over to March 2).
 */
export function timeFromInput(value: string | undefined): TimeInput {
  if (!value) return {};
  const withZone = /[zZ]|[+-]\d\d:\d\d$/.test(value) ? value : `${value}Z`;
  const time = parseIsoTimestamp(withZone);
  return time ? { iso: time.toISOString() } : { invalid: true };
}

const TIME_HINT = 'is not a date and time (YYYY-MM-DD HH:MM, UTC)';

function filtersOf(req: Request): { filters: DeliveryFilters; error?: string } {
  const after = timeFromInput(queryValue(req, 'created_after'));
  const before = timeFromInput(queryValue(req, 'created_before'));
  const wrong = [
    after.invalid && `"Created from" ${TIME_HINT}`,
    before.invalid && `"Created before" ${TIME_HINT}`,
  ]
    .filter(Boolean)
    .join('; ');
  return {
    filters: {
      status: queryValue(req, 'status'),
      event_type: queryValue(req, 'event_type'),
      created_after: after.iso,
      created_before: before.iso,
    },
    ...(wrong ? { error: `${wrong}.` } : {}),
  };
}

export function deliveryPages(deps: PortalDeps): Router {
  const router = Router();
  const id = (req: Request) => String(req.params.id);

  router.get(
    '/webhooks/:id/deliveries',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const subscription = await api.getWebhook(id(req));
      const { filters, error } = filtersOf(req);
      const refused = (message: string) =>
        res.status(422).send(
          deliveriesPage({
            user: userOf(req)!,
            subscription,
            deliveries: [],
            filters,
            nextCursor: null,
            error: message,
          }),
        );
      if (error) {
        refused(error);
        return;
      }
      try {
        const list = await api.listDeliveries(id(req), {
          ...filters,
          limit: '50',
          starting_after: queryValue(req, 'starting_after'),
        });
        res.send(
          deliveriesPage({
            user: userOf(req)!,
            subscription,
            deliveries: list.data,
            filters,
            nextCursor: list.has_more ? list.next_cursor : null,
            flash: await takeFlash(deps, req),
          }),
        );
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        refused(
          `${err.body.message ?? 'These filters were refused'}${err.body.param ? ` (${err.body.param})` : ''}`,
        );
      }
    }),
  );

  router.get(
    '/webhooks/:id/deliveries/:delivery_id',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const [subscription, delivery] = await Promise.all([
        api.getWebhook(id(req)),
        api.getDelivery(id(req), String(req.params.delivery_id)),
      ]);
      res.send(
        deliveryPage({ user: userOf(req)!, subscription, delivery, flash: await takeFlash(deps, req) }),
      );
    }),
  );

  router.post(
    '/webhooks/:id/deliveries/:delivery_id/replay',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const delivery = await api.replayDelivery(id(req), String(req.params.delivery_id));
      await flash(deps, req, 'success', `Delivery ${delivery.id} queued again.`);
      res.redirect(303, `/webhooks/${id(req)}/deliveries/${delivery.id}`);
    }),
  );

  router.get(
    '/webhooks/:id/replay',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const since = toLocalInput(new Date(Date.now() - 24 * 3600 * 1000).toISOString());
      res.send(
        replayPage({ user: userOf(req)!, subscription: await api.getWebhook(id(req)), since, until: '' }),
      );
    }),
  );

  router.post(
    '/webhooks/:id/replay',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const subscription = await api.getWebhook(id(req));
      const sinceInput = field(req, 'since');
      const untilInput = field(req, 'until');
      const sinceTime = timeFromInput(sinceInput);
      const untilTime = timeFromInput(untilInput);
      const since = sinceTime.iso;
      const dryRun = field(req, 'dry_run') !== 'false';
      // An open range ("empty: now") ends at the dry run: the confirmation replays the range that
      // was counted, not one that grew with every delivery failing since.
      const until = untilTime.iso ?? (dryRun ? new Date().toISOString() : undefined);
      const again = (error: string) =>
        res
          .status(422)
          .send(
            replayPage({ user: userOf(req)!, subscription, since: sinceInput, until: untilInput, error }),
          );
      // A mistyped end is refused, never read as "up to now" (which would replay more).
      if (sinceTime.invalid || untilTime.invalid) {
        again(`${sinceTime.invalid ? 'The start' : 'The end'} of the range ${TIME_HINT}.`);
        return;
      }
      if (!since) {
        again('Give the start of the range.');
        return;
      }
      let result;
      try {
        result = await api.replayRange(id(req), { since, ...(until ? { until } : {}), dry_run: dryRun });
      } catch (err) {
        if (!(err instanceof ApiError) || err.status !== 422) throw err;
        again(
          `${err.body.message ?? 'The range was refused'}${err.body.param ? ` (${err.body.param})` : ''}`,
        );
        return;
      }
      if (dryRun) {
        res.send(
          replayPage({
            user: userOf(req)!,
            subscription,
            since: sinceInput,
            until: untilInput,
            count: result.count,
            countedUntil: until,
          }),
        );
        return;
      }
      await flash(
        deps,
        req,
        'success',
        `${result.count} failed ${result.count === 1 ? 'delivery' : 'deliveries'} queued again.`,
      );
      res.redirect(303, `/webhooks/${id(req)}/deliveries`);
    }),
  );

  return router;
}
