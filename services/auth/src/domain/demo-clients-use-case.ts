// The demo clients of one customer account (local stack seed): a server-to-server client with
// every API scope, a read-only one and a first-party web client for the code flow. Idempotent:
// a client that exists gets a new secret (secrets are shown once, so the seed re-issues them).
import { ConflictError } from '@ordering/errors';
import {
  registerClient,
  rotateClientSecret,
  type ClientRegistrationDeps,
} from './client-registration-use-case';
import { hashClientSecret } from './client-secret';
import type { ClientRegistration } from './oauth-client';
import { API_SCOPES } from './scopes';

export const DEMO_WEB_REDIRECT_URI = 'http://127.0.0.1:8976/callback';
const READ_ONLY_SCOPES = ['orders:read', 'catalog:read', 'users:read'];
const WEB_SCOPES = [
  'openid',
  'profile',
  'email',
  'offline_access',
  'orders:read',
  'orders:write',
  'catalog:read',
  'users:read',
];

export interface DemoClientCredentials {
  client_id: string;
  client_secret: string | undefined;
  cust_id: string;
  login: string;
  scopes: string[];
  redirect_uris: string[];
}

function demoRegistrations(custId: string, login: string): ClientRegistration[] {
  const slug = custId.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return [
    {
      clientId: `${slug}-s2s`,
      name: `${custId} server-to-server`,
      type: 'service',
      scopes: [...API_SCOPES],
      custId,
      login,
    },
    {
      clientId: `${slug}-readonly`,
      name: `${custId} read-only`,
      type: 'service',
      scopes: READ_ONLY_SCOPES,
      custId,
      login,
    },
    {
      clientId: `${slug}-web`,
      name: 'Ordering Web',
      type: 'web',
      firstParty: true,
      redirectUris: [DEMO_WEB_REDIRECT_URI],
      scopes: WEB_SCOPES,
      custId,
      login,
    },
  ];
}

export async function ensureDemoClients(
  deps: ClientRegistrationDeps,
  account: { custId: string; login: string },
): Promise<DemoClientCredentials[]> {
  const result: DemoClientCredentials[] = [];
  for (const registration of demoRegistrations(account.custId, account.login)) {
    let secret: string | undefined;
    try {
      secret = (await registerClient(deps, registration)).clientSecret;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      await deps.clients.updateRegistration({
        clientId: registration.clientId!,
        name: registration.name,
        type: registration.type,
        firstParty: registration.firstParty ?? false,
        redirectUris: registration.redirectUris ?? [],
        scopes: registration.scopes,
        custId: registration.custId,
        login: registration.login,
        allAccounts: registration.allAccounts ?? false,
      });
      secret = (await rotateClientSecret(deps, registration.clientId!)).secret;
    }
    result.push({
      client_id: registration.clientId!,
      client_secret: secret,
      cust_id: registration.custId,
      login: registration.login,
      scopes: registration.scopes,
      redirect_uris: registration.redirectUris ?? [],
    });
  }
  return result;
}

/** The developer portal's client in the local stack: a platform client with a known local secret. */
export interface PortalClientRegistration {
  clientId: string;
  secret: string;
  redirectUri: string;
}

export const PORTAL_CLIENT_SCOPES = ['openid', 'profile', 'admin:all'];

/**
 * Registers (or re-registers) the portal's first-party platform client with the given secret, so
 * that the local portal process, started with the same secret, can sign admins in. Production
 * registers it with the operator CLI (`--all-accounts --first-party`) and keeps the printed secret.
 */
export async function ensurePortalClient(
  deps: ClientRegistrationDeps,
  portal: PortalClientRegistration,
): Promise<void> {
  const registration: ClientRegistration = {
    clientId: portal.clientId,
    name: 'Developer portal',
    type: 'web',
    firstParty: true,
    allAccounts: true,
    redirectUris: [portal.redirectUri],
    scopes: PORTAL_CLIENT_SCOPES,
    custId: 'PLATFORM',
    login: 'developer-portal',
  };
  try {
    await registerClient(deps, registration);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    await deps.clients.updateRegistration({
      clientId: portal.clientId,
      name: registration.name,
      type: registration.type,
      firstParty: true,
      allAccounts: true,
      redirectUris: [portal.redirectUri],
      scopes: PORTAL_CLIENT_SCOPES,
      custId: registration.custId,
      login: registration.login,
    });
  }
  await deps.clients.setSecretHash(
    portal.clientId,
    hashClientSecret(deps.secretKey, portal.secret),
    deps.now(),
  );
}
