// The internal API of the auth service: credential checks (no enumeration, slowed down after
// repeated failures), one-time password links, user lookup and just-in-time provisioning.
import { randomUUID } from 'node:crypto';
import { TOPICS } from '@ordering/contracts';
import { Credentials } from '../src/domain/credentials-use-case';
import { type Harness, startHarness } from './support/customers-harness';
import { readEvents } from '@ordering/testing';

let h: Harness;
let custId: string;
const sleeps: number[] = [];

beforeAll(async () => {
  // Real scrypt, real database; the sign-in slow-down sleeps on a recorded clock so tests stay fast.
  h = await startHarness({
    clock: {
      now: () => new Date(),
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    },
    credentialPolicy: { freeFailures: 3, baseDelayMs: 1000, maxDelayMs: 8000, loginMaxAttempts: 15 },
  });
  custId = `CRED-${h.suffix}`;
  await h.admin.createCustomer({
    cust_id: custId,
    name: 'Cred Co',
    email_domains: [`cred-${h.suffix.toLowerCase()}.example`],
    jit_provisioning: true,
  });
});
afterAll(() => h?.stop());

/** A credential check as the auth service sends it, for a person at `clientAddress` (if given). */
const verify = (login: string, password: string, clientAddress?: string) =>
  h
    .http()
    .post('/internal/v1/credentials/verify')
    .set('X-Ordering-Identity', h.internalIdentity())
    .send({ login, password, ...(clientAddress ? { client_address: clientAddress } : {}) });

async function userWithPassword(password = 'correct horse battery') {
  const login = `u.${randomUUID().slice(0, 8)}`;
  await h.admin.createUser({ login, email: `${login}@example.com`, name: 'U', cust_id: custId, password });
  return login;
}

