// A real OpenID Connect provider standing in for a company's identity provider: a second
// oidc-provider instance on a free port, with one registered client (the auth service) and people
// chosen by `login_hint`. Its own interaction route signs the hinted person in at once (no dev
// interactions, no password), or refuses when the person is unknown or marked `deny`.
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Adapter, type AdapterPayload, type Configuration, type JWK } from 'oidc-provider';

/** The provider's state in a Map (a test double of storage, not of the protocol). */
function mapAdapter(store: Map<string, AdapterPayload>) {
  return (name: string): Adapter => {
    const key = (id: string) => `${name}:${id}`;
    const find = (id: string) => Promise.resolve(store.get(key(id)));
    return {
      upsert: (id, payload) => {
        store.set(key(id), payload);
        return Promise.resolve();
      },
      find,
      findByUid: (uid) => Promise.resolve([...store.values()].find((p) => p.uid === uid)),
      findByUserCode: () => Promise.resolve(undefined),
      consume: (id) => {
        const payload = store.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
        return Promise.resolve();
      },
      destroy: (id) => {
        store.delete(key(id));
        return Promise.resolve();
      },
      revokeByGrantId: (grantId) => {
        for (const [k, p] of store) if (p.grantId === grantId) store.delete(k);
        return Promise.resolve();
      },
    };
  };
}

export interface UpstreamPerson {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
  /** Refuse the sign-in (the provider answers access_denied). */
  deny?: boolean;
}

export interface UpstreamIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person the provider signs in when asked with `login_hint` = `hint`. */
  person(hint: string, person: UpstreamPerson): void;
  /** Authorization requests seen (their query), newest last. */
  authorizationRequests: URLSearchParams[];
  close(): Promise<void>;
}

export async function startUpstreamIdentityProvider(options: {
  redirectUri: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * Put email and name in the ID token (default), or, as a strictly conforming provider does in
   * the code flow, only at its userinfo endpoint.
   */
  claimsInIdToken?: boolean;
  /** Publish a JWKS of another key than the one that signs (a forged or misconfigured provider). */
  publishForeignKeys?: boolean;
}): Promise<UpstreamIdentityProvider> {
  const people = new Map<string, UpstreamPerson>();
  const bySub = new Map<string, UpstreamPerson>();
  const authorizationRequests: URLSearchParams[] = [];
  const clientId = options.clientId ?? 'ordering-auth';
  const clientSecret = options.clientSecret ?? 'upstream-client-secret-0123456789abcdef';
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'upstream-1', alg: 'RS256', use: 'sig' };
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  const foreignJwks = JSON.stringify({ keys: [{ ...foreign, kid: 'upstream-1', alg: 'RS256', use: 'sig' }] });

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const configuration: Configuration = {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    adapter: mapAdapter(new Map()),
    jwks: { keys: [signingKey as JWK] },
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      IdToken: 600,
      Grant: 600,
      Interaction: 600,
      Session: 600,
    },
    cookies: { keys: ['upstream-cookie-key-0123456789abcdef'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Company providers commonly put the requested claims in the ID token itself.
    conformIdTokenClaims: options.claimsInIdToken === false,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    findAccount: (_ctx, sub) => {
      const person = bySub.get(sub);
      return person
        ? {
            accountId: sub,
            claims: () => ({
              sub,
              email: person.email,
              email_verified: person.email_verified,
              ...(person.name ? { name: person.name } : {}),
            }),
          }
        : undefined;
    },
    // Every request is granted what it asks (no consent screen).
    loadExistingGrant: async (ctx) => {
      const { client, session, params } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope(String(params?.scope ?? 'openid'));
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const callback = provider.callback();

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/auth') authorizationRequests.push(url.searchParams);
    if (url.pathname === '/jwks' && options.publishForeignKeys) {
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' }).end(foreignJwks);
      return;
    }
    if (!url.pathname.startsWith('/interaction/')) {
      callback(req, res);
      return;
    }
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const hint = String(details.params.login_hint ?? '');
      const person = people.get(hint);
      if (!person || person.deny) {
        await provider.interactionFinished(
          req,
          res,
          { error: 'access_denied', error_description: 'not signed in' },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      await provider.interactionFinished(req, res, { login: { accountId: person.sub } });
    })().catch((err: unknown) => {
      res.statusCode = 500;
      res.end(String(err));
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    authorizationRequests,
    person(hint, person) {
      people.set(hint, person);
      bySub.set(person.sub, person);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
