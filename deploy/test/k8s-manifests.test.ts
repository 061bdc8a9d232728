// The Kubernetes objects of both environments, checked offline as the chart renders them with real
// Helm (hooks on) and as the plain manifests of k8s/ render with kubectl kustomize: every object
// validates against the Kubernetes API schemas (kubernetes-models) and what the platform needs holds
// in them: hardened containers, probes on the paths the services serve, resources, migrations
// before a rollout, every setting a process's config schema needs (parsed by that very schema),
// Services, ports, images, autoscalers, disruption budgets and the ingress consistent with each
// other. Every process of the chart whose package has landed is checked (chart-processes.ts).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadAuthConfig } from '@ordering/auth-service';
import { ALL_TOPICS } from '@ordering/contracts';
import { chartDir } from '../helm-tool/chart';
import { type EnvSchema, chartProcesses, envSchemaOf, landed } from './support/chart-processes';
import { type K8sObject, renderings } from './support/renderings';

const repoRoot = path.resolve(__dirname, '..', '..');
const deployDir = path.join(repoRoot, 'deploy');

/** The bound libs/http runService puts on stopping every entry point after SIGTERM (shutdownTimeoutMs). */
const SHUTDOWN_BOUND_SECONDS = 15;

/**
 * Each process of the chart whose package has landed: the package its image is built from and its
 * environment schema (found by convention, chart-processes.ts), so a new service is checked as
 * soon as services/<name> exists.
 */
const PROCESSES: Record<string, { package: string; schema: EnvSchema; migrations: boolean }> =
  Object.fromEntries(
    chartProcesses()
      .filter(landed)
      .map((p) => [p.name, { package: p.package, schema: envSchemaOf(p), migrations: p.migrations }]),
  );
const NAMES = Object.keys(PROCESSES);

// Loosely typed views of the rendered objects (validated against the real schemas separately).
/* eslint-disable @typescript-eslint/no-explicit-any */

