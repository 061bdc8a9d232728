// The environment variables of a service's database, to spread into its config schema.
import { env } from '@ordering/config';

export const databaseEnv = {
  DATABASE_URL: env.url(),
  DATABASE_POOL_MAX: env.int(10),
};
