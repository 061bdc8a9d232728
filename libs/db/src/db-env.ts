// The environment variables of a service's database, to spread into its config schema.
import { env, z } from '@ordering/config';
import { DATABASE_SSL_MODES } from './database-tls';

export const databaseEnv = {
  DATABASE_URL: env.url(),
  DATABASE_POOL_MAX: env.int(10),
  /** TLS to the server (read by createKnex and ensureDatabase, see database-tls.ts). */
  DATABASE_SSL_MODE: z.enum(DATABASE_SSL_MODES).default('disable'),
  DATABASE_SSL_CA_FILE: z.string().min(1).optional(),
};
