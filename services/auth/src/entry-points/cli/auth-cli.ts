// Operator commands of the auth service, mounted by the root `ops` CLI as `ops auth ...`. They work
// on the service's database directly through its data-access layer (run them with the service's
// DATABASE_URL, CLIENT_SECRET_KEY and KEY_ENCRYPTION_KEY): no admin endpoint to expose or protect.
// Secrets are printed once and never stored in clear.
import { Command, Option } from 'commander';
import type { z } from 'zod';
import { loadConfig, redisTlsFromEnv } from '@ordering/config';
import { createKnex, migrateLatest, type Knex } from '@ordering/db';
import { authConfigSchema, decodeKey } from '../../config';
import { Redis } from 'ioredis';
import { ClientRepository } from '../../data-access/client-repository';
import { IdentityProviderRepository } from '../../data-access/identity-provider-repository';
import { KeyCheckRepository } from '../../data-access/key-check-repository';
import { deleteGrantsOfClient } from '../../data-access/oidc-payload-repository';
import { RedisRevocationDenylist } from '../../data-access/revocation-denylist';
import { OutboxRevocationPublisher } from '../../data-access/revocation-outbox';
import { SigningKeyRepository } from '../../data-access/signing-key-repository';
import { revokeSigningKey } from '../../domain/revocation-use-case';
import {
  disableClient,
  registerClient,
  rotateClientSecret,
  type ClientRegistrationDeps,
} from '../../domain/client-registration-use-case';
import {
  ensureDemoClients,
  ensurePortalClient,
  type DemoClientCredentials,
  type PortalClientRegistration,
} from '../../domain/demo-clients-use-case';
import {
  addIdentityProvider,
  removeIdentityProvider,
} from '../../domain/identity-provider-registry-use-case';
import { CLIENT_TYPES, type ClientType } from '../../domain/oauth-client';
import {
  DEFAULT_KEY_OVERLAP_SECONDS,
  rotateSigningKey,
  tokensOutliveOverlap,
} from '../../domain/signing-key-use-case';
import { splitScopes } from '../../domain/scopes';
import { assertClientSecretKeyOfService } from '../../domain/client-secret';
import { migrations } from '../../../migrations';

/** What the commands need of the service's configuration (same variables, same defaults). */
export const cliEnvSchema = authConfigSchema.pick({
  DATABASE_URL: true,
  CLIENT_SECRET_KEY: true,
  KEY_ENCRYPTION_KEY: true,
  REDIS_URL: true,
  REDIS_KEY_PREFIX: true,
});

