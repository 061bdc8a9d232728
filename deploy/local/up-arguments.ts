// The arguments of the start command (`./dev up [--fresh]`). Without any, the platform starts on the
// data of the previous run: the services' databases (`<prefix><service>`) and the Kafka broker's
// storage in .local/kafka are kept, as a developer expects of a local stack. `--fresh` drops those
// databases and empties the broker's storage first, so that the platform starts from the demo data
// alone (Redis keys, under REDIS_KEY_PREFIX on a shared Redis, are left: they expire on their own).
export interface UpArguments {
  fresh: boolean;
}

export const UP_USAGE =
  'usage: ./dev up [--fresh]   (--fresh: drop the local databases and Kafka storage first)';

export class UpUsageError extends Error {
  override name = 'UpUsageError';
}

export function parseUpArguments(args: readonly string[]): UpArguments {
  const parsed: UpArguments = { fresh: false };
  for (const arg of args) {
    if (arg === '--fresh') parsed.fresh = true;
    else throw new UpUsageError(`unknown argument '${arg}'\n${UP_USAGE}`);
  }
  return parsed;
}
