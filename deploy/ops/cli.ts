// `ops`: the operator CLI (`pnpm ops <command>`). Platform-wide commands live here; each service adds
// its own subcommands from src/entry-points/cli (registered in service-commands.ts).
import { Command, InvalidArgumentError } from 'commander';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import {
  FulfilmentUpdate,
  TOPICS,
  eventRoute,
  newEvent,
  parseEvent,
  type EventType,
} from '@ordering/contracts';
import { defaultSettings, stackProcesses } from '../local/stack-definition';
import { readStackFile, writeStackFile } from '../local/stack-file';
import { seedDemoData } from './seed-demo-data';
import { stackStatus } from './stack-status';
import { publishMessage } from './publish';
import { addServiceCommands } from './service-commands';

const program = new Command('ops')
  .description('Operator commands for the ordering platform')
  .showHelpAfterError();

program
  .command('status')
  .description('Show whether every process of the local stack is ready (reads .local/stack.json)')
  .action(async () => {
    const rows = await stackStatus(readStackFile());
    for (const row of rows)
      console.log(`${row.ok ? 'ready    ' : 'NOT READY'}  ${row.name.padEnd(10)} ${row.url}  ${row.detail}`);
    if (rows.some((r) => !r.ok)) process.exitCode = 1;
  });

program
  .command('seed')
  .description(
    'Seed the demo data set into the running local stack (idempotent) and update .local/stack.json',
  )
  .action(async () => {
    const stack = readStackFile();
    const settings = defaultSettings();
    const demo = await seedDemoData({ procs: stackProcesses(settings), settings });
    writeStackFile({ ...stack, demo });
    console.log(JSON.stringify(demo, null, 2));
  });

function isoDate(value: string): string {
  if (Number.isNaN(Date.parse(value)))
    throw new InvalidArgumentError('expected an ISO 8601 date or date-time');
  return value;
}

program
  .command('fulfilment')
  .description('Publish a fulfilment update for an order, as the ERP/warehouse would')
  .argument('<order_id>', 'order id')
  .argument('<status>', 'in_production | shipped | delivered')
  .option('--carrier <carrier>', 'carrier (required with shipped)')
  .option('--tracking <number>', 'tracking number (required with shipped)')
  .option('--shipped-at <time>', 'ISO 8601 time (shipped; default now)', isoDate)
  .option('--estimated-delivery <date>', 'YYYY-MM-DD (required with shipped)', isoDate)
  .option('--brokers <list>', 'Kafka brokers (default: from .local/stack.json)')
  .action(async (orderId: string, status: string, opts: Record<string, string | undefined>) => {
    const message = FulfilmentUpdate.parse({
      id: `ful_${randomUUID()}`,
      order_id: orderId,
      status,
      occurred_at: new Date().toISOString(),
      ...(status === 'shipped'
        ? {
            shipment: {
              carrier: opts.carrier,
              tracking_number: opts.tracking,
              shipped_at: opts.shippedAt ?? new Date().toISOString(),
              estimated_delivery: opts.estimatedDelivery,
            },
          }
        : {}),
    });
    const brokers = opts.brokers?.split(',') ?? readStackFile().kafka_brokers;
    await publishMessage(brokers, TOPICS.fulfilment, orderId, message);
    console.log(`published ${status} for ${orderId} (update ${message.id})`);
  });

program
  .command('event')
  .description('Publish a domain event (validated against the contract) to its topic, e.g. to test consumers')
  .argument('<type>', 'event type, e.g. user.created')
  .requiredOption('--cust-id <cust_id>', 'customer account of the event')
  .requiredOption(
    '--data-file <file>',
    'JSON file with the event data (the resource as the REST API shows it)',
  )
  .option('--brokers <list>', 'Kafka brokers (default: from .local/stack.json)')
  .action(async (type: string, opts: { custId: string; dataFile: string; brokers?: string }) => {
    const data: unknown = JSON.parse(fs.readFileSync(opts.dataFile, 'utf8'));
    const event = parseEvent(
      newEvent({ type: type as EventType, cust_id: opts.custId, data: data as never }),
    );
    const { topic, key } = eventRoute(event);
    const brokers = opts.brokers?.split(',') ?? readStackFile().kafka_brokers;
    await publishMessage(brokers, topic, key, event);
    console.log(`published ${event.type} ${event.id} to ${topic} (key ${key})`);
  });

addServiceCommands(program);

/** What went wrong, for a person: a contract's refusal as one line per problem, not its JSON. */
function problemOf(err: unknown): string {
  const issues = (err as { issues?: unknown }).issues;
  if (err instanceof Error && err.name === 'ZodError' && Array.isArray(issues)) {
    const lines = (issues as { path: PropertyKey[]; message: string }[]).map(
      (issue) => `  - ${issue.path.map(String).join('.') || '(the value)'}: ${issue.message}`,
    );
    return ['invalid input:', ...lines].join('\n');
  }
  return err instanceof Error ? err.message : String(err);
}

program.parseAsync(process.argv).catch((err: unknown) => {
  console.error(problemOf(err));
  process.exit(1);
});