export interface AuthCliIo {
  env?: NodeJS.ProcessEnv;
  /** Where results go (JSON, one document per command); default stdout. */
  out?: (text: string) => void;
  /** Read for `--client-secret -`; default stdin. */
  readSecret?: () => Promise<string>;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

async function withDatabase<T>(
  source: NodeJS.ProcessEnv,
  fn: (knex: Knex, cfg: z.infer<typeof cliEnvSchema>) => Promise<T>,
): Promise<T> {
  const cfg = loadConfig(cliEnvSchema, source);
  const knex = createKnex({ url: cfg.DATABASE_URL, service: 'auth-cli', pool: { max: 2 } });
  try {
    await migrateLatest(knex, migrations);
    return await fn(knex, cfg);
  } finally {
    await knex.destroy();
  }
}

function registrationDeps(knex: Knex, cfg: z.infer<typeof cliEnvSchema>): ClientRegistrationDeps {
  return { clients: new ClientRepository(knex), secretKey: cfg.CLIENT_SECRET_KEY, now: () => new Date() };
}

/** The same, for commands that make a secret: only with the auth service's own CLIENT_SECRET_KEY. */
async function secretMakingDeps(
  knex: Knex,
  cfg: z.infer<typeof cliEnvSchema>,
): Promise<ClientRegistrationDeps> {
  await assertClientSecretKeyOfService(new KeyCheckRepository(knex), cfg.CLIENT_SECRET_KEY);
  return registrationDeps(knex, cfg);
}

/**
 * The demo clients of each account (local stack seed), on the database of `source`'s DATABASE_URL;
 * idempotent: existing demo clients get a new secret, returned here (secrets are shown once).
 */
export function registerDemoClients(
  source: NodeJS.ProcessEnv,
  accounts: { custId: string; login: string }[],
): Promise<DemoClientCredentials[]> {
  return withDatabase(source, async (knex, cfg) => {
    const registered: DemoClientCredentials[] = [];
    for (const account of accounts)
      registered.push(...(await ensureDemoClients(await secretMakingDeps(knex, cfg), account)));
    return registered;
  });
}

/** The developer portal's client of the local stack, with the portal's local secret. */
export function registerPortalClient(
  source: NodeJS.ProcessEnv,
  portal: PortalClientRegistration,
): Promise<void> {
  return withDatabase(source, async (knex, cfg) =>
    ensurePortalClient(await secretMakingDeps(knex, cfg), portal),
  );
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function authCli(io: AuthCliIo = {}): Command {
  const source = io.env ?? process.env;
  const out = io.out ?? ((text: string) => process.stdout.write(`${text}\n`));
  const print = (value: unknown) => out(JSON.stringify(value, null, 2));

  const auth = new Command('auth').description(
    'Auth service: OAuth clients, signing keys and company identity providers',
  );
  const clients = auth.command('clients').description('OAuth clients');

  clients
    .command('register')
    .description('Register a client; prints its id and (confidential clients) its secret, shown this once')
    .requiredOption('--name <name>', 'display name (shown on the consent page)')
    .addOption(
      new Option(
        '--type <type>',
        'service: client credentials; web: code flow with a secret; native: code flow, public',
      )
        .choices([...CLIENT_TYPES])
        .makeOptionMandatory(),
    )
    .requiredOption('--scopes <scopes>', 'allowed scopes, space- or comma-separated')
    .requiredOption('--cust-id <cust_id>', 'customer account the client acts for')
    .requiredOption('--login <login>', 'integration login the client acts for')
    .option('--redirect-uri <uri>', 'redirect URI (repeatable)', collect, [])
    .option('--first-party', 'skip the consent screen (our own applications)', false)
    .option('--client-id <id>', 'chosen client id (default: random)')
    .option(
      '--all-accounts',
      'a platform client (the developer portal): signs in users of every account, not only the tree of --cust-id',
      false,
    )
    .action(
      async (opts: {
        name: string;
        type: ClientType;
        scopes: string;
        custId: string;
        login: string;
        redirectUri: string[];
        firstParty: boolean;
        clientId?: string;
        allAccounts: boolean;
      }) => {
        await withDatabase(source, async (knex, cfg) => {
          const { client, clientSecret } = await registerClient(await secretMakingDeps(knex, cfg), {
            name: opts.name,
            type: opts.type,
            scopes: splitScopes(opts.scopes.replace(/,/g, ' ')),
            custId: opts.custId,
            login: opts.login,
            redirectUris: opts.redirectUri,
            firstParty: opts.firstParty,
            allAccounts: opts.allAccounts,
            ...(opts.clientId ? { clientId: opts.clientId } : {}),
          });
          print({
            client_id: client.clientId,
            ...(clientSecret ? { client_secret: clientSecret } : {}),
            type: client.type,
            scopes: client.scopes,
            cust_id: client.custId,
            login: client.login,
            redirect_uris: client.redirectUris,
            first_party: client.firstParty,
            all_accounts: client.allAccounts,
          });
        });
      },
    );

  clients
    .command('rotate-secret <client_id>')
    .description(
      'Replace the secret of a client (the old one stops working); prints the new one, shown this once',
    )
    .action(async (clientId: string) => {
      await withDatabase(source, async (knex, cfg) => {
        const { secret } = await rotateClientSecret(await secretMakingDeps(knex, cfg), clientId);
        print({ client_id: clientId, client_secret: secret });
      });
    });

  clients
    .command('disable <client_id>')
    .description('Disable a client: it can no longer authenticate or start a flow')
    .action(async (clientId: string) => {
      await withDatabase(source, async (knex, cfg) => {
        // The client's grants are denied at the gateway through the same Redis denylist.
        const redis = new Redis(cfg.REDIS_URL, {
          lazyConnect: true,
          maxRetriesPerRequest: 2,
          ...redisTlsFromEnv(),
        });
        try {
          await redis.connect();
          const { revokedGrants } = await disableClient(
            {
              ...registrationDeps(knex, cfg),
              deleteGrantsOfClient: (id) => deleteGrantsOfClient(knex, id),
              revocation: {
                denylist: new RedisRevocationDenylist(redis, cfg.REDIS_KEY_PREFIX),
                publisher: new OutboxRevocationPublisher(knex),
                now: () => Date.now() / 1000,
              },
            },
            clientId,
          );
          print({ client_id: clientId, status: 'disabled', revoked_grants: revokedGrants });
        } finally {
          redis.disconnect();
        }
      });
    });

  clients
    .command('list')
    .description('List clients (never their secrets)')
    .action(async () => {
      await withDatabase(source, async (knex) => {
        const all = await new ClientRepository(knex).list();
        print(
          all.map((c) => ({
            client_id: c.clientId,
            name: c.name,
            type: c.type,
            status: c.status,
            cust_id: c.custId,
            login: c.login,
            scopes: c.scopes,
            first_party: c.firstParty,
            secret_rotated_at: c.secretRotatedAt,
          })),
        );
      });
    });

  const idps = auth
    .command('idps')
    .description('Company identity providers for federated sign-in, one per e-mail domain');
  const idpRepository = (knex: Knex, cfg: z.infer<typeof cliEnvSchema>) =>
    new IdentityProviderRepository(knex, decodeKey(cfg.KEY_ENCRYPTION_KEY)!);

  idps
    .command('add')
    .description(
      'Register the OpenID Connect provider of an e-mail domain; register <AUTH_ISSUER>/oauth/federation/callback as its redirect URI',
    )
    .requiredOption('--domain <domain>', 'e-mail domain whose people sign in there, e.g. acme.example')
    .requiredOption(
      '--issuer <url>',
      'issuer identifier (discovery at <issuer>/.well-known/openid-configuration)',
    )
    .requiredOption('--client-id <id>', 'our client id at that provider')
    .requiredOption('--client-secret <secret>', 'our client secret there ("-": read it from stdin)')
    .requiredOption('--name <name>', 'display name shown on the sign-in pages')
    .action(
      async (opts: {
        domain: string;
        issuer: string;
        clientId: string;
        clientSecret: string;
        name: string;
      }) => {
        const clientSecret =
          opts.clientSecret === '-' ? await (io.readSecret ?? readStdin)() : opts.clientSecret;
        await withDatabase(source, async (knex, cfg) => {
          const idp = await addIdentityProvider(
            { identityProviders: idpRepository(knex, cfg), now: () => new Date() },
            {
              domain: opts.domain,
              issuer: opts.issuer,
              clientId: opts.clientId,
              clientSecret,
              displayName: opts.name,
            },
          );
          print({ domain: idp.domain, issuer: idp.issuer, client_id: idp.clientId, name: idp.displayName });
        });
      },
    );

  idps
    .command('list')
    .description('List identity providers (never their secrets)')
    .action(async () => {
      await withDatabase(source, async (knex, cfg) => {
        const all = await idpRepository(knex, cfg).list();
        print(
          all.map((idp) => ({
            domain: idp.domain,
            issuer: idp.issuer,
            client_id: idp.clientId,
            name: idp.displayName,
            created_at: idp.createdAt,
          })),
        );
      });
    });

  idps
    .command('remove <domain>')
    .description('Remove the identity provider of a domain: its people can no longer sign in through it')
    .action(async (domain: string) => {
      await withDatabase(source, async (knex, cfg) => {
        await removeIdentityProvider({ identityProviders: idpRepository(knex, cfg) }, domain);
        print({ domain: domain.trim().toLowerCase(), removed: true });
      });
    });

  const keys = auth.command('keys').description('Token signing keys');
  keys
    .command('rotate')
    .description(
      'Make a new RSA key the signing key; the previous ones stay in the JWKS for the overlap at most ' +
        '(a key retired earlier and published longer is cut to it too). With an overlap shorter than a ' +
        "token lifetime (a leaked key: 0), the gateways refuse the previous keys' tokens when the " +
        'overlap ends, through the revocation denylist in Redis',
    )
    .option(
      '--overlap-seconds <n>',
      'how long the previous key stays published',
      String(DEFAULT_KEY_OVERLAP_SECONDS),
    )
    .action(async (opts: { overlapSeconds: string }) => {
      const overlap = Number(opts.overlapSeconds);
      if (!Number.isInteger(overlap) || overlap < 0)
        throw new Error('--overlap-seconds must be a whole number >= 0');
      await withDatabase(source, async (knex, cfg) => {
        // Reach Redis before rotating: a leaked key's rotation must not stop half done.
        const redis = tokensOutliveOverlap(overlap)
          ? new Redis(cfg.REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2, ...redisTlsFromEnv() })
          : undefined;
        try {
          await redis?.connect();
          const result = await rotateSigningKey(
            {
              keys: new SigningKeyRepository(knex),
              encryptionKey: decodeKey(cfg.KEY_ENCRYPTION_KEY)!,
              now: () => new Date(),
            },
            overlap,
          );
          const refusedFrom = result.retiredPublishedUntil.getTime() / 1000;
          if (redis) {
            const revocation = {
              denylist: new RedisRevocationDenylist(redis, cfg.REDIS_KEY_PREFIX),
              now: () => Date.now() / 1000,
            };
            for (const kid of result.retiredKids) await revokeSigningKey(revocation, kid, refusedFrom);
          }
          print({
            kid: result.kid,
            previous_kids: result.retiredKids,
            previous_key_published_until: result.retiredPublishedUntil.toISOString(),
            ...(redis
              ? { previous_key_tokens_refused_from: result.retiredPublishedUntil.toISOString() }
              : {}),
          });
        } finally {
          redis?.disconnect();
        }
      });
    });

  keys
    .command('list')
    .description('List signing keys (public parts only)')
    .action(async () => {
      await withDatabase(source, async (knex) => {
        const all = await new SigningKeyRepository(knex).listAll();
        print(
          all.map((k) => ({
            kid: k.kid,
            alg: k.alg,
            status: k.status,
            created_at: k.createdAt,
            publish_until: k.publishUntil,
          })),
        );
      });
    });

  return auth;
}
