// Each service contributes its operator subcommands (src/entry-points/cli); they are mounted here.
import type { Command } from 'commander';
import { authCli } from '@ordering/auth-service';
import { catalogCommand } from '@ordering/catalog-service';
import { customersCommand, usersCommand } from '@ordering/customers-service';
import { defaultSettings, serviceUrl } from '../local/stack-definition';

type Register = (program: Command) => void;

const registrations: Register[] = [
  (program) => {
    const defaults = { url: serviceUrl('customers'), secret: defaultSettings().internalIdentitySecret };
    program.addCommand(customersCommand(defaults));
    program.addCommand(usersCommand(defaults));
  },
  (program) =>
    program.addCommand(
      catalogCommand({ url: serviceUrl('catalog'), secret: defaultSettings().internalIdentitySecret }),
    ),
  // `ops auth clients ...`, `ops auth keys ...`: on the auth database (DATABASE_URL etc.); without
  // DATABASE_URL, the local stack's (DATABASE_NAME_PREFIX honoured, as `./dev up` does).
  (program) => {
    const { pgBaseUrl, databasePrefix } = defaultSettings();
    const env = { DATABASE_URL: `${pgBaseUrl}/${databasePrefix}auth`, ...process.env };
    program.addCommand(authCli({ env }));
  },
];

export function addServiceCommands(program: Command): void {
  for (const register of registrations) register(program);
}
