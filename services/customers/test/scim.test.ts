// The SCIM 2.0 provisioning feed, checked against the examples of RFC 7643 and RFC 7644.
import { TOPICS } from '@ordering/contracts';
import { startTestMetrics, type TestMetrics } from '@ordering/telemetry';
import { type Harness, startHarness } from './support/customers-harness';
import { readEvents } from '@ordering/testing';

let h: Harness;
let custId: string;
let token: string;
const SCIM = 'application/scim+json';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

let metrics: TestMetrics;

beforeAll(async () => {
  metrics = startTestMetrics();
  h = await startHarness();
  custId = `SCIMCO-${h.suffix}`;
  await h.admin.createCustomer({ cust_id: custId, name: 'SCIM Co' });
  token = h.identity(custId, ['users:write'], { clientId: 'okta-connector' });
});
afterAll(async () => {
  await h?.stop();
  await metrics?.shutdown();
});

const scim = () => ({
  post: (path: string, body: unknown) =>
    h
      .http()
      .post(`/scim/v2${path}`)
      .set('X-Ordering-Identity', token)
      .set('Content-Type', SCIM)
      .send(JSON.stringify(body)),
  get: (path: string) => h.http().get(`/scim/v2${path}`).set('X-Ordering-Identity', token),
  put: (path: string, body: unknown) =>
    h
      .http()
      .put(`/scim/v2${path}`)
      .set('X-Ordering-Identity', token)
      .set('Content-Type', SCIM)
      .send(JSON.stringify(body)),
  patch: (path: string, body: unknown) =>
    h
      .http()
      .patch(`/scim/v2${path}`)
      .set('X-Ordering-Identity', token)
      .set('Content-Type', SCIM)
      .send(JSON.stringify(body)),
  delete: (path: string) => h.http().delete(`/scim/v2${path}`).set('X-Ordering-Identity', token),
});

// RFC 7644 section 3.3, the creation request.
const rfcCreate = (userName: string) => ({
  schemas: [USER],
  userName,
  externalId: userName,
  name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
});

/**
 * Runs `fn` while PostgreSQL refuses the writes to `login` that match `when` (an injected failure
 * of that write; by default its deactivation).
 */
async function failingUserWrite(
  login: string,
  fn: () => Promise<void>,
  when = `new.status = 'deactivated'`,
): Promise<void> {
  await h.knex.raw(`
    create function fail_user_write() returns trigger language plpgsql as $$
    begin
      if new.login = '${login}' and ${when} then raise exception 'injected failure'; end if;
      return new;
    end $$`);
  await h.knex.raw(
    'create trigger fail_user_write before update on users for each row execute function fail_user_write()',
  );
  try {
    await fn();
  } finally {
    await h.knex.raw('drop trigger fail_user_write on users');
    await h.knex.raw('drop function fail_user_write()');
  }
}

