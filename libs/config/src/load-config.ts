// Each service declares its environment as a zod schema; loadConfig validates process.env against
// it at start-up and refuses to start with a message naming every missing or malformed variable.
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type EnvSchema = z.ZodObject<z.ZodRawShape>;

/** Validates `env` (default `process.env`) against the schema; throws ConfigError naming variables. */
export function loadConfig<S extends EnvSchema>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const value = issue.path.length === 1 ? env[String(issue.path[0])] : undefined;
    return value === undefined
      ? `${name} is missing (${issue.message})`
      : `${name} is malformed (${issue.message})`;
  });
  throw new ConfigError(problems);
}

/** Field helpers so that every service reads the same kinds of variable the same way. */
export const env = {
  /** A TCP port, 0..65535 (0: any free port). */
  port: (fallback?: number) => {
    const p = z.coerce.number().int().min(0).max(65535);
    return fallback === undefined ? p : p.default(fallback);
  },
  /** A URL such as postgres://... or http://... */
  url: (fallback?: string) => (fallback === undefined ? z.url() : z.url().default(fallback)),
  /** A comma-separated list, e.g. KAFKA_BROKERS=127.0.0.1:19092,127.0.0.1:19093 */
  list: (fallback?: string) =>
    z
      .string()
      .default(fallback ?? '')
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string()).min(1, 'needs at least one entry')),
  /** true/false/1/0/yes/no */
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  int: (fallback?: number) => {
    const n = z.coerce.number().int();
    return fallback === undefined ? n : n.default(fallback);
  },
  string: (fallback?: string) =>
    fallback === undefined ? z.string().min(1) : z.string().min(1).default(fallback),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** Variables every service shares. */
export const commonEnv = {
  SERVICE_NAME: env.string(),
  LOG_LEVEL: env.logLevel(),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
};