describe('POST /internal/v1/credentials/verify', () => {
  it('answers the user for the right password, whatever the case of the login', async () => {
    const login = await userWithPassword();
    const res = await verify(login.toUpperCase(), 'correct horse battery');
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ login, cust_id: custId, status: 'active', object: 'user' });
    expect(JSON.stringify(res.body)).not.toMatch(/scrypt|password/);
  });

  it('answers the same 401 invalid_credentials for an unknown login, a wrong password and a deactivated user', async () => {
    const login = await userWithPassword();
    const deactivated = await userWithPassword();
    await h.admin.deactivateUser(deactivated);
    const answers = await Promise.all([
      verify(`nobody.${randomUUID()}`, 'correct horse battery'),
      verify(login, 'wrong password!!'),
      verify(deactivated, 'correct horse battery'),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_credentials' });
      expect(res.body.error.message).toBe(answers[0]!.body.error.message);
    }
  });

  it('a user without a password cannot sign in with an empty or any password', async () => {
    const login = `nopw.${randomUUID().slice(0, 8)}`;
    await h.admin.createUser({ login, email: `${login}@example.com`, name: 'N', cust_id: custId });
    expect((await verify(login, 'anything at all')).status).toBe(401);
  });

  it('an operator creation with a too short password creates nothing', async () => {
    const login = `short.${randomUUID().slice(0, 8)}`;
    await expect(
      h.admin.createUser({
        login,
        email: `${login}@example.com`,
        name: 'S',
        cust_id: custId,
        password: 'short',
      }),
    ).rejects.toMatchObject({ status: 422, body: { error: { param: 'password' } } });
    expect(await h.knex('users').where({ login }).first()).toBeUndefined();
  });

  it('stores passwords as memory-hard scrypt hashes, never in clear', async () => {
    const login = await userWithPassword('a very secret pass');
    const row = await h.knex('users').where({ login }).first();
    expect(row.password_hash).toMatch(/^scrypt\$\d+\$8\$1\$/);
    expect(row.password_hash).not.toContain('a very secret pass');
  });

  it('slows down repeated failures of one login with a growing delay, and a success resets it', async () => {
    const login = await userWithPassword();
    sleeps.length = 0;
    for (let i = 0; i < 6; i++) expect((await verify(login, 'wrong password!!')).status).toBe(401);
    // 3 free failures, then 1 s, 2 s, 4 s.
    expect(sleeps).toEqual([1000, 2000, 4000]);
    sleeps.length = 0;
    expect((await verify(login, 'correct horse battery')).status).toBe(200);
    expect(sleeps).toEqual([8000]);
    sleeps.length = 0;
    expect((await verify(login, 'wrong password!!')).status).toBe(401);
    expect(sleeps).toEqual([]);
  });

  it('parallel guesses cannot share one failure count: each waits longer than the one before', async () => {
    const login = await userWithPassword();
    sleeps.length = 0;
    const answers = await Promise.all(Array.from({ length: 6 }, () => verify(login, 'wrong password!!')));
    expect(answers.every((r) => r.status === 401)).toBe(true);
    expect([...sleeps].sort((a, b) => a - b)).toEqual([1000, 2000, 4000]);
  });

  it('past 10 attempts (from one address, here a caller that sends none) the password is not checked: 429 too_many_attempts with Retry-After, even when right', async () => {
    const login = await userWithPassword();
    for (let i = 0; i < 10; i++) expect((await verify(login, 'wrong password!!')).status).toBe(401);
    sleeps.length = 0;
    const refused = await verify(login, 'correct horse battery');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('900');
    expect(refused.body).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'too_many_attempts',
        message: expect.any(String),
        request_id: refused.headers['x-request-id'],
      },
    });
    // Answered at once: a deliberate slow-down is never long enough to look like an outage.
    expect(sleeps).toEqual([]);
  });

  it('counts per login and client address: failures from one address neither slow down nor refuse another', async () => {
    const login = await userWithPassword();
    sleeps.length = 0;
    for (let i = 0; i < 10; i++)
      expect((await verify(login, 'wrong password!!', '198.51.100.7')).status).toBe(401);
    expect(sleeps).toEqual([1000, 2000, 4000, 8000, 8000, 8000, 8000]);
    expect((await verify(login, 'correct horse battery', '198.51.100.7')).status).toBe(429);
    // The user at their own address: answered at once, and signed in.
    sleeps.length = 0;
    expect((await verify(login, 'correct horse battery', '203.0.113.5')).status).toBe(200);
    expect(sleeps).toEqual([]);
    // The stranger's address stays refused for that login.
    expect((await verify(login, 'correct horse battery', '198.51.100.7')).status).toBe(429);
  });

  it('a login tried from many addresses meets its ceiling across addresses, with the ceiling window to wait', async () => {
    const login = await userWithPassword();
    for (let i = 1; i <= 15; i++)
      expect((await verify(login, 'wrong password!!', `192.0.2.${i}`)).status).toBe(401);
    const refused = await verify(login, 'correct horse battery', '192.0.2.200');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('too_many_attempts');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(900);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('a success forgets its address count and takes only that address share off the login ceiling', async () => {
    const login = await userWithPassword();
    // A guesser: 10 of the ceiling's 15, one per address.
    for (let i = 1; i <= 10; i++)
      expect((await verify(login, 'wrong password!!', `192.0.2.${i}`)).status).toBe(401);
    // The user: two typos and a success from their own address (13), which takes its 3 back (10).
    for (let i = 0; i < 2; i++)
      expect((await verify(login, 'typo password', '203.0.113.9')).status).toBe(401);
    expect((await verify(login, 'correct horse battery', '203.0.113.9')).status).toBe(200);
    // The typos were forgotten: the next failures there are free again.
    sleeps.length = 0;
    for (let i = 0; i < 3; i++)
      expect((await verify(login, 'typo password', '203.0.113.9')).status).toBe(401);
    expect(sleeps).toEqual([]);
    // 13 now; the guesser's 10 were kept: two more failures elsewhere reach the ceiling.
    for (let i = 11; i <= 12; i++)
      expect((await verify(login, 'wrong password!!', `192.0.2.${i}`)).status).toBe(401);
    expect((await verify(login, 'correct horse battery', '192.0.2.99')).status).toBe(429);
  });

  it('refuses a client address that is no counting address (too long)', async () => {
    const res = await verify('someone', 'some password', 'x'.repeat(65));
    expect(res.status).toBe(422);
    expect(res.body.error.param).toBe('client_address');
  });

  it('by default the slow-down never exceeds 2 s, well under the auth service 5 s timeout', () => {
    // delayFor reads the policy alone.
    const credentials = new Credentials(undefined as never, undefined as never, undefined as never);
    const delays = Array.from({ length: 30 }, (_, failures) => credentials.delayFor(failures));
    expect(Math.max(...delays)).toBe(2000);
    expect(delays.slice(0, 5)).toEqual([0, 0, 0, 500, 1000]);
  });

  it('unknown logins are slowed down like known ones (no enumeration by timing of the slow-down)', async () => {
    const login = `ghost.${randomUUID().slice(0, 8)}`;
    sleeps.length = 0;
    for (let i = 0; i < 4; i++) await verify(login, 'whatever pass');
    expect(sleeps).toEqual([1000]);
  });

  it('is for internal callers only', async () => {
    const res = await h
      .http()
      .post('/internal/v1/credentials/verify')
      .set('X-Ordering-Identity', h.identity(custId, ['admin:all']))
      .send({ login: 'x', password: 'y' });
    expect(res.status).toBe(403);
  });
});

