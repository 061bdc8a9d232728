import * as client from 'openid-client';
import { decodeProtectedHeader } from 'jose';
import type { StackProcess, StackSettings } from '../../../deploy/local/stack-definition';
import type { DemoData } from '../../../deploy/local/stack-file';
import { seedAuth } from '../../../deploy/ops/seeders/auth';
import { startAuthHarness, type AuthHarness } from './support/auth-test-harness';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthHarness();
});
afterAll(async () => {
  await h?.close();
});

function seedContext() {
  const proc: StackProcess = {
    name: 'auth',
    dir: '.',
    port: 0,
    env: {
      DATABASE_URL: h.db.url,
      CLIENT_SECRET_KEY: h.config.CLIENT_SECRET_KEY,
      KEY_ENCRYPTION_KEY: h.config.KEY_ENCRYPTION_KEY,
    },
  };
  return { procs: [proc], settings: {} as StackSettings };
}

describe('demo seed', () => {
  it('registers s2s, read-only and first-party web clients per account, usable at once, and re-issues secrets on a second run', async () => {
    const demo: DemoData = {
      customers: [],
      users: [],
      clients: [],
    };
    await seedAuth(seedContext(), demo);
    expect(demo.clients.map((c) => c.client_id).sort()).toEqual(
      ['acme-readonly', 'acme-s2s', 'acme-web', 'globex-readonly', 'globex-s2s', 'globex-web'].sort(),
    );
    const s2s = demo.clients.find((c) => c.client_id === 'acme-s2s')!;
    expect(s2s.scopes.sort()).toEqual([
      'admin:all',
      'catalog:read',
      'orders:read',
      'orders:write',
      'users:read',
      'users:write',
    ]);
    const web = demo.clients.find((c) => c.client_id === 'globex-web')!;
    expect(web.redirect_uris).toEqual(['http://127.0.0.1:8976/callback']);
    expect(web.scopes).toContain('openid');

    const config = await h.discover(s2s.client_id, s2s.client_secret);
    const tokens = await client.clientCredentialsGrant(config, { scope: s2s.scopes.join(' ') });
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe('RS256');
    expect(tokens.scope?.split(' ').sort()).toEqual(s2s.scopes.sort());

    const readonly = demo.clients.find((c) => c.client_id === 'acme-readonly')!;
    const ro = await h.discover(readonly.client_id, readonly.client_secret);
    await expect(client.clientCredentialsGrant(ro, { scope: 'orders:write' })).rejects.toMatchObject({
      error: 'invalid_scope',
    });

    const again: DemoData = {
      customers: [{ cust_id: 'ACME', name: 'Acme', parent_cust_id: null }],
      users: [{ login: 'alice.admin', password: 'x', cust_id: 'ACME', roles: ['admin'] }],
      clients: [],
    };
    await seedAuth(seedContext(), again);
    expect(again.clients).toHaveLength(3);
    expect(again.clients[0]).toMatchObject({ client_id: 'acme-s2s', login: 'alice.admin' });
    expect(again.clients[0]!.client_secret).not.toBe(s2s.client_secret);
    await expect(client.clientCredentialsGrant(config, { scope: 'orders:read' })).rejects.toMatchObject({
      status: 401,
    });
    const reissued = await client.clientCredentialsGrant(
      await h.discover('acme-s2s', again.clients[0]!.client_secret),
      {
        scope: 'orders:read',
      },
    );
    expect(
      JSON.parse(Buffer.from(reissued.access_token.split('.')[1]!, 'base64url').toString()),
    ).toMatchObject({
      login: 'alice.admin',
      sub: 'shopper:acme:alice.admin',
    });
  });
});
