// Operator commands for accounts, addresses and shoppers, mounted by the root `ops` CLI:
//   ops customers list|show|create|update|import|add-address
//   ops users create|set-password|password-link|deactivate
// They call the service's internal admin endpoints (CUSTOMERS_URL, INTERNAL_IDENTITY_SECRET).
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { decodeImportFile } from '@ordering/import-files';
import { CustomersAdminClient } from './customers-admin-client';

const DEFAULT_URL = 'http://127.0.0.1:8103';

/** Where the commands connect unless --url/--secret or CUSTOMERS_URL/INTERNAL_IDENTITY_SECRET say otherwise. */
export interface CommandDefaults {
  url?: string;
  secret?: string;
}

let defaults: CommandDefaults = {};

function clientFrom(opts: { url?: string; secret?: string }): CustomersAdminClient {
  const secret = opts.secret ?? process.env.INTERNAL_IDENTITY_SECRET ?? defaults.secret;
  if (!secret) throw new Error('INTERNAL_IDENTITY_SECRET is not set (or pass --secret)');
  return new CustomersAdminClient({
    baseUrl: opts.url ?? process.env.CUSTOMERS_URL ?? defaults.url ?? DEFAULT_URL,
    internalIdentitySecret: secret,
  });
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function withConnection(cmd: Command): Command {
  return cmd
    .addOption(new Option('--url <url>', 'customers service URL (default $CUSTOMERS_URL or 127.0.0.1:8103)'))
    .addOption(
      new Option('--secret <secret>', 'internal identity secret (default $INTERNAL_IDENTITY_SECRET)'),
    );
}

interface AccountOptions {
  name?: string;
  parent?: string;
  currency?: string;
  approvalOver?: string;
  terms?: string;
  jit?: boolean;
  domains?: string;
}

function accountFields(o: AccountOptions): Record<string, unknown> {
  return {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.parent !== undefined ? { parent_cust_id: o.parent === 'none' ? null : o.parent } : {}),
    ...(o.currency !== undefined ? { currency: o.currency } : {}),
    ...(o.approvalOver !== undefined
      ? { approval_required_over: o.approvalOver === 'none' ? null : Number(o.approvalOver) }
      : {}),
    ...(o.terms !== undefined ? { billing_terms: o.terms } : {}),
    ...(o.jit !== undefined ? { jit_provisioning: o.jit } : {}),
    ...(o.domains !== undefined ? { email_domains: list(o.domains) } : {}),
  };
}

function accountOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'account name')
    .option('--parent <cust_id>', 'parent account ("none" for top level)')
    .option('--currency <code>', 'ISO 4217 currency (default USD)')
    .option('--approval-over <minor units>', 'order total above which approval is required ("none": never)')
    .option('--terms <terms>', 'billing terms, e.g. net_30')
    .option('--jit', 'create shoppers at first sign-in from the mapped e-mail domains')
    .option('--no-jit', 'do not provision just in time')
    .option('--domains <list>', 'comma-separated e-mail domains mapped to the account');
}

