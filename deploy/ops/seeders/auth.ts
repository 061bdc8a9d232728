// Demo OAuth clients of the auth service, per demo account: server-to-server with every scope,
// read-only, and a first-party web client for the code flow (loopback redirect URI). Written to
// the auth database by the service's own CLI code, as an operator would. The developer portal's own
// platform client too, with the local secret the portal process was started with. Idempotent: existing
// clients get a new secret, which goes to .local/stack.json.
import { registerDemoClients, registerPortalClient } from '@ordering/auth-service';
import { LOCAL_PORTAL_CLIENT } from '../../local/stack-definition';
import type { DemoData } from '../../local/stack-file';
import type { SeedContext } from '../seed-demo-data';

const FALLBACK_ACCOUNTS = ['ACME', 'GLOBEX'];

/** The login a client of `custId` acts for: the account's admin, else its first user. */
function integrationLogin(demo: DemoData, custId: string): string {
  const users = demo.users.filter((u) => u.cust_id === custId);
  return (users.find((u) => u.roles.includes('admin')) ?? users[0])?.login ?? 'integration';
}

export async function seedAuth(ctx: SeedContext, demo: DemoData): Promise<void> {
  const proc = ctx.procs.find((p) => p.name === 'auth');
  if (!proc) return;
  const accounts = demo.customers.length ? demo.customers.map((c) => c.cust_id) : FALLBACK_ACCOUNTS;
  const clients = await registerDemoClients(
    { ...process.env, ...proc.env },
    accounts.map((custId) => ({ custId, login: integrationLogin(demo, custId) })),
  );
  const portal = ctx.procs.find((p) => p.name === 'developer-portal');
  if (portal) {
    await registerPortalClient(
      { ...process.env, ...proc.env },
      {
        clientId: LOCAL_PORTAL_CLIENT.clientId,
        secret: LOCAL_PORTAL_CLIENT.secret,
        redirectUri: `${portal.env.PORTAL_PUBLIC_URL}/callback`,
      },
    );
  }
  for (const c of clients) {
    demo.clients.push({
      client_id: c.client_id,
      ...(c.client_secret ? { client_secret: c.client_secret } : {}),
      cust_id: c.cust_id,
      login: c.login,
      scopes: c.scopes,
      redirect_uris: c.redirect_uris,
    });
  }
}
