// Webhook subscriptions: list, create (secret shown once), edit, enable/disable, delete, rotate the
// signing secret (shown once), send a test event.
import { randomUUID } from 'node:crypto';
import { Router, type Request } from 'express';
import { ApiError } from '../../data-access/platform-api';
import {
  apiFor,
  field,
  fields,
  flash,
  pageHandler,
  queryValue,
  takeFlash,
  userOf,
  type PortalDeps,
} from './portal-context';
import { newSecretPage } from './views/oauth-client-views';
import {
  deleteWebhookPage,
  webhookFormPage,
  webhookPage,
  webhooksPage,
  type WebhookFormValues,
} from './views/webhook-views';

function formValues(req: Request): WebhookFormValues {
  return {
    url: field(req, 'url').trim(),
    events: fields(req, 'events'),
    description: field(req, 'description'),
    status: field(req, 'status'),
    ordering: field(req, 'ordering') === 'per_resource' ? 'per_resource' : 'none',
  };
}

/** The API's refusal of a form, worded for the page (422 names the field). */
function formErrorOf(err: unknown): string | undefined {
  if (!(err instanceof ApiError) || ![400, 409, 422].includes(err.status)) return undefined;
  const param = err.body.param ? ` (${err.body.param})` : '';
  return `${err.body.message ?? 'The subscription was refused'}${param}`;
}

export function webhookPages(deps: PortalDeps): Router {
  const router = Router();
  const id = (req: Request) => String(req.params.id);

  router.get(
    '/webhooks',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const list = await api.listWebhooks({
        limit: '100',
        starting_after: queryValue(req, 'starting_after'),
      });
      res.send(
        webhooksPage({
          user: userOf(req)!,
          subscriptions: list.data,
          nextCursor: list.has_more ? list.next_cursor : null,
          flash: await takeFlash(deps, req),
        }),
      );
    }),
  );

  router.get('/webhooks/new', (req, res) => {
    res.send(
      webhookFormPage({
        user: userOf(req)!,
        mode: 'create',
        values: { url: '', events: [], description: '', ordering: 'none' },
        idempotencyKey: randomUUID(),
      }),
    );
  });

  router.post(
    '/webhooks',
    pageHandler(deps, async (req, res) => {
      const values = formValues(req);
      const sent = field(req, 'idempotency_key');
      const key: string = /^[0-9a-f-]{36}$/.test(sent) ? sent : randomUUID();
      const again = (error: string) =>
        res
          .status(422)
          .send(webhookFormPage({ user: userOf(req)!, mode: 'create', values, error, idempotencyKey: key }));
      if (values.events.length === 0) {
        again('Choose at least one event.');
        return;
      }
      const api = await apiFor(deps, req);
      try {
        const created = await api.createWebhook(
          {
            url: values.url,
            events: values.events,
            ordering: values.ordering,
            ...(values.description ? { description: values.description } : {}),
          },
          key,
        );
        res.status(201).send(
          newSecretPage({
            user: userOf(req)!,
            title: 'Subscription created',
            what: `Events are now delivered to ${created.url}. Verify each request's Service-Signature with this signing secret.`,
            secret: created.signing_secret,
            note: 'If it is lost, rotate it from the subscription page.',
            back: { href: `/webhooks/${created.id}`, label: 'Go to the subscription' },
          }),
        );
      } catch (err) {
        const message = formErrorOf(err);
        if (!message) throw err;
        again(message);
      }
    }),
  );

  router.get(
    '/webhooks/:id',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      res.send(
        webhookPage({
          user: userOf(req)!,
          subscription: await api.getWebhook(id(req)),
          flash: await takeFlash(deps, req),
        }),
      );
    }),
  );

  router.get(
    '/webhooks/:id/edit',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const s = await api.getWebhook(id(req));
      res.send(
        webhookFormPage({
          user: userOf(req)!,
          mode: 'edit',
          subscription: s,
          values: {
            url: s.url,
            events: s.events,
            description: s.description ?? '',
            status: s.status,
            ordering: (s as { ordering?: string }).ordering ?? 'none',
          },
        }),
      );
    }),
  );

  router.post(
    '/webhooks/:id',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const values = formValues(req);
      const status = values.status === 'enabled' || values.status === 'disabled' ? values.status : undefined;
      const onlyStatus = field(req, 'only_status') === '1';
      const changes: Record<string, unknown> = onlyStatus
        ? { status }
        : {
            url: values.url,
            events: values.events,
            description: values.description === '' ? null : values.description,
            ordering: values.ordering,
            ...(status ? { status } : {}),
          };
      try {
        if (!onlyStatus && values.events.length === 0)
          throw new ApiError(422, { message: 'Choose at least one event.' });
        const updated = await api.updateWebhook(id(req), changes);
        await flash(deps, req, 'success', onlyStatus ? `Subscription ${updated.status}.` : 'Changes saved.');
        res.redirect(303, `/webhooks/${updated.id}`);
      } catch (err) {
        const message = formErrorOf(err);
        if (!message) throw err;
        const s = await api.getWebhook(id(req));
        res
          .status(422)
          .send(
            webhookFormPage({ user: userOf(req)!, mode: 'edit', subscription: s, values, error: message }),
          );
      }
    }),
  );

  router.get(
    '/webhooks/:id/delete',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      res.send(deleteWebhookPage({ user: userOf(req)!, subscription: await api.getWebhook(id(req)) }));
    }),
  );

  router.post(
    '/webhooks/:id/delete',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      await api.deleteWebhook(id(req));
      await flash(deps, req, 'success', 'Subscription deleted.');
      res.redirect(303, '/webhooks');
    }),
  );

  router.post(
    '/webhooks/:id/rotate-secret',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const s = await api.rotateWebhookSecret(id(req));
      res.send(
        newSecretPage({
          user: userOf(req)!,
          title: 'New signing secret',
          what: `Deliveries to ${s.url} are now signed with this secret.`,
          secret: s.signing_secret,
          note: 'For 24 hours each delivery also carries a signature with the previous secret (a second v1), so your receiver can switch; a secret rotated away earlier keeps its own 24 hours.',
          back: { href: `/webhooks/${s.id}`, label: 'Back to the subscription' },
        }),
      );
    }),
  );

  router.post(
    '/webhooks/:id/test',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const delivery = await api.testWebhook(id(req));
      await flash(deps, req, 'success', `Test event sent: delivery ${delivery.id}.`);
      res.redirect(303, `/webhooks/${id(req)}/deliveries`);
    }),
  );

  return router;
}