describe('one-time password links', () => {
  it('sets the password once; the link cannot be used again', async () => {
    const login = `link.${randomUUID().slice(0, 8)}`;
    await h.admin.createUser({ login, email: `${login}@example.com`, name: 'L', cust_id: custId });
    const { token } = await h.admin.passwordLink(login);
    const set = (password: string) =>
      h
        .http()
        .post('/internal/v1/credentials/password')
        .set('X-Ordering-Identity', h.internalIdentity())
        .send({ token, password });
    const tooShort = await set('short');
    expect(tooShort.status).toBe(422);
    expect(tooShort.body.error.param).toBe('password');
    expect((await set('my new password')).status).toBe(200);
    expect((await verify(login, 'my new password')).status).toBe(200);
    const reuse = await set('another password');
    expect(reuse.status).toBe(422);
    expect(reuse.body.error.code).toBe('invalid_token');
    expect((await verify(login, 'another password')).status).toBe(401);
  });
});

describe('GET /internal/v1/users/{login}', () => {
  it('answers the user of any account, or 404', async () => {
    const login = await userWithPassword();
    const found = await h
      .http()
      .get(`/internal/v1/users/${login}`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(found.status).toBe(200);
    expect(found.body.login).toBe(login);
    const missing = await h
      .http()
      .get(`/internal/v1/users/nobody-${randomUUID()}`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(missing.status).toBe(404);
  });
});

describe('POST /internal/v1/users/jit', () => {
  const jit = (email: string, name?: string) =>
    h
      .http()
      .post('/internal/v1/users/jit')
      .set('X-Ordering-Identity', h.internalIdentity())
      .send({ email, ...(name ? { name } : {}) });

  it('creates the shopper of a mapped domain once (user.created fires once), even when sign-ins race', async () => {
    const email = `Jit.${randomUUID().slice(0, 8)}@CRED-${h.suffix}.example`;
    const login = email.toLowerCase();
    const reader = await readEvents(TOPICS.users, (e) => (e.data as { login?: string }).login === login);
    try {
      const [a, b] = await Promise.all([jit(email, 'Jane Jit'), jit(email, 'Jane Jit')]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      const created = a.status === 201 ? a : b;
      expect(created.body).toMatchObject({
        created: true,
        user: { login, email: login, cust_id: custId, name: 'Jane Jit', roles: ['shopper'] },
      });
      const later = await jit(email);
      expect(later.status).toBe(200);
      expect(later.body).toMatchObject({ created: false, user: { login } });
      await reader.waitFor((es) => es.length >= 1);
      // Give a duplicate every chance to show up: another user's event after ours proves the relay moved on.
      const marker = `marker.${randomUUID().slice(0, 8)}`;
      const markerReader = await readEvents(
        TOPICS.users,
        (e) => (e.data as { login?: string }).login === marker,
      );
      await h.admin.createUser({ login: marker, email: `${marker}@example.com`, name: 'M', cust_id: custId });
      await markerReader.waitFor((es) => es.length === 1);
      await markerReader.stop();
      expect(reader.events.map((e) => e.type)).toEqual(['user.created']);
    } finally {
      await reader.stop();
    }
  });

  it('answers 422 for an e-mail that cannot be a login, creating nobody; a user already holding it signs in', async () => {
    const domain = `cred-${h.suffix.toLowerCase()}.example`;
    const quoted = `o'brien@${domain}`;
    const long = `${'a'.repeat(101 - domain.length)}@${domain}`;
    for (const email of [quoted, long]) {
      const res = await jit(email);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'email' });
      expect(await h.knex('users').where({ email }).first()).toBeUndefined();
    }
    // An admin created the person with another login and this e-mail: sign-in finds that user.
    const login = `obrien.${randomUUID().slice(0, 8)}`;
    await h.admin.createUser({ login, email: quoted, name: "Pat O'Brien", cust_id: custId });
    const found = await jit(quoted);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ created: false, user: { login } });
  });

  it('answers 404 for a domain no account maps, or an account that does not allow JIT', async () => {
    expect((await jit(`x@unmapped-${h.suffix.toLowerCase()}.example`)).status).toBe(404);
    const other = `NOJIT-${h.suffix}`;
    await h.admin.createCustomer({
      cust_id: other,
      name: 'No JIT',
      email_domains: [`nojit-${h.suffix.toLowerCase()}.example`],
    });
    const res = await jit(`x@nojit-${h.suffix.toLowerCase()}.example`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_missing');
  });

  it("never signs anyone into a user of an account that does not own the e-mail's domain (409, nobody created); users of the domain's account tree are found", async () => {
    const domain = `cred-${h.suffix.toLowerCase()}.example`;
    // Another company's admin names users after people of this domain: by login, and by e-mail.
    const other = `OTHER-${h.suffix}`;
    await h.admin.createCustomer({ cust_id: other, name: 'Other Co' });
    const byLogin = `victim.${randomUUID().slice(0, 8)}@${domain}`;
    await h.admin.createUser({
      login: byLogin,
      email: `x@${other.toLowerCase()}.example`,
      name: 'V',
      cust_id: other,
    });
    const byEmail = `victim2.${randomUUID().slice(0, 8)}@${domain}`;
    await h.admin.createUser({
      login: `v2.${randomUUID().slice(0, 8)}`,
      email: byEmail,
      name: 'V2',
      cust_id: other,
    });

    const refused = await jit(byLogin, 'Victim');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'email_held_elsewhere', param: 'email' });
    // The e-mail held by the other account's user: the domain's account gets its own user.
    const created = await jit(byEmail, 'Victim Two');
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ login: byEmail, cust_id: custId });

    // A user of a sub-account of the domain's account, under another login, is found by e-mail.
    const child = `CREDKID-${h.suffix}`;
    await h.admin.createCustomer({ cust_id: child, name: 'Cred Kid', parent_cust_id: custId });
    const kidEmail = `kid.${randomUUID().slice(0, 8)}@${domain}`;
    const kidLogin = `kid.${randomUUID().slice(0, 8)}`;
    await h.admin.createUser({ login: kidLogin, email: kidEmail, name: 'Kid', cust_id: child });
    const found = await jit(kidEmail);
    expect(found.status).toBe(200);
    expect(found.body.user).toMatchObject({ login: kidLogin, cust_id: child });
  });

  it('a user whose e-mail domain no account maps is not signed in by it (404)', async () => {
    const email = `loner.${randomUUID().slice(0, 8)}@unmapped-${h.suffix.toLowerCase()}.example`;
    await h.admin.createUser({ login: email, email, name: 'Loner', cust_id: custId });
    const res = await jit(email);
    expect(res.status).toBe(404);
  });

  it('an e-mail domain maps to one account only', async () => {
    await expect(
      h.admin.createCustomer({
        cust_id: `DUPDOM-${h.suffix}`,
        name: 'Dup',
        email_domains: [`cred-${h.suffix.toLowerCase()}.example`],
      }),
    ).rejects.toMatchObject({ status: 409, body: { error: { code: 'email_domain_taken' } } });
  });
});
