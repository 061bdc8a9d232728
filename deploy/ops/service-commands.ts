// Each service contributes its operator subcommands (src/entry-points/cli); they are mounted here.
import type { Command } from 'commander';

type Register = (program: Command) => void;

const registrations: Register[] = [];

export function addServiceCommands(program: Command): void {
  for (const register of registrations) register(program);
}
