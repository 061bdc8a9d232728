// The sign-in and consent steps of the authorization code flow. oidc-provider redirects the browser
// here (`/oauth/interaction/:uid`) and this route hands the result back to it. CSRF: every form
// carries HMAC(cookie key, interaction uid); the uid itself is bound to the browser by the
// provider's signed interaction cookie, so a foreign page can neither read nor forge the token.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { UnavailableError } from '@ordering/errors';
import { errorHandlerUnder, isUnsafeText, toHttpAppError, type Logger } from '@ordering/http';
import { subjectInClientTree } from '../../domain/client-tree';
import { signIn, type SignInDeps } from '../../domain/sign-in-use-case';
import { splitScopes } from '../../domain/scopes';
import { grantRequestedScopes } from './grant-scopes';
import { consentPage, errorPage, signInPage } from './sign-in-views';
import { mountFederationRoutes, type FederationRoutesDeps } from './federation-routes';
import { clientName, csrfTokenFor, csrfValid, redirectTargetOf, sendHtml } from './interaction-page';
import { findShopper } from './oidc-provider-factory';

export interface InteractionRoutesDeps {
  provider: () => Provider;
  signIn: SignInDeps;
  csrfKey: string;
  audience: string;
  logger: Logger;
  /** Sign-in with the company's identity provider; the page offers it only when given. */
  federation?: FederationRoutesDeps['federation'];
}