/** Validates objects with kubernetes-models (ESM-only: run by node itself, not jest's loader). */
function schemaProblems(objects: K8sObject[]): string[] {
  const script = `
    const input = await new Promise((resolve) => { let s = ''; process.stdin.on('data', (c) => (s += c)); process.stdin.on('end', () => resolve(s)); });
    const problems = [];
    for (const o of JSON.parse(input)) {
      const id = o.kind + '/' + (o.metadata && o.metadata.name);
      let Model;
      try { Model = (await import('kubernetes-models/' + o.apiVersion + '/' + o.kind))[o.kind]; }
      catch { problems.push(id + ': no schema for ' + o.apiVersion + ' ' + o.kind); continue; }
      try { new Model(o).validate(); } catch (err) { problems.push(id + ': ' + err.message); }
    }
    process.stdout.write(JSON.stringify(problems));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: deployDir,
    input: JSON.stringify(objects),
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

/**
 * Fields the Kubernetes API does not define (the schemas above accept unknown fields; kubectl and
 * the API server reject or drop them, so a typo like `livenesProbe` would silently lose a probe).
 * Walks the object along the models' type declarations (.d.ts), which name every field.
 */
const modelsDir = fs.realpathSync(path.join(deployDir, 'node_modules', 'kubernetes-models'));
const apimachineryDir = path.join(path.dirname(modelsDir), '@kubernetes-models', 'apimachinery');
const declarations = new Map<string, { fields: Map<string, string>; imports: Map<string, string> } | null>();

function declaration(file: string) {
  if (declarations.has(file)) return declarations.get(file)!;
  const text = fs.readFileSync(file, 'utf8');
  const body = /^export interface I\w+(?: extends [\w, ]+)? \{\n([\s\S]*?)^\}/m.exec(text)?.[1];
  const parsed = body
    ? {
        fields: new Map([...body.matchAll(/^ {4}"([^"]+)"\??: (.+?);?$/gm)].map((m) => [m[1]!, m[2]!])),
        imports: new Map(
          [...text.matchAll(/^import \{ (\w+) \} from "([^"]+)";$/gm)].map((m) => {
            const spec = m[2]!.replace(/\.js$/, '');
            const target = spec.startsWith('@kubernetes-models/apimachinery/')
              ? path.join(apimachineryDir, spec.slice('@kubernetes-models/apimachinery/'.length))
              : path.resolve(path.dirname(file), spec);
            return [m[1]!, `${target}.d.ts`];
          }),
        ),
      }
    : null; // a type alias (Quantity, IntOrString, ...): a leaf
  declarations.set(file, parsed);
  return parsed;
}

function unknownFields(value: unknown, file: string, at: string, problems: string[]): void {
  const decl = declaration(file);
  if (!decl || typeof value !== 'object' || value === null) return;
  for (const [key, child] of Object.entries(value)) {
    const type = decl.fields.get(key);
    if (type === undefined) {
      problems.push(`${at}.${key}`);
      continue;
    }
    const element = /^Array<(\w+)>$/.exec(type)?.[1];
    const target = decl.imports.get(element ?? type);
    if (!target) continue; // a primitive, a literal or a map
    if (element && Array.isArray(child))
      child.forEach((c, i) => unknownFields(c, target, `${at}.${key}[${i}]`, problems));
    else unknownFields(child, target, `${at}.${key}`, problems);
  }
}

function unknownFieldsOf(o: K8sObject): string[] {
  const problems: string[] = [];
  unknownFields(
    o,
    path.join(modelsDir, o.apiVersion, `${o.kind}.d.ts`),
    `${o.kind}/${o.metadata.name}`,
    problems,
  );
  return problems;
}

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is not rendered`);
  return found;
}

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** The names and values a container gets: its env plus every key of the ConfigMaps it loads. */
function containerEnv(objects: K8sObject[], container: any) {
  const values: Record<string, string | undefined> = {};
  const secretRefs: { name: string; key: string; env: string }[] = [];
  for (const from of container.envFrom ?? []) {
    expect(from.secretRef).toBeUndefined(); // secrets by key, so that each one is named here
    const configMap = find(objects, 'ConfigMap', from.configMapRef.name);
    Object.assign(values, configMap.data);
  }
  for (const e of container.env ?? []) {
    if (e.valueFrom?.secretKeyRef) {
      secretRefs.push({ ...e.valueFrom.secretKeyRef, env: e.name });
      values[e.name] = undefined;
    } else if (e.valueFrom) {
      values[e.name] = 'from-the-downward-api';
    } else {
      values[e.name] = e.value;
    }
  }
  return { values, secretRefs };
}

/** Stand-ins for secret values of the right shape (what README's commands create). */
function placeholderSecret(key: string, process: string): string {
  switch (key) {
    case 'DATABASE_URL':
      return `postgres://${process}:${randomBytes(8).toString('hex')}@postgres.example.internal:5432/ordering_${process}`;
    case 'REDIS_URL':
      return `redis://:${randomBytes(8).toString('hex')}@redis.example.internal:6379`;
    case 'KEY_ENCRYPTION_KEY':
      return randomBytes(32).toString('base64');
    default:
      return randomBytes(32).toString('hex');
  }
}

