// Onboarding accounts from a JSON or CSV file: all or nothing, every problem named by its line.
import { type Harness, startHarness } from './support/customers-harness';
import { AdminApiError } from '../src/entry-points/cli/customers-admin-client';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

async function importError(
  format: 'json' | 'csv',
  content: string,
): Promise<{ message: string; code: string }> {
  try {
    await h.admin.importCustomers(format, content);
  } catch (err) {
    expect(err).toBeInstanceOf(AdminApiError);
    expect((err as AdminApiError).status).toBe(422);
    return (err as AdminApiError & { body: { error: { message: string; code: string } } }).body.error;
  }
  throw new Error('the import was accepted');
}

const count = async (prefix: string) =>
  Number((await h.knex('customers').where('cust_id', 'like', `${prefix}%`).count({ n: '*' }))[0]!.n);

describe('CSV import', () => {
  it('creates the accounts, their hierarchy and addresses of a valid file', async () => {
    const p = `CSV${h.suffix}`;
    const csv = [
      'cust_id,name,parent_cust_id,currency,approval_required_over,billing_terms,address_type,address_label,address_street_1,address_city,address_region,address_postal_code,address_country',
      `${p},"Umbrella, Inc.",,USD,100000,net_45,shipping,HQ,1 Main St,Raccoon City,MO,63101,US`,
      `${p}-EAST,Umbrella East,${p},USD,,,billing,"Billing ""East""",2 Side St,Boston,MA,02108,US`,
    ].join('\r\n');
    const result = await h.admin.importCustomers('csv', csv);
    expect(result).toEqual({ imported: 2, cust_ids: [p, `${p}-EAST`] });
    const root = (await h.admin.getCustomer(p)) as unknown as Record<string, unknown>;
    expect(root).toMatchObject({
      name: 'Umbrella, Inc.',
      approval_required_over: { amount: 100000, currency: 'USD' },
      billing_terms: 'net_45',
      addresses: [{ type: 'shipping', label: 'HQ', default: true, postal_code: '63101' }],
    });
    const east = (await h.admin.getCustomer(`${p}-EAST`)) as unknown as Record<string, unknown>;
    expect(east).toMatchObject({
      parent_cust_id: p,
      addresses: [{ type: 'billing', label: 'Billing "East"' }],
    });
  });

  it('refuses the whole file and names every bad line', async () => {
    const p = `BAD${h.suffix}`;
    const csv = [
      'cust_id,name,parent_cust_id,currency',
      `${p}-1,Fine,,USD`,
      `${p}-2,,,USD`,
      `${p}-3,Bad currency,,usd`,
      `${p}-4,Orphan,NOPE-${h.suffix},USD`,
      `${p}-1,Duplicate,,USD`,
    ].join('\n');
    const error = await importError('csv', csv);
    expect(error.code).toBe('invalid_import');
    expect(error.message).toContain('line 3: name');
    expect(error.message).toContain('line 4: currency');
    expect(error.message).toContain('line 5: parent_cust_id');
    expect(error.message).toContain('line 6: cust_id');
    expect(error.message).not.toMatch(/^line 2:/m);
    expect(await count(p)).toBe(0);
  });

  it('refuses unknown columns', async () => {
    const error = await importError('csv', 'cust_id,name,colour\nX,Y,red\n');
    expect(error.message).toContain('line 1: unknown column(s): colour');
  });
});

describe('JSON import', () => {
  it('takes an array of accounts with nested addresses and reports lines of bad records', async () => {
    const p = `JS${h.suffix}`;
    const good = JSON.stringify(
      [
        { cust_id: p, name: 'Json Co', email_domains: ['json.example'], jit_provisioning: true },
        {
          cust_id: `${p}-K`,
          name: 'Json Kid',
          parent_cust_id: p,
          addresses: [
            {
              type: 'shipping',
              label: 'Dock',
              street_1: '1 Pier',
              city: 'Oslo',
              region: '',
              postal_code: '0150',
              country: 'NO',
            },
          ],
        },
      ],
      null,
      2,
    );
    expect(await h.admin.importCustomers('json', good)).toEqual({ imported: 2, cust_ids: [p, `${p}-K`] });

    const q = `JB${h.suffix}`;
    const bad = `[\n  { "cust_id": "${q}-1", "name": "ok" },\n  {\n    "cust_id": "${q}-2",\n    "name": "bad addr",\n    "addresses": [{ "type": "shipping" }]\n  },\n  { "cust_id": "${q}-3", "name": "x", "approval_required_over": -5 }\n]`;
    const error = await importError('json', bad);
    expect(error.message).toContain('line 3: addresses[0].label');
    expect(error.message).toContain('line 8: approval_required_over');
    expect(await count(q)).toBe(0);
  });

  it('takes JSON Lines (one account per line) and names the line of a malformed one', async () => {
    const p = `JL${h.suffix}`;
    const error = await importError('json', `{"cust_id":"${p}-1","name":"a"}\n{"cust_id":\n`);
    expect(error.message).toContain('line 2: not valid JSON');
    expect(
      await h.admin.importCustomers(
        'json',
        `{"cust_id":"${p}-1","name":"a"}\n\n{"cust_id":"${p}-2","name":"b","parent_cust_id":"${p}-1"}\n`,
      ),
    ).toEqual({
      imported: 2,
      cust_ids: [`${p}-1`, `${p}-2`],
    });
  });

  it('an account that exists already fails the import with its line', async () => {
    const p = `EX${h.suffix}`;
    await h.admin.createCustomer({ cust_id: p, name: 'Exists' });
    const error = await importError(
      'json',
      JSON.stringify([
        { cust_id: `${p}-NEW`, name: 'n' },
        { cust_id: p, name: 'again' },
      ]),
    );
    expect(error.message).toContain(`line 1: cust_id: an account ${p} already exists`);
    expect(await count(`${p}-NEW`)).toBe(0);
  });
});