export function mountInteractionRoutes(app: Express, deps: InteractionRoutesDeps): void {
  const form = express.urlencoded({ extended: false, limit: '16kb' });
  const base = '/oauth/interaction/:uid';
  const federationAction = (uid: string) =>
    deps.federation ? { federationAction: `/oauth/interaction/${uid}/federate` } : {};

  app.get(base, async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const uid = details.uid;
    const name = await clientName(provider, String(details.params.client_id));
    const csrfToken = csrfTokenFor(deps.csrfKey, uid);
    if (details.prompt.name === 'login') {
      sendHtml(
        res,
        200,
        signInPage({
          action: `/oauth/interaction/${uid}/login`,
          csrfToken,
          clientName: name,
          ...federationAction(uid),
        }),
        redirectTargetOf(details),
      );
      return;
    }
    const scopes = splitScopes(details.params.scope as string | undefined);
    sendHtml(
      res,
      200,
      consentPage({
        action: `/oauth/interaction/${uid}/confirm`,
        abortAction: `/oauth/interaction/${uid}/abort`,
        csrfToken,
        clientName: name,
        scopes,
      }),
      redirectTargetOf(details),
    );
  });

  app.post(`${base}/login`, form, async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const uid = details.uid;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const csrfToken = csrfTokenFor(deps.csrfKey, uid);
    const name = await clientName(provider, String(details.params.client_id));
    const page = (status: number, error: string, login?: string, offerCancel = false) =>
      sendHtml(
        res,
        status,
        signInPage({
          action: `/oauth/interaction/${uid}/login`,
          csrfToken,
          clientName: name,
          error,
          ...(login ? { login } : {}),
          ...(offerCancel ? { cancelAction: `/oauth/interaction/${uid}/abort` } : {}),
          ...federationAction(uid),
        }),
        redirectTargetOf(details),
      );
    if (!csrfValid(deps.csrfKey, uid, body.csrf_token)) {
      page(403, 'Your sign-in form expired. Please try again.');
      return;
    }
    if (details.prompt.name !== 'login') {
      page(400, 'There is no sign-in in progress.');
      return;
    }
    const login = typeof body.login === 'string' ? body.login : '';
    const password = typeof body.password === 'string' ? body.password : '';
    // Text no login or password holds (NUL, lone surrogates) is refused as any wrong credentials,
    // before it reaches the throttle or the customers service.
    if (isUnsafeText(login) || isUnsafeText(password)) {
      page(401, 'The login or password is not correct.');
      return;
    }
    // The client's address as the app trusts it (service.ts: the peer, or the last X-Forwarded-For
    // entry behind the one trusted proxy), never a header the client wrote itself.
    const result = await signIn(deps.signIn, { login, password, clientAddress: req.ip });
    if (result.outcome === 'throttled') {
      // The ceilings are what operators look at: an account guessed at from many addresses, or one
      // address trying many accounts. The tight limit is everyday typing and stays unlogged.
      if (result.limit === 'login')
        deps.logger.warn({ login: login.trim(), limit: result.limit }, 'sign-in ceiling of a login reached');
      else if (result.limit === 'address')
        deps.logger.warn({ address: req.ip, limit: result.limit }, 'sign-in ceiling of an address reached');
      res.set('Retry-After', String(result.retryAfterSeconds));
      page(429, `Too many failed attempts. Try again in ${result.retryAfterSeconds} seconds.`, login);
      return;
    }
    if (result.outcome === 'invalid_credentials') {
      page(401, 'The login or password is not correct.', login);
      return;
    }
    const client = await provider.Client.find(String(details.params.client_id));
    if (!(await subjectInClientTree(deps.signIn.customers, client, result.sub))) {
      page(
        403,
        `${login.trim()} cannot sign in to ${name}: this application serves another organisation. Sign in with an account of that organisation, or return to the application.`,
        undefined,
        true,
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

  app.post(`${base}/confirm`, form, async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (
      !csrfValid(deps.csrfKey, details.uid, body.csrf_token) ||
      details.prompt.name !== 'consent' ||
      !details.session
    ) {
      sendHtml(
        res,
        403,
        signInPage({
          action: '#',
          csrfToken: '',
          clientName: '',
          error: 'Your consent form expired. Please start again.',
        }),
      );
      return;
    }
    const clientId = String(details.params.client_id);
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId });
    if (!grant) throw new Error('grant of the interaction vanished');
    const account = await findShopper(deps.signIn.customers, details.session.accountId);
    if (!account) {
      await provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'The shopper can no longer sign in' },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    grantRequestedScopes(
      grant,
      details.params.scope as string | undefined,
      deps.audience,
      account.user.roles,
    );
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  });

  app.post(`${base}/abort`, form, async (req: Request, res: Response) => {
    const provider = deps.provider();
    const details = await provider.interactionDetails(req, res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!csrfValid(deps.csrfKey, details.uid, body.csrf_token)) {
      sendHtml(
        res,
        403,
        signInPage({
          action: '#',
          csrfToken: '',
          clientName: '',
          error: 'Your form expired. Please start again.',
        }),
      );
      return;
    }
    // Reached from the consent page (the user declined) and from a refused sign-in (a user of another
    // organisation): the description says what happened in both, without naming who tried.
    await provider.interactionFinished(
      req,
      res,
      {
        error: 'access_denied',
        error_description: 'The user returned to the application without signing in or granting access',
      },
      { mergeWithLastSubmission: false },
    );
  });

  if (deps.federation)
    mountFederationRoutes(app, {
      provider: deps.provider,
      federation: deps.federation,
      csrfKey: deps.csrfKey,
      logger: deps.logger,
    });

  // The provider's own errors (expired or foreign interaction) as a page, not a JSON API error.
  app.use(
    errorHandlerUnder(
      '/oauth/interaction',
      (err: unknown, _req: Request, res: Response, next: NextFunction) => {
        const e = err as { statusCode?: unknown; error?: unknown; error_description?: unknown };
        if (typeof e.statusCode === 'number' && e.statusCode < 500 && typeof e.error === 'string') {
          sendHtml(
            res,
            e.statusCode,
            errorPage(e.error, typeof e.error_description === 'string' ? e.error_description : undefined),
          );
          return;
        }
        // The form parser's refusals (413 body too large, 415, malformed) as a page too.
        const appError = toHttpAppError(err);
        if (appError.status < 500) {
          sendHtml(res, appError.status, errorPage(appError.code, appError.message));
          return;
        }
        if (err instanceof UnavailableError) {
          deps.logger.warn({ err }, 'sign-in could not reach a dependency');
          res.set('Retry-After', '5');
          sendHtml(
            res,
            503,
            errorPage(
              'temporarily_unavailable',
              'Signing in is not possible right now. Please try again in a moment.',
            ),
          );
          return;
        }
        next(err);
      },
    ),
  );
}
