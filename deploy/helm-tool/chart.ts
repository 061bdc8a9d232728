// The chart deploy/helm/ordering rendered by real Helm: for the tests (both environments, with or
// without extra values) and for the plain manifests of k8s/ (pnpm render-manifests).
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { helm } from './helm-binary';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const chartDir = path.join(repoRoot, 'deploy', 'helm', 'ordering');

/** The two environments (spec rule 2), each with its values file and namespace. */
export const ENVIRONMENTS = {
  production: { namespace: 'ordering', values: path.join(chartDir, 'values-production.yaml') },
  test: { namespace: 'ordering-test', values: path.join(chartDir, 'values-test.yaml') },
} as const;
export type Environment = keyof typeof ENVIRONMENTS;
export const ENVIRONMENT_NAMES = Object.keys(ENVIRONMENTS) as Environment[];

export const RELEASE = 'ordering';

export interface RenderOptions {
  /** `--set` pairs (key=value). */
  set?: string[];
  /** Extra values files, after the environment's. */
  values?: string[];
}

function renderArgs(environment: Environment, options: RenderOptions): string[] {
  const env = ENVIRONMENTS[environment];
  return [
    '--namespace',
    env.namespace,
    '--values',
    env.values,
    ...(options.values ?? []).flatMap((v) => ['--values', v]),
    ...(options.set ?? []).flatMap((s) => ['--set', s]),
  ];
}

/** `helm template` of the chart for an environment; throws with Helm's message on a refusal. */
export function templateChart(environment: Environment, options: RenderOptions = {}): string {
  const result = helm(['template', RELEASE, chartDir, ...renderArgs(environment, options)]);
  if (result.status !== 0) throw new Error(`helm template (${environment}) failed:\n${result.stderr}`);
  return result.stdout;
}

/** The objects `helm template` renders, parsed. */
export function renderChart<T = unknown>(environment: Environment, options: RenderOptions = {}): T[] {
  return parseAllDocuments(templateChart(environment, options))
    .map((doc) => doc.toJSON() as T)
    .filter((o) => o !== null);
}

/** `helm lint --strict` of the chart for an environment. */
export function lintChart(environment: Environment, options: RenderOptions = {}) {
  return helm(['lint', '--strict', chartDir, ...renderArgs(environment, options)]);
}

/** k8s/<environment>/ordering.yaml as `pnpm render-manifests` writes it. */
export function plainManifests(environment: Environment): string {
  const header = [
    `# Generated from the Helm chart deploy/helm/ordering with values-${environment}.yaml by`,
    '# `pnpm render-manifests`: do not edit (a test fails when this file and the chart drift). Helm hooks',
    '# are off here: each process migrates its database at start, before it listens, and the topic Job',
    '# is an ordinary Job. Applied with the thin kustomization beside it: kubectl apply -k k8s/' +
      environment +
      '.',
    '',
  ].join('\n');
  return header + templateChart(environment, { set: ['helmHooks=false'] });
}

export const plainManifestsFile = (environment: Environment) =>
  path.join(repoRoot, 'k8s', environment, 'ordering.yaml');
