// Sign-in with the company's own identity provider (federated sign-in, just-in-time provisioning).
//
//   POST /oauth/interaction/:uid/federate      the e-mail form of the sign-in page (CSRF-checked):
//                                              keeps state, nonce and PKCE verifier in the
//                                              interaction, then sends the browser to the provider
//   GET  /oauth/federation/callback            the one redirect URI registered at every provider:
//                                              the state names the interaction; the browser is sent
//                                              on to that interaction's own path, where its signed
//                                              cookie (path-scoped) is presented
//   GET  /oauth/interaction/:uid/federation/callback
//                                              checks state (single use), redeems the code, verifies
//                                              the ID token, provisions the shopper and finishes
//                                              the interaction as the password sign-in does
//
// The callback never redirects anywhere but to a path of this host built from a validated uid.
import express, { type Express, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { LOGIN_RULE } from '@ordering/contracts';
import type { Logger } from '@ordering/http';
import {
  beginFederatedSignIn,
  completeFederatedSignIn,
  interactionUidOfState,
  type CompleteResult,
  type FederatedSignInDeps,
  type PendingFederation,
} from '../../domain/federated-sign-in-use-case';
import { subjectInClientTree } from '../../domain/client-tree';
import { clientName, csrfTokenFor, csrfValid, redirectTargetOf, sendHtml } from './interaction-page';
import { errorPage, federationRedirectPage, signInPage } from './sign-in-views';

export const FEDERATION_CALLBACK_PATH = '/oauth/federation/callback';

export interface FederationRoutesDeps {
  provider: () => Provider;
  federation: FederatedSignInDeps;
  csrfKey: string;
  logger: Logger;
}

type Failure = Exclude<CompleteResult, { outcome: 'signed_in' }>;

/** What the person reads for each refusal, and the status of the page. */
function failureMessage(result: Failure): { status: number; message: string } {
  switch (result.outcome) {
    case 'state_mismatch':
      return {
        status: 400,
        message: "The answer from your company's sign-in does not belong to this sign-in. Please try again.",
      };
    case 'idp_error':
      return {
        status: 401,
        message: `${result.displayName} did not sign you in. Please try again, or ask your administrator.`,
      };
    case 'email_unverified':
      return {
        status: 401,
        message:
          'Your company account has no verified email address, so we cannot sign you in with it. Ask your administrator.',
      };
    case 'email_outside_domain':
      return {
        status: 401,
        message: `Your company sign-in returned an email address outside ${result.domain}. Sign in with an address of ${result.domain}.`,
      };
    case 'no_account':
      return {
        status: 403,
        message: `Your company has not enabled sign-in for people of ${result.domain} here. Ask your administrator.`,
      };
    case 'email_not_login':
      return {
        status: 403,
        message: `Your email address cannot be a login here (${LOGIN_RULE}). Ask your administrator to create your account.`,
      };
    case 'email_held_elsewhere':
      return {
        status: 403,
        message:
          'Your email address is already the login of a user outside your company here, so your company sign-in cannot use it. Ask your administrator.',
      };
    case 'deactivated':
      return { status: 403, message: 'Your account is deactivated. Ask your administrator.' };
  }
}

function pendingOf(result: unknown): PendingFederation | undefined {
  const pending = (result as { federation?: PendingFederation } | undefined)?.federation;
  return pending && typeof pending.state === 'string' ? pending : undefined;
}

export function mountFederationRoutes(app: Express, deps: FederationRoutesDeps): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });

  /** The sign-in page again, with a message in its company sign-in section. */
  const signInAgain = async (
    res: Response,
    provider: Provider,
    details: { uid: string; params: Record<string, unknown> },
    status: number,
    federationError: string,
    email?: string,
  ) => {
    sendHtml(
      res,
      status,
      signInPage({
        action: `/oauth/interaction/${details.uid}/login`,
        federationAction: `/oauth/interaction/${details.uid}/federate`,
        csrfToken: csrfTokenFor(deps.csrfKey, details.uid),
        clientName: await clientName(provider, String(details.params.client_id)),
        federationError,
        ...(email ? { email } : {}),
      }),
      redirectTargetOf(details),
    );
  };

  app.post('/oauth/interaction/:uid/federate', form, async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.trim().slice(0, 320) : '';
    if (!csrfValid(deps.csrfKey, details.uid, body.csrf_token)) {
      await signInAgain(res, provider, details, 403, 'Your sign-in form expired. Please try again.', email);
      return;
    }
    if (details.prompt.name !== 'login') {
      await signInAgain(res, provider, details, 400, 'There is no sign-in in progress.');
      return;
    }
    const result = await beginFederatedSignIn(deps.federation, { email, interactionUid: details.uid });
    switch (result.outcome) {
      case 'invalid_email':
        await signInAgain(
          res,
          provider,
          details,
          400,
          'Enter your work email address, like name@company.com.',
          email,
        );
        return;
      case 'unknown_domain':
        await signInAgain(
          res,
          provider,
          details,
          404,
          `There is no company sign-in for ${result.domain}. Sign in with your login and password instead.`,
          email,
        );
        return;
      case 'idp_unreachable':
        await signInAgain(
          res,
          provider,
          details,
          502,
          `We could not reach ${result.displayName} right now. Please try again in a moment.`,
          email,
        );
        return;
      case 'redirect':
        details.result = { federation: result.pending } as unknown as InteractionResults;
        await details.persist();
        sendHtml(res, 200, federationRedirectPage({ url: result.url.href, displayName: result.displayName }));
        return;
    }
  });

  app.get(FEDERATION_CALLBACK_PATH, (req: Request, res: Response) => {
    const uid = interactionUidOfState(req.query.state);
    if (!uid) {
      sendHtml(
        res,
        400,
        errorPage('invalid_request', 'This sign-in answer is not valid. Go back and start signing in again.'),
      );
      return;
    }
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    res.redirect(303, `/oauth/interaction/${uid}/federation/callback${query}`);
  });

  app.get('/oauth/interaction/:uid/federation/callback', async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const pending = pendingOf(details.result);
    if (!pending || details.uid !== req.params.uid || details.prompt.name !== 'login') {
      await signInAgain(
        res,
        provider,
        details,
        400,
        'This company sign-in expired or was already used. Please try again.',
      );
      return;
    }
    // Single use: a replayed or second answer finds nothing to match.
    details.result = undefined;
    await details.persist();

    const callback = new URL(req.originalUrl, 'http://callback.invalid');
    const result = await completeFederatedSignIn(deps.federation, pending, callback);
    if (result.outcome !== 'signed_in') {
      const { status, message } = failureMessage(result);
      deps.logger.info({ outcome: result.outcome }, 'federated sign-in refused');
      await signInAgain(res, provider, details, status, message);
      return;
    }
    if (result.created) deps.logger.info({ sub: result.sub }, 'shopper provisioned just in time');
    const client = await provider.Client.find(String(details.params.client_id));
    if (!(await subjectInClientTree(deps.federation.customers, client, result.sub))) {
      deps.logger.info({ sub: result.sub }, 'federated sign-in refused: outside the client account tree');
      await signInAgain(
        res,
        provider,
        details,
        403,
        'Your company account cannot sign in to this application: it serves another organisation.',
      );
      return;
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: result.sub } },
      { mergeWithLastSubmission: false },
    );
  });
}