/** `kubectl create secret generic NAME --from-literal=KEY=...` commands of README's deploy section. */
function documentedSecrets(): Map<string, Set<string>> {
  const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Deploying to Kubernetes'));
  if (!section) throw new Error('README.md has no "Deploying to Kubernetes" section');
  const secrets = new Map<string, Set<string>>();
  for (const command of section.split(/kubectl(?: -n \S+)? create secret generic /).slice(1)) {
    const name = /^(\S+)/.exec(command)![1]!;
    const end = command.search(/\n\s*\n|```/);
    const keys = [...command.slice(0, end).matchAll(/--from-(?:literal|file)=([A-Z_]+)=/g)].map((m) => m[1]!);
    secrets.set(name, new Set(keys));
  }
  return secrets;
}

/** Parses a CPU or memory quantity into a plain number (cores, bytes). */
function quantity(value: string | number): number {
  const m = /^([\d.]+)(m|Ki|Mi|Gi|k|M|G)?$/.exec(String(value));
  if (!m) throw new Error(`unexpected quantity ${value}`);
  const factor = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * factor;
}

describe.each(renderings().map((r) => [r.label, r] as const))('%s', (_label, rendering) => {
  const { objects, namespace, environment, plain } = rendering;
  const production = environment === 'production';
  const deployment = (name: string) => find(objects, 'Deployment', name);
  const podSpec = (name: string) => deployment(name).spec.template.spec;
  const container = (name: string) => {
    const containers = podSpec(name).containers;
    expect(containers).toHaveLength(1);
    return containers[0];
  };
  /** The effective environment a process parses, with stand-ins for the secrets. */
  const effectiveEnv = (name: string) => {
    const { values, secretRefs } = containerEnv(objects, container(name));
    for (const ref of secretRefs) values[ref.env] = placeholderSecret(ref.key, name);
    return values as Record<string, string>;
  };
  const parsedConfig = (name: string) => {
    const result = PROCESSES[name]!.schema.safeParse(effectiveEnv(name));
    if (!result.success) throw new Error(`${name}: ${JSON.stringify(result.error?.issues)}`);
    return result.data as Record<string, any>;
  };

  it('renders objects that validate against the Kubernetes API schemas', () => {
    expect(objects.length).toBeGreaterThan(20);
    expect(schemaProblems(objects)).toEqual([]);
  });

  it('holds no field the Kubernetes API does not define', () => {
    expect(objects.flatMap(unknownFieldsOf)).toEqual([]);
  });

  it('puts everything in its own namespace, which enforces the restricted pod security profile', () => {
    if (plain) {
      const ns = find(objects, 'Namespace', namespace);
      expect(ns.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    }
    // Helm installs every object into the release's namespace (`-n`); none names another.
    const expected = plain ? namespace : undefined;
    for (const o of objects.filter((x) => x.kind !== 'Namespace')) {
      expect(`${o.kind}/${o.metadata.name} in ${o.metadata.namespace}`).toBe(
        `${o.kind}/${o.metadata.name} in ${expected}`,
      );
    }
  });

  it.each(NAMES)('%s: its own ServiceAccount without an API token, a Deployment and a Service', (name) => {
    expect(find(objects, 'ServiceAccount', name).automountServiceAccountToken).toBe(false);
    expect(podSpec(name).serviceAccountName).toBe(name);
    expect(podSpec(name).automountServiceAccountToken).toBe(false);
    const service = find(objects, 'Service', name);
    const podLabels = deployment(name).spec.template.metadata.labels;
    expect(matches(service.spec.selector, podLabels)).toBe(true);
    // The selector picks this process's pods only.
    for (const other of NAMES.filter((n) => n !== name)) {
      expect(matches(service.spec.selector, deployment(other).spec.template.metadata.labels)).toBe(false);
    }
    expect(matches(deployment(name).spec.selector.matchLabels, podLabels)).toBe(true);
  });

  /** Every pod template: the processes' Deployments, the topic Job and (Helm) the migration Jobs. */
  const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');

  it('runs every landed process, the topic Job and (with Helm) a migration Job per database, nothing else', () => {
    const migrationJobs = plain
      ? []
      : NAMES.filter((n) => PROCESSES[n]!.migrations).map((n) => `Job/${n}-migrations`);
    expect(workloads.map((w) => `${w.kind}/${w.metadata.name}`).sort()).toEqual(
      [...NAMES.map((n) => `Deployment/${n}`), 'Job/kafka-topics', ...migrationJobs].sort(),
    );
  });

  it.each(NAMES.filter((n) => PROCESSES[n]!.migrations))(
    '%s: with Helm, its migrations run before every install and upgrade, in the new image, with the settings the process parses',
    (name) => {
      if (plain) {
        // No hooks without Helm: the process migrates at start, before it listens (startup probe).
        expect(objects.some((o) => o.metadata.name === `${name}-migrations`)).toBe(false);
        return;
      }
      const job = find(objects, 'Job', `${name}-migrations`);
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      const hookWeight = (o: K8sObject) => Number(o.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
      // What the Job needs exists before it: its ServiceAccount and network policy are earlier hooks.
      const pod = job.spec.template.spec;
      for (const before of [
        find(objects, 'ServiceAccount', pod.serviceAccountName),
        find(objects, 'NetworkPolicy', 'migrations'),
      ]) {
        expect(before.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
        expect(hookWeight(before)).toBeLessThan(hookWeight(job));
      }
      expect(hookWeight(find(objects, 'Job', 'kafka-topics'))).toBeLessThan(hookWeight(job));
      const c = pod.containers[0];
      expect(c.image).toBe(container(name).image);
      expect(c.command).toEqual(['node', '--enable-source-maps', 'start.js', 'migrate']);
      expect(pod.restartPolicy).toBe('Never');
      // Hooks run before the release's ConfigMaps exist: settings inline, Secrets by reference.
      expect(c.envFrom ?? []).toEqual([]);
      const { values, secretRefs } = containerEnv(objects, c);
      for (const ref of secretRefs) values[ref.env] = placeholderSecret(ref.key, name);
      const result = PROCESSES[name]!.schema.safeParse(values);
      if (!result.success) throw new Error(`${name}-migrations: ${JSON.stringify(result.error?.issues)}`);
      expect(values.DATABASE_URL).toBeDefined();
      expect(secretRefs.find((r) => r.env === 'DATABASE_URL')).toEqual(
        containerEnv(objects, container(name)).secretRefs.find((r) => r.env === 'DATABASE_URL'),
      );
    },
  );

  it.each(workloads.map((w) => [`${w.kind}/${w.metadata.name}`, w] as const))(
    '%s: runs non-root, read-only, without capabilities, privilege escalation or an API token',
    (_id, workload) => {
      const pod = workload.spec.template.spec;
      expect(pod.containers).toHaveLength(1);
      expect(pod.initContainers ?? []).toEqual([]);
      const c = pod.containers[0];
      const runAsNonRoot = c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
      const runAsUser = c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
      expect(runAsNonRoot).toBe(true);
      expect(runAsUser).toBeGreaterThan(0);
      expect(c.securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(c.securityContext.privileged ?? false).toBe(false);
      expect(c.securityContext.capabilities.drop).toContain('ALL');
      expect(c.securityContext.capabilities.add ?? []).toEqual([]);
      expect((c.securityContext.seccompProfile ?? pod.securityContext?.seccompProfile)?.type).toBe(
        'RuntimeDefault',
      );
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(find(objects, 'ServiceAccount', pod.serviceAccountName).automountServiceAccountToken).toBe(
        false,
      );
      // A writable /tmp only, and not on the node's disk without a bound.
      const tmp = c.volumeMounts.find((m: any) => m.mountPath === '/tmp');
      const volume = pod.volumes.find((v: any) => v.name === tmp?.name);
      expect(volume?.emptyDir?.sizeLimit).toBeDefined();
      for (const resource of ['cpu', 'memory']) {
        expect(quantity(c.resources.requests[resource])).toBeGreaterThan(0);
        expect(quantity(c.resources.limits[resource])).toBeGreaterThanOrEqual(
          quantity(c.resources.requests[resource]),
        );
      }
    },
  );

  it('the topic Job creates exactly the contracts topics, from a process image, with the script in the repository', () => {
    const job = find(objects, 'Job', 'kafka-topics');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe(plain ? undefined : 'pre-install,pre-upgrade');
    if (plain) expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    const pod = job.spec.template.spec;
    const c = pod.containers[0];
    const { values } = containerEnv(objects, c);
    expect(values.KAFKA_TOPICS!.split(',').sort()).toEqual(ALL_TOPICS.map((t) => t.name).sort());
    expect(new Set(ALL_TOPICS.map((t) => String(t.partitions)))).toEqual(
      new Set([values.KAFKA_TOPIC_PARTITIONS]),
    );
    expect(Number(values.KAFKA_TOPIC_REPLICATION_FACTOR)).toBe(3);
    expect(values.KAFKA_BROKERS).toBe(effectiveEnv('customers').KAFKA_BROKERS);
    // The customers image holds kafkajs; the script is mounted from a ConfigMap of the repository's file.
    expect(c.image).toBe(container('customers').image);
    expect(c.command).toEqual(['node', '/scripts/create-topics.js']);
    const mount = c.volumeMounts.find((m: any) => m.mountPath === '/scripts');
    const volume = pod.volumes.find((v: any) => v.name === mount.name);
    const script = find(objects, 'ConfigMap', volume.configMap.name).data['create-topics.js'];
    expect(script).toBe(fs.readFileSync(path.join(chartDir, 'files', 'create-topics.js'), 'utf8'));
    expect(pod.restartPolicy).toBe('OnFailure');
  });

  it.each(NAMES)('%s: probes /healthz and /readyz on the port the process listens on', (name) => {
    const c = container(name);
    const port = parsedConfig(name).PORT;
    const http = c.ports.find((p: any) => p.name === 'http');
    expect(http.containerPort).toBe(port);
    const probePort = (probe: any) => {
      const p = probe.httpGet.port;
      return typeof p === 'number' ? p : c.ports.find((x: any) => x.name === p)?.containerPort;
    };
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
    for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe])
      expect(probePort(probe)).toBe(port);
    // Migrations run before the server listens: the startup probe waits for them, up to 2 minutes.
    expect(c.startupProbe.periodSeconds * c.startupProbe.failureThreshold).toBeGreaterThanOrEqual(60);
  });

  it.each(NAMES)('%s: requests and limits for CPU and memory, requests within limits', (name) => {
    const { requests, limits } = container(name).resources;
    for (const resource of ['cpu', 'memory']) {
      expect(quantity(requests[resource])).toBeGreaterThan(0);
      expect(quantity(requests[resource])).toBeLessThanOrEqual(quantity(limits[resource]));
    }
  });

  it.each(NAMES)('%s: stops within its grace period (preStop pause, then the drain bound)', (name) => {
    const preStop = container(name).lifecycle?.preStop?.sleep?.seconds ?? 0;
    expect(podSpec(name).terminationGracePeriodSeconds).toBeGreaterThan(preStop + SHUTDOWN_BOUND_SECONDS);
  });

  it.each(NAMES)(
    '%s: every setting its config schema requires is provided, and the environment parses',
    (name) => {
      const { values, secretRefs } = containerEnv(objects, container(name));
      const schema = PROCESSES[name]!.schema;
      const provided = new Set(Object.keys(values));
      // Required: no default. Also required in a cluster: a default that points at the developer's machine.
      const required = Object.entries(schema.shape)
        .filter(([, field]) => {
          const unset = field.safeParse(undefined);
          return !unset.success || /127\.0\.0\.1|localhost/.test(JSON.stringify(unset.data ?? ''));
        })
        .map(([key]) => key);
      expect(required.filter((key) => !provided.has(key))).toEqual([]);
      // Every process but the portal (it calls only the public API, with its users' tokens) holds
      // the internal identity secret; the portal never gets it.
      if (PROCESSES[name]!.package === 'services/developer-portal')
        expect(provided.has('INTERNAL_IDENTITY_SECRET')).toBe(false);
      else expect(required).toEqual(expect.arrayContaining(['INTERNAL_IDENTITY_SECRET']));
      // Each secret is a key of a named Secret, and README tells how to create exactly that key.
      const documented = documentedSecrets();
      for (const ref of secretRefs) {
        expect(`${ref.name}: ${[...(documented.get(ref.name) ?? [])].includes(ref.key)}`).toBe(
          `${ref.name}: true`,
        );
      }
      const config = parsedConfig(name);
      // Both environments run production code paths (auth refuses its development secrets).
      expect(config.NODE_ENV).toBe('production');
      expect(values.OTEL_SERVICE_NAME).toBe(name);
      expect(values.OTEL_EXPORTER_OTLP_ENDPOINT).toMatch(/^https?:\/\//);
    },
  );

  it('auth gets real secrets, never its local development defaults, and its production check passes', () => {
    const env = effectiveEnv('auth');
    const { secretRefs } = containerEnv(objects, container('auth'));
    expect(secretRefs.map((r) => r.env).sort()).toEqual(
      expect.arrayContaining(['CLIENT_SECRET_KEY', 'COOKIE_KEYS', 'DATABASE_URL', 'KEY_ENCRYPTION_KEY']),
    );
    expect(() => loadAuthConfig({ ...env, NODE_ENV: 'production' })).not.toThrow();
  });

  it('the gateway and auth agree on the issuer, the audience and the revocation keys; the JWKS comes from the auth Service', () => {
    const gateway = parsedConfig('gateway');
    const auth = parsedConfig('auth');
    expect(gateway.AUTH_ISSUER).toBe(auth.AUTH_ISSUER);
    expect(gateway.API_AUDIENCE).toBe(auth.API_AUDIENCE);
    expect(gateway.REDIS_KEY_PREFIX).toBe(auth.REDIS_KEY_PREFIX);
    expect(new URL(gateway.AUTH_JWKS_URL).pathname).toBe('/oauth/jwks.json');
    expect(new URL(gateway.AUTH_JWKS_URL).hostname).toBe('auth');
  });

  it('every in-cluster URL names a rendered Service and one of its ports', () => {
    const urls = NAMES.flatMap((name) =>
      Object.entries(effectiveEnv(name))
        .filter(
          ([key, value]) => key.endsWith('_URL') && /^https?:\/\/[a-z0-9-]+(?:[:/]|$)/.test(value ?? ''),
        )
        .map(([key, value]) => ({ process: name, key, url: new URL(value) })),
    );
    expect(urls.map((u) => `${u.process}.${u.key}`)).toEqual(
      expect.arrayContaining(['gateway.CUSTOMERS_URL', 'gateway.WEBHOOKS_URL', 'auth.CUSTOMERS_URL']),
    );
    for (const { url } of urls) {
      const service = find(objects, 'Service', url.hostname);
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      expect(service.spec.ports.map((p: any) => p.port)).toContain(port);
    }
  });

  it.each(NAMES)('%s: the Service forwards to a port the container declares', (name) => {
    const service = find(objects, 'Service', name);
    const ports = container(name).ports;
    for (const p of service.spec.ports) {
      const target = p.targetPort ?? p.port;
      const declared =
        typeof target === 'number'
          ? ports.some((x: any) => x.containerPort === target)
          : ports.some((x: any) => x.name === target);
      expect(`${name}:${target} ${declared}`).toBe(`${name}:${target} true`);
    }
  });

  it.each(NAMES)('%s: the image is the one the Dockerfile builds for its package, at a fixed tag', (name) => {
    const image: string = container(name).image;
    const m = /^(?:[a-z0-9.-]+(?::\d+)?\/)?(?:[a-z0-9._-]+\/)*ordering\/([a-z-]+):([A-Za-z0-9._-]+)$/.exec(
      image,
    );
    expect(m?.[1]).toBe(name);
    expect(m?.[2]).not.toBe('latest');
    expect(m?.[2]).toMatch(/^\d+\.\d+\.\d+$/); // released tags in both environments
    const pkg = PROCESSES[name]!.package;
    expect(fs.existsSync(path.join(repoRoot, pkg, 'src', 'start.ts'))).toBe(true);
  });

  /** Replicas of a Deployment: the fewest its autoscaler keeps, or its own count. */
  const replicasOf = (name: string): number =>
    objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === name)?.spec
      .minReplicas ?? deployment(name).spec.replicas;

  it('every autoscaler scales an existing Deployment on CPU, which then sets no replica count of its own', () => {
    const autoscalers = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    // Production scales the gateway with load; the test environment runs fixed replicas.
    expect(autoscalers.map((a) => a.metadata.name)).toEqual(production ? ['gateway'] : []);
    for (const hpa of autoscalers) {
      const target = deployment(hpa.spec.scaleTargetRef.name);
      expect(target.spec.replicas).toBeUndefined();
      expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
      expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
      // Utilisation is relative to the CPU request, which the container has.
      expect(target.spec.template.spec.containers[0].resources.requests.cpu).toBeDefined();
    }
  });

  it('runs at least two gateways, never drained below one; in production two of everything', () => {
    const replicas = replicasOf('gateway');
    expect(replicas).toBeGreaterThanOrEqual(2);
    const pdb = find(objects, 'PodDisruptionBudget', 'gateway');
    expect(matches(pdb.spec.selector.matchLabels, deployment('gateway').spec.template.metadata.labels)).toBe(
      true,
    );
    expect(pdb.spec.maxUnavailable).toBeLessThan(replicas);
    if (production) {
      for (const name of NAMES) {
        expect(`${name}: ${replicasOf(name) >= 2}`).toBe(`${name}: true`);
        const budget = objects.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === name);
        expect(`${name}: ${budget?.spec.maxUnavailable}`).toBe(`${name}: 1`);
      }
    }
  });

  it('the ingress serves the API host from the gateway and the OAuth host from auth, with TLS', () => {
    const ingress = find(objects, 'Ingress', 'ordering');
    const apiHost = new URL(parsedConfig('gateway').PUBLIC_BASE_URL).hostname;
    const authHost = new URL(parsedConfig('auth').AUTH_ISSUER).hostname;
    expect(new URL(parsedConfig('customers').SCIM_BASE_URL).hostname).toBe(apiHost);
    const pathsOf = (host: string): any[] =>
      ingress.spec.rules.find((r: any) => r.host === host)?.http.paths ?? [];
    const backendOf = (host: string) => pathsOf(host)[0]?.backend.service;
    // Only the API's and OAuth's paths are public: /readyz (its checks' error texts), /healthz and
    // anything else a process serves stay inside the cluster.
    expect(pathsOf(apiHost).map((p: any) => [p.path, p.pathType, p.backend.service.name])).toEqual([
      ['/v1', 'Prefix', 'gateway'],
      ['/scim/v2', 'Prefix', 'gateway'],
    ]);
    expect(pathsOf(authHost).map((p: any) => [p.path, p.pathType, p.backend.service.name])).toEqual([
      ['/oauth', 'Prefix', 'auth'],
      ['/.well-known', 'Prefix', 'auth'],
    ]);
    expect(new URL(parsedConfig('customers').SCIM_BASE_URL).pathname).toMatch(/^\/scim\/v2\/?$/);
    for (const host of [apiHost, authHost]) {
      const backend = backendOf(host);
      const service = find(objects, 'Service', backend.name);
      expect(
        service.spec.ports.some((p: any) => p.name === backend.port.name || p.port === backend.port.number),
      ).toBe(true);
      expect(ingress.spec.tls.some((t: any) => t.hosts.includes(host))).toBe(true);
    }
    // Each environment its own hosts (spec rule 2).
    expect(apiHost).toBe(production ? 'api.ordering.example' : 'api.test.ordering.example');
    expect(authHost).toBe(production ? 'auth.ordering.example' : 'auth.test.ordering.example');
    // The gateway, not the controller, refuses oversized bodies (the spec's JSON 413).
    const controllerLimit =
      ingress.metadata.annotations!['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '';
    expect(quantity(controllerLimit.replace(/m$/, 'Mi'))).toBeGreaterThan(
      parsedConfig('gateway').BODY_LIMIT_BYTES,
    );
  });
});

it('the schema check finds a broken object (it is not a no-op)', () => {
  const broken: K8sObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'broken' },
    spec: { replicas: 'two', selector: {}, template: { spec: { containers: [{ name: 'c' }] } } },
  };
  expect(schemaProblems([broken]).join('\n')).toMatch(/replicas must be integer/);
});

it('the field check finds a misspelt field deep in a pod template (it is not a no-op)', () => {
  const typo = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'typo', lables: { a: 'b' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { a: 'b' } },
      template: {
        metadata: { labels: { a: 'b' } },
        spec: {
          containers: [
            { name: 'c', image: 'i', livenesProbe: {}, securityContext: { readOnlyRootFileSystem: true } },
          ],
        },
      },
    },
  };
  expect(unknownFieldsOf(typo as unknown as K8sObject)).toEqual([
    'Deployment/typo.metadata.lables',
    'Deployment/typo.spec.template.spec.containers[0].livenesProbe',
    'Deployment/typo.spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem',
  ]);
});
