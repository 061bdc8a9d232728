// What the manifest tests look at: for each environment, the chart as Helm renders it (hooks on,
// every process whose package has landed enabled) and the plain manifests of k8s/ as
// `kubectl kustomize` renders them (what a team without Helm applies).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import {
  ENVIRONMENTS,
  ENVIRONMENT_NAMES,
  type Environment,
  renderChart,
  repoRoot,
} from '../../helm-tool/chart';
import { kubectlCommand } from '../../helm-tool/helm-binary';
import { enableLanded } from './chart-processes';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: any;
};

export interface Rendering {
  /** `chart production`, `k8s/test`, ... */
  label: string;
  environment: Environment;
  namespace: string;
  /** k8s/ (no Helm hooks, a Namespace object) rather than the chart itself. */
  plain: boolean;
  objects: K8sObject[];
}

/**
 * The objects of `k8s/<environment>`, rendered offline with `kubectl kustomize` (the machine's
 * kubectl, or the one fetched with Helm).
 */
export function renderPlain(environment: Environment): K8sObject[] {
  const yaml = execFileSync(kubectlCommand(), ['kustomize', path.join(repoRoot, 'k8s', environment)], {
    encoding: 'utf8',
  });
  return parseAllDocuments(yaml).map((doc) => doc.toJSON() as K8sObject);
}

let cached: Rendering[] | undefined;

export function renderings(): Rendering[] {
  cached ??= ENVIRONMENT_NAMES.flatMap((environment) => [
    {
      label: `chart ${environment}`,
      environment,
      namespace: ENVIRONMENTS[environment].namespace,
      plain: false,
      objects: renderChart<K8sObject>(environment, { set: enableLanded() }),
    },
    {
      label: `k8s/${environment}`,
      environment,
      namespace: ENVIRONMENTS[environment].namespace,
      plain: true,
      objects: renderPlain(environment),
    },
  ]);
  return cached;
}
