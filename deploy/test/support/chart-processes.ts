// The processes the chart knows (deploy/helm/ordering/values.yaml `processes`), which of them have
// landed in the workspace (their package exists), and each landed one's environment schema, found
// by convention: the package's main module exports one zod object named `<something>Env`,
// `<something>EnvSchema` or `<something>ConfigSchema`. A service that lands is picked up by the
// manifest tests without editing them.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { chartDir, repoRoot } from '../../helm-tool/chart';

export interface ChartProcess {
  name: string;
  enabled: boolean;
  package: string;
  component: string;
  port: number;
  replicas: number;
  /** '' or a key of the chart's `hosts` (api, auth). */
  publicHost: string;
  calls: string[];
  needs: {
    postgresql: boolean;
    kafka: boolean;
    redis: boolean;
    publicHttps: boolean;
    publicAnyPort?: boolean;
  };
  migrations: boolean;
}

export interface EnvSchema {
  shape: Record<string, { safeParse(value: unknown): { success: boolean; data?: unknown } }>;
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: { issues: unknown[] } };
}

/* eslint-disable @typescript-eslint/no-explicit-any */
export const chartValues = (): any => parse(fs.readFileSync(path.join(chartDir, 'values.yaml'), 'utf8'));

export function chartProcesses(): ChartProcess[] {
  return Object.entries(chartValues().processes as Record<string, Omit<ChartProcess, 'name'>>).map(
    ([name, p]) => ({ name, ...p }),
  );
}

/** Whether the process's package is in this checkout (a manifest and a start module). */
export function landed(p: ChartProcess): boolean {
  const dir = path.join(repoRoot, p.package);
  return fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'src', 'start.ts'));
}

const SCHEMA_EXPORT = /^[a-z][A-Za-z]*(Env|EnvSchema|ConfigSchema)$/;

/** The package's exported module (its package.json main), loaded through jest's transform. */
export function packageModule(p: ChartProcess): Record<string, unknown> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(path.join(repoRoot, p.package)) as Record<string, unknown>;
}

/** The environment schema a landed process exports; throws naming the convention when there is none. */
export function envSchemaOf(p: ChartProcess): EnvSchema {
  const found = Object.entries(packageModule(p)).filter(
    ([name, value]) =>
      SCHEMA_EXPORT.test(name) &&
      typeof value === 'object' &&
      value !== null &&
      'shape' in value &&
      typeof (value as EnvSchema).safeParse === 'function',
  );
  if (found.length !== 1) {
    throw new Error(
      `${p.package} must export exactly one zod object schema named *Env, *EnvSchema or *ConfigSchema (found ${found.map(([n]) => n).join(', ') || 'none'})`,
    );
  }
  return found[0]![1] as EnvSchema;
}

/** `--set` pairs that enable every process whose package has landed. */
export const enableLanded = (): string[] =>
  chartProcesses()
    .filter(landed)
    .map((p) => `processes.${p.name}.enabled=true`);
