// Each service contributes its operator subcommands (src/entry-points/cli); they are mounted here.
import type { Command } from 'commander';
import {
  customersCommand,
  usersCommand,
} from '../../services/customers/src/entry-points/cli/customers-command';
import { authCli } from '../../services/auth/src/entry-points/cli/auth-cli';
import { defaultSettings, serviceUrl } from '../local/stack-definition';

type Register = (program: Command) => void;

const registrations: Register[] = [
  (program) => {
    const defaults = { url: serviceUrl('customers'), secret: defaultSettings().internalIdentitySecret };
    program.addCommand(customersCommand(defaults));
    program.addCommand(usersCommand(defaults));
  },
  // `ops auth clients ...`, `ops auth keys ...`: on the auth database (DATABASE_URL etc.).
  (program) => program.addCommand(authCli()),
];

export function addServiceCommands(program: Command): void {
  for (const register of registrations) register(program);
}