describe('create (RFC 7644 3.3)', () => {
  it('answers 201 with the resource, Location, ETag and meta as in the RFC example; user.created fires', async () => {
    const reader = await readEvents(
      TOPICS.users,
      (e) => e.cust_id === custId && (e.data as { login?: string }).login === 'bjensen',
    );
    try {
      const res = await scim().post('/Users', rfcCreate('bjensen'));
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(res.body).toMatchObject({
        schemas: [USER],
        id: 'bjensen',
        externalId: 'bjensen',
        userName: 'bjensen',
        name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
        active: true,
        meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String) },
      });
      expect(res.headers.location).toBe(res.body.meta.location);
      expect(res.body.meta.location).toMatch(/\/scim\/v2\/Users\/bjensen$/);
      expect(res.headers.etag).toBe(res.body.meta.version);
      expect(res.body.meta.version).toMatch(/^W\/".+"$/);

      const events = await reader.waitFor((es) => es.length >= 1);
      expect(events[0]).toMatchObject({
        type: 'user.created',
        cust_id: custId,
        data: { login: 'bjensen', name: 'Ms. Barbara J Jensen III' },
      });
    } finally {
      await reader.stop();
    }
  });

  it('keeps the full RFC 7643 8.2 representation: e-mail, enterprise extension', async () => {
    const res = await scim().post('/Users', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '701984',
      userName: 'bjensen@example.com',
      name: {
        formatted: 'Ms. Barbara J Jensen, III',
        familyName: 'Jensen',
        givenName: 'Barbara',
        middleName: 'Jane',
      },
      displayName: 'Babs Jensen',
      nickName: 'Babs',
      emails: [
        { value: 'bjensen@example.com', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'home' },
      ],
      active: true,
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
        employeeNumber: '701984',
        costCenter: '4130',
        organization: 'Universal Studios',
        department: 'Tour Operations',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': {
        employeeNumber: '701984',
        costCenter: '4130',
        department: 'Tour Operations',
      },
    });
    const rest = await h
      .http()
      .get('/v1/users/bjensen@example.com')
      .set('X-Ordering-Identity', h.identity(custId, ['users:read']));
    expect(rest.body).toMatchObject({
      email: 'bjensen@example.com',
      name: 'Ms. Barbara J Jensen, III',
      employee_id: '701984',
      department: 'Tour Operations',
      cost_center: '4130',
    });
  });

  it('a user created with active false is never left active, even when its deactivation fails', async () => {
    const created = await scim().post('/Users', { ...rfcCreate('bornoff'), active: false });
    expect(created.status).toBe(201);
    expect(created.body.active).toBe(false);
    expect(await h.knex('users').where({ login: 'bornoff' }).first()).toMatchObject({
      status: 'deactivated',
    });

    // A failure of the deactivating write (injected in PostgreSQL) fails the whole creation.
    try {
      await failingUserWrite('failoff', async () => {
        const failed = await scim().post('/Users', { ...rfcCreate('failoff'), active: false });
        expect(failed.status).toBe(500);
        expect(await h.knex('users').where({ login: 'failoff' }).first()).toBeUndefined();
      });
    } finally {
      await h.knex('users').where({ login: 'bornoff' }).del(); // the paging test counts the account's users
    }
  });

  it('a taken userName is 409 with scimType uniqueness and the SCIM error body', async () => {
    const res = await scim().post('/Users', rfcCreate('BJensen'));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      schemas: [ERROR],
      status: '409',
      scimType: 'uniqueness',
      detail: expect.any(String),
    });
  });

  it('a body that is not JSON is 400 invalidSyntax, in the SCIM error format, whatever the content type', async () => {
    for (const type of [SCIM, 'application/json']) {
      const res = await h
        .http()
        .post('/scim/v2/Users')
        .set('X-Ordering-Identity', token)
        .set('Content-Type', type)
        .send('{"userName": ');
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidSyntax' });
    }
  });

  it('JSON that is not an object is 400 invalidSyntax (as `[]`); another media type is 415, in the SCIM error format', async () => {
    const send = (type: string, body: string) =>
      h.http().post('/scim/v2/Users').set('X-Ordering-Identity', token).set('Content-Type', type).send(body);
    for (const body of ['null', '1', '"x"', '[]']) {
      const res = await send(SCIM, body);
      expect({ body, status: res.status, error: res.body }).toEqual({
        body,
        status: 400,
        error: {
          schemas: [ERROR],
          status: '400',
          scimType: 'invalidSyntax',
          detail: 'The body must be a SCIM User object',
        },
      });
    }
    const res = await send('text/plain', JSON.stringify({ schemas: [USER], userName: 'plain' }));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: '415' });
  });

  it('a missing userName is 400 invalidValue', async () => {
    const res = await scim().post('/Users', { schemas: [USER], name: { formatted: 'No Name' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidValue' });
  });
});

describe('list with filter and paging (RFC 7644 3.4.2)', () => {
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) expect((await scim().post('/Users', rfcCreate(`page${i}`))).status).toBe(201);
  });

  it('filter=userName eq "bjensen" answers the ListResponse of that user only', async () => {
    const res = await scim().get(`/Users?filter=${encodeURIComponent('userName eq "bjensen"')}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      startIndex: 1,
      itemsPerPage: 1,
      Resources: [{ id: 'bjensen', userName: 'bjensen' }],
    });
  });

  it('a filter that matches nobody answers totalResults 0', async () => {
    const res = await scim().get(`/Users?filter=${encodeURIComponent('userName eq "nobody"')}`);
    expect(res.body).toMatchObject({ totalResults: 0, Resources: [] });
  });

  it('a filter may name the attribute with its schema URN (RFC 7644 3.10)', async () => {
    const res = await scim().get(`/Users?filter=${encodeURIComponent(`${USER}:userName eq "bjensen"`)}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'bjensen' }] });
  });

  it('pages with startIndex (1-based) and count, without overlap', async () => {
    const all = await scim().get('/Users?count=100');
    const total = all.body.totalResults as number;
    expect(total).toBe(7);
    const ids: string[] = [];
    for (let start = 1; start <= total; start += 3) {
      const page = await scim().get(`/Users?startIndex=${start}&count=3`);
      expect(page.body).toMatchObject({ totalResults: total, startIndex: start });
      ids.push(...page.body.Resources.map((r: { id: string }) => r.id));
    }
    expect(ids).toEqual(all.body.Resources.map((r: { id: string }) => r.id));
    expect(new Set(ids).size).toBe(total);
  });

  it('an unsupported filter is 400 invalidFilter', async () => {
    const res = await scim().get(`/Users?filter=${encodeURIComponent('title pr')}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ scimType: 'invalidFilter' });
  });
});

describe('replace and patch (RFC 7644 3.5)', () => {
  it('PATCH replace without a path, as in the RFC 3.5.2.3 example, sets the e-mail (nickName ignored)', async () => {
    const res = await scim().patch('/Users/bjensen', {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          value: {
            emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
            nickName: 'Babs',
          },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.emails).toEqual([{ value: 'bjensen@example.com', type: 'work', primary: true }]);
  });

  it('PATCH with paths changes the named attributes and keeps the others', async () => {
    const res = await scim().patch('/Users/bjensen', {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: 'name.givenName', value: 'Barb' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'barb@example.com' },
        {
          op: 'add',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
          value: 'Sales',
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      userName: 'bjensen',
      externalId: 'bjensen',
      name: { givenName: 'Barb', familyName: 'Jensen' },
      emails: [{ value: 'barb@example.com' }],
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Sales' },
    });
  });

  it('PATCH without path takes the enterprise extension under its URN; remove with its URN clears it', async () => {
    const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    await scim().post('/Users', { schemas: [USER], userName: 'extnopath' });
    const res = await scim().patch('/Users/extnopath', {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          value: { displayName: 'Ext Nopath', [ENTERPRISE]: { department: 'Sales', costCenter: 'CC-1' } },
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Ext Nopath',
      [ENTERPRISE]: { department: 'Sales', costCenter: 'CC-1' },
    });
    const removed = await scim().patch('/Users/extnopath', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: ENTERPRISE }],
    });
    expect(removed.status).toBe(200);
    expect(removed.body[ENTERPRISE]).toBeUndefined();
    expect(await h.knex('users').where({ login: 'extnopath' }).first()).toMatchObject({
      department: null,
      cost_center: null,
    });
    const nested = await scim().patch('/Users/extnopath', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', value: { [ENTERPRISE]: { [ENTERPRISE]: { department: 'x' } } } }],
    });
    expect(nested.status).toBe(400);
    expect(nested.body.scimType).toBe('invalidValue');
  });

  it('PATCH of givenName or familyName changes a name made of them, not one the client chose', async () => {
    await scim().post('/Users', {
      schemas: [USER],
      userName: 'jdoe',
      name: { givenName: 'Jane', familyName: 'Doe' },
    });
    const one = await scim().patch('/Users/jdoe', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'name.familyName', value: 'Smith' }],
    });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      name: { formatted: 'Jane Smith', givenName: 'Jane', familyName: 'Smith' },
      displayName: 'Jane Smith',
    });
    const both = await scim().patch('/Users/jdoe', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { name: { givenName: 'Janet', familyName: 'Jones' } } }],
    });
    expect(both.body.name.formatted).toBe('Janet Jones');
    expect((await h.knex('users').where({ login: 'jdoe' }).first()).name).toBe('Janet Jones');
    // A name the client set itself stays.
    await scim().patch('/Users/jdoe', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'JJ' }],
    });
    const kept = await scim().patch('/Users/jdoe', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'name.givenName', value: 'Jan' }],
    });
    expect(kept.body).toMatchObject({ name: { formatted: 'JJ', givenName: 'Jan' }, displayName: 'JJ' });
  });

  it('refuses a name, emails element or enterprise extension of the wrong type (400 invalidValue), changing nothing', async () => {
    await scim().post('/Users', {
      schemas: [USER],
      userName: 'wrongtypes',
      name: { formatted: 'Wrong Types' },
      emails: [{ value: 'wrongtypes@example.com' }],
    });
    for (const body of [
      { userName: 'wrongtypes', name: 'Wrong Types', emails: [{ value: 'wrongtypes@example.com' }] },
      { userName: 'wrongtypes', name: { formatted: 'Wrong Types' }, emails: ['wrongtypes@example.com'] },
      {
        userName: 'wrongtypes',
        name: { formatted: 'Wrong Types' },
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': 'Sales',
      },
    ]) {
      const res = await scim().put('/Users/wrongtypes', { schemas: [USER], ...body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' });
    }
    const patched = await scim().patch('/Users/wrongtypes', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'emails', value: ['other@example.com'] }],
    });
    expect(patched.status).toBe(400);
    expect(await h.knex('users').where({ login: 'wrongtypes' }).first()).toMatchObject({
      name: 'Wrong Types',
      email: 'wrongtypes@example.com',
    });
  });

  it('PATCH takes core attributes named with their schema URN (RFC 7644 3.10)', async () => {
    await scim().post('/Users', { schemas: [USER], userName: 'fullyqualified' });
    const res = await scim().patch('/Users/fullyqualified', {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', path: `${USER}:displayName`, value: 'Fully Qualified' },
        { op: 'add', path: `${USER}:emails[type eq "work"].value`, value: 'fq@example.com' },
        { op: 'replace', value: { [`${USER}:externalId`]: 'fq-1' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Fully Qualified',
      emails: [{ value: 'fq@example.com' }],
      externalId: 'fq-1',
    });
  });

  it('PUT replaces the user; userName cannot change (400 mutability)', async () => {
    const put = await scim().put('/Users/page0', {
      schemas: [USER],
      userName: 'page0',
      name: { givenName: 'Paige', familyName: 'Zero' },
      emails: [{ value: 'paige@example.com', primary: true }],
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: { formatted: 'Paige Zero' },
      emails: [{ value: 'paige@example.com' }],
      active: true,
    });
    expect(put.body.externalId).toBeUndefined();
    const rename = await scim().put('/Users/page0', { schemas: [USER], userName: 'other' });
    expect(rename.status).toBe(400);
    expect(rename.body.scimType).toBe('mutability');
  });

  it('a PATCH of fields and active together changes nothing when one of its writes fails', async () => {
    const created = await scim().post('/Users', rfcCreate('halfpatch'));
    expect(created.status).toBe(201);
    try {
      await failingUserWrite('halfpatch', async () => {
        const res = await scim().patch('/Users/halfpatch', {
          schemas: [PATCH_OP],
          Operations: [
            { op: 'replace', path: 'name.formatted', value: 'Renamed Before Leaving' },
            { op: 'replace', path: 'active', value: false },
          ],
        });
        expect(res.status).toBe(500);
      });
      expect(await h.knex('users').where({ login: 'halfpatch' }).first()).toMatchObject({
        name: 'Ms. Barbara J Jensen III',
        status: 'active',
      });
    } finally {
      await h.knex('users').where({ login: 'halfpatch' }).del(); // the paging test counts the account's users
    }
  });

  it('PATCH active false deactivates (user.deactivated fires); active true (as Entra sends it) reactivates', async () => {
    const reader = await readEvents(
      TOPICS.users,
      (e) => e.cust_id === custId && (e.data as { login?: string }).login === 'page1',
    );
    try {
      const off = await scim().patch('/Users/page1', {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      expect(off.status).toBe(200);
      expect(off.body.active).toBe(false);
      const rest = await h
        .http()
        .get('/v1/users/page1')
        .set('X-Ordering-Identity', h.identity(custId, ['users:read']));
      expect(rest.body).toMatchObject({ status: 'deactivated', deactivated_at: expect.any(String) });
      const events = await reader.waitFor((es) => es.some((e) => e.type === 'user.deactivated'));
      expect(events.map((e) => e.type)).toEqual(['user.deactivated']);
      expect(events[0]).toMatchObject({ cust_id: custId, data: { login: 'page1', status: 'deactivated' } });

      const on = await scim().patch('/Users/page1', {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      });
      expect(on.body.active).toBe(true);
    } finally {
      await reader.stop();
    }
  });

  it('an e-mail the REST API would refuse is 400 invalidValue, on POST, PUT and PATCH', async () => {
    const post = await scim().post('/Users', {
      schemas: [USER],
      userName: 'bademail',
      emails: [{ value: 'not an address', primary: true }],
    });
    expect(post.status).toBe(400);
    expect(post.body).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' });
    expect(await h.knex('users').where({ login: 'bademail' }).first()).toBeUndefined();
    expect((await scim().post('/Users', { schemas: [USER], userName: 'bademail' })).status).toBe(201);
    const put = await scim().put('/Users/bademail', {
      schemas: [USER],
      userName: 'bademail',
      emails: [{ value: 'bad' }],
    });
    expect(put.status).toBe(400);
    const patch = await scim().patch('/Users/bademail', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'emails', value: [{ value: 'still bad', type: 'work' }] }],
    });
    expect(patch.status).toBe(400);
    expect((await h.knex('users').where({ login: 'bademail' }).first()).email).toBe('');
  });

  it('a PatchOp with an unknown path is 400 invalidPath; one without schemas is 400 invalidSyntax', async () => {
    const unknown = await scim().patch('/Users/page2', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'shoeSize', value: 9 }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.scimType).toBe('invalidPath');
    const noSchema = await scim().patch('/Users/page2', {
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(noSchema.body.scimType).toBe('invalidSyntax');
  });
});

describe('versions (RFC 7644 3.14)', () => {
  const withIfMatch = <T extends { set(name: string, value: string): T }>(req: T, tag: string) =>
    req.set('If-Match', tag);

  it('ServiceProviderConfig says ETags are supported, since every User carries one', async () => {
    const spc = await scim().get('/ServiceProviderConfig');
    expect(spc.body.etag).toEqual({ supported: true });
  });

  it('PUT, PATCH and DELETE with a stale If-Match are 412 and change nothing; the current version (or *) passes', async () => {
    const created = await scim().post('/Users', rfcCreate('versioned'));
    expect(created.status).toBe(201);
    const v1 = created.headers.etag as string;
    const renamed = await scim().patch('/Users/versioned', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Second writer' }],
    });
    expect(renamed.status).toBe(200);
    const v2 = renamed.headers.etag as string;
    expect(v2).not.toBe(v1);

    const stalePatch = await withIfMatch(
      scim().patch('/Users/versioned', {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Lost update' }],
      }),
      v1,
    );
    expect(stalePatch.status).toBe(412);
    expect(stalePatch.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(stalePatch.body).toMatchObject({ schemas: [ERROR], status: '412' });
    const stalePut = await withIfMatch(
      scim().put('/Users/versioned', { schemas: [USER], userName: 'versioned', displayName: 'Lost' }),
      v1,
    );
    expect(stalePut.status).toBe(412);
    const staleDelete = await withIfMatch(scim().delete('/Users/versioned'), v1);
    expect(staleDelete.status).toBe(412);
    const unchanged = await scim().get('/Users/versioned');
    expect(unchanged.body).toMatchObject({ displayName: 'Second writer', active: true });
    expect(unchanged.headers.etag).toBe(v2);

    const current = await withIfMatch(
      scim().patch('/Users/versioned', {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Third writer' }],
      }),
      `"other", ${v2}`,
    );
    expect(current.status).toBe(200);
    expect(current.body.displayName).toBe('Third writer');
    const any = await withIfMatch(
      scim().put('/Users/versioned', { schemas: [USER], userName: 'versioned', displayName: 'Fourth' }),
      '*',
    );
    expect(any.status).toBe(200);
    const deleted = await withIfMatch(scim().delete('/Users/versioned'), any.headers.etag as string);
    expect(deleted.status).toBe(204);
  });

  it('an If-Match that is not an entity tag is 400 invalidValue', async () => {
    const res = await withIfMatch(
      scim().patch('/Users/bjensen', {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'displayName', value: 'x' }],
      }),
      'not-a-tag',
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ schemas: [ERROR], scimType: 'invalidValue' });
  });
});

describe('delete (RFC 7644 3.6)', () => {
  it('answers 204, deactivates without removing the record, and SCIM then answers 404 for it', async () => {
    const del = await scim().delete('/Users/page3');
    expect(del.status).toBe(204);
    expect((await scim().get('/Users/page3')).status).toBe(404);
    const list = await scim().get(`/Users?filter=${encodeURIComponent('userName eq "page3"')}`);
    expect(list.body.totalResults).toBe(0);
    const rest = await h
      .http()
      .get('/v1/users/page3')
      .set('X-Ordering-Identity', h.identity(custId, ['users:read']));
    expect(rest.status).toBe(200);
    expect(rest.body.status).toBe('deactivated');
    const row = await h.knex('users').where({ login: 'page3' }).first();
    expect(row).toBeDefined();
  });

  it('deactivates and hides the user in one transaction: a failure of either write leaves the user as it was', async () => {
    expect((await scim().post('/Users', rfcCreate('faildel'))).status).toBe(201);
    try {
      // The second write (hiding the user from SCIM) fails, injected in PostgreSQL.
      await failingUserWrite(
        'faildel',
        async () => expect((await scim().delete('/Users/faildel')).status).toBe(500),
        'new.scim_deleted_at is not null',
      );
      expect(await h.knex('users').where({ login: 'faildel' }).first()).toMatchObject({
        status: 'active',
        scim_deleted_at: null,
      });
      expect((await scim().get('/Users/faildel')).body.active).toBe(true);
      // The identity provider's retry then does both.
      expect((await scim().delete('/Users/faildel')).status).toBe(204);
      expect((await scim().get('/Users/faildel')).status).toBe(404);
      expect(await h.knex('users').where({ login: 'faildel' }).first()).toMatchObject({
        status: 'deactivated',
      });
    } finally {
      await h.knex('users').where({ login: 'faildel' }).del(); // the paging test counts the account's users
    }
  });
});

describe('discovery and access', () => {
  it('serves ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const spc = await scim().get('/ServiceProviderConfig');
    expect(spc.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await scim().get('/ResourceTypes');
    expect(types.body.Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schema: USER }),
    ]);
    const schemas = await scim().get('/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([
      USER,
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
    ]);
    const userSchema = await scim().get(`/Schemas/${USER}`);
    expect(userSchema.body.attributes.find((a: { name: string }) => a.name === 'userName')).toMatchObject({
      required: true,
      uniqueness: 'global',
    });
  });

  it('needs users:write (403, SCIM body) and a valid identity (401)', async () => {
    const readOnly = await h
      .http()
      .get('/scim/v2/Users')
      .set('X-Ordering-Identity', h.identity(custId, ['users:read']));
    expect(readOnly.status).toBe(403);
    expect(readOnly.body).toMatchObject({ schemas: [ERROR], status: '403' });
    const anonymous = await h.http().get('/scim/v2/Users');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.schemas).toEqual([ERROR]);
  });

  it('a token without admin:all cannot change an admin through SCIM (403) but can deactivate one, not reactivate it', async () => {
    const login = `scimadmin-${h.suffix}`.toLowerCase();
    await h.admin.createUser({
      login,
      email: `${login}@example.com`,
      name: 'Admin',
      cust_id: custId,
      roles: ['admin'],
    });
    const takeover = await scim().patch(`/Users/${login}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'other@example.com' }],
    });
    expect(takeover.status).toBe(403);
    expect(takeover.body).toMatchObject({ schemas: [ERROR], status: '403' });
    const off = await scim().patch(`/Users/${login}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    const row = await h.knex('users').where({ login }).first();
    expect(row).toMatchObject({ email: `${login}@example.com`, status: 'deactivated' });
    // Reactivating gives the admin's access (admin:all) back: not for this token either.
    const on = await scim().patch(`/Users/${login}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(on.status).toBe(403);
    expect(on.body).toMatchObject({ schemas: [ERROR], status: '403' });
    const put = await scim().put(`/Users/${login}`, {
      schemas: [USER],
      userName: login,
      displayName: 'Admin',
      emails: [{ value: `${login}@example.com` }],
    });
    expect(put.status).toBe(403);
    expect((await h.knex('users').where({ login }).first()).status).toBe('deactivated');
    const admin = h.identity(custId, ['users:write', 'admin:all']);
    const byAdmin = await h
      .http()
      .patch(`/scim/v2/Users/${login}`)
      .set('X-Ordering-Identity', admin)
      .set('Content-Type', SCIM)
      .send(
        JSON.stringify({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: true }] }),
      );
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.active).toBe(true);
  });

  it('a token without admin:all deprovisions an admin whose stored name SCIM shows trimmed (no field rewritten)', async () => {
    const login = `scimtrim-${h.suffix}`.toLowerCase();
    await h.admin.createUser({
      login,
      email: `${login}@example.com`,
      name: ' Spaced Admin ',
      cust_id: custId,
      roles: ['admin'],
    });
    const before = await h.knex('users').where({ login }).first();
    const off = await scim().patch(`/Users/${login}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    const row = await h.knex('users').where({ login }).first();
    expect(row).toMatchObject({ status: 'deactivated', name: ' Spaced Admin ', email: before.email });
  });

  it('answers what it does not implement with 501 (bulk, /Me, POST .search) and an unknown resource with 404', async () => {
    for (const res of [
      await scim().post('/Bulk', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'],
        Operations: [],
      }),
      await scim().get('/Me'),
      await scim().post('/Users/.search', {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
      }),
      await scim().post('/.search', { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] }),
    ]) {
      expect(res.status).toBe(501);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '501' });
      expect(res.body.detail).toMatch(/not supported/);
    }
    const groups = await scim().get('/Groups');
    expect(groups.status).toBe(404);
    expect(groups.body).toMatchObject({ schemas: [ERROR], status: '404' });
  });

  it('refuses what /v1/users refuses: a name over 200 characters, a department over 200 (400 invalidValue)', async () => {
    const long = await scim().post('/Users', {
      schemas: [USER],
      userName: 'longname',
      displayName: 'x'.repeat(201),
    });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidValue' });
    expect(long.body.detail).toMatch(/^name\.formatted: /);
    expect(await h.knex('users').where({ login: 'longname' }).first()).toBeUndefined();

    const created = await scim().post('/Users', { schemas: [USER], userName: 'longdept' });
    expect(created.status).toBe(201);
    const patched = await scim().patch('/Users/longdept', {
      schemas: [PATCH_OP],
      Operations: [
        {
          op: 'replace',
          path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department',
          value: 'd'.repeat(201),
        },
      ],
    });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    expect(patched.body.detail).toMatch(/enterprise:2\.0:User:department: /);
    expect((await h.knex('users').where({ login: 'longdept' }).first()).department).toBeNull();
    const put = await scim().put('/Users/longdept', {
      schemas: [USER, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      userName: 'longdept',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { employeeNumber: '7'.repeat(101) },
    });
    expect(put.status).toBe(400);
    expect((await h.knex('users').where({ login: 'longdept' }).first()).employee_id).toBeNull();
    // A record stored before these checks can still be deprovisioned: unchanged values pass.
    await h
      .knex('users')
      .where({ login: 'longdept' })
      .update({ department: 'd'.repeat(201) });
    const off = await scim().patch('/Users/longdept', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
  });

  it('another account token sees none of these users', async () => {
    const other = `OTHER-${h.suffix}`;
    await h.admin.createCustomer({ cust_id: other, name: 'Other' });
    const res = await h
      .http()
      .get(`/scim/v2/Users/bjensen`)
      .set('X-Ordering-Identity', h.identity(other, ['users:write']));
    expect(res.status).toBe(404);
  });
});

it("labels a SCIM error by its route's template, once (not prefixed twice by the SCIM error handler)", async () => {
  const res = await scim().get('/Users/usr_no_such_user');
  expect(res.status).toBe(404);
  const text = await metrics.text();
  expect(text).toMatch(
    /^http_server_request_duration_count\{http_request_method="GET",http_route="\/scim\/v2\/Users\/\{id\}",http_response_status_code="404"[^}]*\} \d+$/m,
  );
  expect(text).not.toContain('/scim/v2/scim/v2');
});