export function customersCommand(commandDefaults: CommandDefaults = {}): Command {
  defaults = { ...defaults, ...commandDefaults };
  const customers = new Command('customers').description('customer accounts and their addresses');

  withConnection(customers.command('list').description('list accounts'))
    .option('--parent <cust_id>', 'only children of this account')
    .action(async (o: { parent?: string; url?: string; secret?: string }) => {
      const client = clientFrom(o);
      let cursor: string | undefined;
      do {
        const page = await client.listCustomers({
          ...(o.parent ? { parent_cust_id: o.parent } : {}),
          ...(cursor ? { starting_after: cursor } : {}),
          limit: 100,
        });
        for (const c of page.data) print(c);
        cursor = page.has_more ? (page.next_cursor ?? undefined) : undefined;
      } while (cursor);
    });

  withConnection(customers.command('show <cust_id>').description('one account with its addresses')).action(
    async (custId: string, o: { url?: string; secret?: string }) =>
      print(await clientFrom(o).getCustomer(custId)),
  );

  withConnection(
    accountOptions(customers.command('create <cust_id>').description('create an account')),
  ).action(async (custId: string, o: AccountOptions & { url?: string; secret?: string }) => {
    print(await clientFrom(o).createCustomer({ cust_id: custId, ...accountFields(o) }));
  });

  withConnection(
    accountOptions(customers.command('update <cust_id>').description('change an account')),
  ).action(async (custId: string, o: AccountOptions & { url?: string; secret?: string }) => {
    print(await clientFrom(o).updateCustomer(custId, accountFields(o)));
  });

  withConnection(
    customers
      .command('import <file>')
      .description('import accounts from a JSON (array or one per line) or CSV file: all or nothing'),
  )
    .addOption(
      new Option('--format <format>', 'json or csv (default: from the file extension)').choices([
        'json',
        'csv',
      ]),
    )
    .action(async (file: string, o: { format?: 'json' | 'csv'; url?: string; secret?: string }) => {
      const format = o.format ?? (path.extname(file).toLowerCase() === '.csv' ? 'csv' : 'json');
      print(await clientFrom(o).importCustomers(format, decodeImportFile(fs.readFileSync(file))));
    });

  withConnection(customers.command('add-address <cust_id>').description('add an address to an account'))
    .addOption(
      new Option('--type <type>', 'address type').choices(['shipping', 'billing']).makeOptionMandatory(),
    )
    .requiredOption('--label <label>', 'label, e.g. "Head office"')
    .option('--attention <name>', 'attention line')
    .requiredOption('--street <street>', 'street line 1')
    .requiredOption('--city <city>', 'city')
    .option('--region <region>', 'region or state', '')
    .option('--postal-code <code>', 'postal code', '')
    .requiredOption('--country <code>', 'ISO 3166-1 alpha-2 country')
    .option('--default', 'make it the default of its type')
    .action(async (custId: string, o: Record<string, string | boolean | undefined>) => {
      print(
        await clientFrom(o as { url?: string; secret?: string }).addAddress(custId, {
          type: o.type,
          label: o.label,
          ...(o.attention ? { attention: o.attention } : {}),
          street_1: o.street,
          city: o.city,
          region: o.region,
          postal_code: o.postalCode,
          country: o.country,
          ...(o.default ? { default: true } : {}),
        }),
      );
    });

  return customers;
}

export function usersCommand(commandDefaults: CommandDefaults = {}): Command {
  defaults = { ...defaults, ...commandDefaults };
  const users = new Command('users').description('shoppers and their credentials');

  withConnection(users.command('create <login>').description('create a shopper in an account'))
    .requiredOption('--cust <cust_id>', 'account')
    .requiredOption('--email <email>', 'e-mail')
    .requiredOption('--name <name>', 'display name')
    .option('--roles <list>', 'comma-separated roles: shopper, approver, admin', 'shopper')
    .option('--password <password>', 'initial password (else send a one-time link)')
    .action(async (login: string, o: Record<string, string | undefined>) => {
      print(
        await clientFrom(o).createUser({
          login,
          cust_id: o.cust,
          email: o.email,
          name: o.name,
          roles: list(o.roles ?? 'shopper'),
          ...(o.password ? { password: o.password } : {}),
        }),
      );
    });

  withConnection(
    users.command('set-password <login>').description('set a password (read from stdin unless --password)'),
  )
    .option('--password <password>', 'the new password')
    .action(async (login: string, o: { password?: string; url?: string; secret?: string }) => {
      const password = o.password ?? fs.readFileSync(0, 'utf8').replace(/\r?\n$/, '');
      await clientFrom(o).setPassword(login, password);
      console.log(`password of ${login} set`);
    });

  withConnection(users.command('password-link <login>').description('a one-time token to set a password'))
    // No default: the platform serves no set-password page; the token is redeemed at
    // POST /internal/v1/credentials/password by a page of the deployment's own.
    .option('--base <url>', 'URL of your set-password page; the link is <url>?token=<token>')
    .action(async (login: string, o: { base?: string; url?: string; secret?: string }) => {
      const link = await clientFrom(o).passwordLink(login);
      print(o.base ? { ...link, link: `${o.base}?token=${encodeURIComponent(link.token)}` } : link);
    });

  withConnection(
    users.command('deactivate <login>').description('deactivate a shopper (user.deactivated fires)'),
  ).action(async (login: string, o: { url?: string; secret?: string }) =>
    print(await clientFrom(o).deactivateUser(login)),
  );

  return users;
}
