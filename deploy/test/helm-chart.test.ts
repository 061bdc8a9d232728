// The Helm chart itself, with real Helm (fetched by the project, helm-tool/helm-binary.ts): it lints
// for both environments, Helm refuses wrong values (values.schema.json and the chart's own checks),
// k8s/ is exactly what the chart renders, the optional operator resources (Strimzi topics,
// CloudNativePG clusters) and the TLS/SASL settings reach the processes in the names the shared
// libraries read, NOTES.txt names what to do next, and every service of the workspace has its entry.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALL_TOPICS } from '@ordering/contracts';
import { redisTlsFromEnv } from '@ordering/config';
import { databaseTlsFromEnv } from '@ordering/db';
import { kafkaSecurityFromEnv } from '@ordering/messaging';
import {
  ENVIRONMENTS,
  ENVIRONMENT_NAMES,
  chartDir,
  lintChart,
  plainManifests,
  plainManifestsFile,
  renderChart,
  repoRoot,
} from '../helm-tool/chart';
import { helm } from '../helm-tool/helm-binary';
import { chartProcesses, landed } from './support/chart-processes';
import type { K8sObject } from './support/renderings';

/* eslint-disable @typescript-eslint/no-explicit-any */
const everyProcess = chartProcesses().map((p) => `processes.${p.name}.enabled=true`);

/** Helm's answer to rendering the production values with `set`: its exit status and message. */
const attempt = (...set: string[]) =>
  helm([
    'template',
    'ordering',
    chartDir,
    '-f',
    ENVIRONMENTS.production.values,
    ...set.flatMap((s) => ['--set', s]),
  ]);

const find = (objects: K8sObject[], kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is not rendered`);
  return found;
};

describe.each(ENVIRONMENT_NAMES)('the %s environment', (environment) => {
  it('lints clean (strict), with the default processes and with every process enabled', () => {
    for (const set of [[], everyProcess]) {
      const result = lintChart(environment, { set });
      expect(`${result.status}\n${result.stdout}${result.stderr}`).toMatch(/^0\n[\s\S]*0 chart\(s\) failed/);
    }
  });

  it(`k8s/${environment}/ordering.yaml is exactly what the chart renders (run \`pnpm render-manifests\` after changing the chart)`, () => {
    expect(fs.readFileSync(plainManifestsFile(environment), 'utf8')).toBe(plainManifests(environment));
  });
});

it('the two environments differ in hosts, issuer, audience, Kafka cluster and Redis keys, and share nothing that holds data', () => {
  const gatewayConfig = (environment: 'production' | 'test') =>
    find(renderChart<K8sObject>(environment), 'ConfigMap', 'gateway-config').data;
  const [production, test] = [gatewayConfig('production'), gatewayConfig('test')];
  for (const key of ['AUTH_ISSUER', 'API_AUDIENCE', 'PUBLIC_BASE_URL', 'REDIS_KEY_PREFIX']) {
    expect(`${key}: ${production[key] !== test[key]}`).toBe(`${key}: true`);
  }
  // Both list both servers in /v1/openapi.json.
  for (const config of [production, test]) {
    expect([config.API_BASE_URL, config.TEST_API_BASE_URL]).toEqual([
      'https://api.ordering.example/v1',
      'https://api.test.ordering.example/v1',
    ]);
    // ... each described with its own OAuth host (the document's flows name only this one's).
    expect([config.OAUTH_HOST_URL, config.TEST_OAUTH_HOST_URL]).toEqual([
      'https://auth.ordering.example',
      'https://auth.test.ordering.example',
    ]);
  }
  expect(production.OAUTH_HOST_URL).toBe(production.AUTH_ISSUER);
  expect(test.TEST_OAUTH_HOST_URL).toBe(test.AUTH_ISSUER);
  const brokers = (environment: 'production' | 'test') =>
    find(renderChart<K8sObject>(environment), 'ConfigMap', 'customers-config').data.KAFKA_BROKERS;
  expect(brokers('production')).not.toBe(brokers('test'));
  expect(ENVIRONMENTS.production.namespace).not.toBe(ENVIRONMENTS.test.namespace);
});

describe('values Helm refuses at install', () => {
  it.each([
    ['an environment that does not exist', 'environment=staging', "at '/environment'"],
    ['a misspelt setting of a process', 'processes.gateway.replica=3', "additional properties 'replica'"],
    ['negative replicas', 'processes.customers.replicas=-1', "at '/processes/customers/replicas'"],
    ['a host with a scheme', 'hosts.api=https://api.example', "at '/hosts/api'"],
    [
      'a public host that names no host',
      'processes.webhooks.publicHost=www',
      'publicHost "www" names no key of hosts',
    ],
    ['a SASL mechanism kafkajs does not speak', 'kafka.sasl.mechanism=gssapi', "at '/kafka/sasl/mechanism'"],
    [
      'a PostgreSQL TLS mode libs/db does not know',
      'postgresql.tls.mode=prefer',
      "at '/postgresql/tls/mode'",
    ],
    ['a topic creation mode', 'kafka.topics.create=auto', "at '/kafka/topics/create'"],
    ['a malformed broker list', 'kafka.brokers=kafka', "at '/kafka/brokers'"],
    [
      'a CPU quantity',
      'processes.gateway.resources.limits.cpu=lots',
      "at '/processes/gateway/resources/limits/cpu'",
    ],
    [
      'a privileged container',
      'containerSecurityContext.allowPrivilegeEscalation=true',
      "at '/containerSecurityContext/allowPrivilegeEscalation'",
    ],
    [
      'a call to a process that does not exist',
      'processes.orders.calls={payments}',
      'processes.orders.calls names "payments"',
    ],
    ['two processes on one public host', 'processes.customers.publicHost=api', 'both serve the api host'],
    ['the topic Job in an image without Kafka', 'kafka.topics.jobImageOf=gateway', 'kafka.topics.jobImageOf'],
    [
      'a disruption budget that lets no pod go (every node drain would block)',
      'processes.auth.podDisruptionBudget.maxUnavailable=0%',
      "at '/processes/auth/podDisruptionBudget/maxUnavailable'",
    ],
    [
      'a grace period the preStop pause and the drain do not fit in (pods killed mid-drain)',
      'preStopSeconds=10,terminationGracePeriodSeconds=21',
      'terminationGracePeriodSeconds (21) must be above preStopSeconds + 15 (25)',
    ],
    [
      'two public hosts on one name (the issuer would be the audience, one ingress rule shadows the other)',
      'hosts.auth=api.ordering.example',
      'hosts.api and hosts.auth are both api.ordering.example',
    ],
    [
      'a process listening on the metrics port (two listeners on one port: the process cannot start)',
      'processes.orders.port=9464',
      'processes.orders.port 9464 is metrics.port too',
    ],
    [
      "a port set in env behind the probes' back",
      'processes.orders.env.PORT=9000',
      'processes.orders.env sets PORT',
    ],
    [
      'a secret the process reads from a Secret put into env (a ConfigMap) instead',
      'processes.auth.env.KEY_ENCRYPTION_KEY=plaintext',
      'processes.auth.env sets KEY_ENCRYPTION_KEY, a secret',
    ],
    [
      'the internal identity secret in env',
      'processes.gateway.env.INTERNAL_IDENTITY_SECRET=plaintext',
      'processes.gateway.env sets INTERNAL_IDENTITY_SECRET, a secret',
    ],
    [
      'a database URL with its password in env',
      'processes.customers.env.DATABASE_URL=postgres://u:p@db/customers',
      'processes.customers.env sets DATABASE_URL, a secret',
    ],
    [
      "an OAuth host for this environment's server in /v1/openapi.json that is not its own",
      'openapiOAuthHosts.production=https://auth.test.ordering.example',
      "openapiOAuthHosts.production is https://auth.test.ordering.example, but this production release's OAuth host is https://auth.ordering.example",
    ],
    [
      "an API base for this environment's server in /v1/openapi.json that is not its own",
      'openapiServers.production=https://api.test.ordering.example/v1',
      'openapiServers.production is https://api.test.ordering.example/v1, but this production release serves the API at https://api.ordering.example/v1',
    ],
  ])('%s (%s)', (_what, set, message) => {
    const result = attempt(set);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(message);
  });

  it('while the same command with a right value renders', () => {
    expect(attempt('processes.customers.replicas=3').status).toBe(0);
    expect(attempt('processes.auth.podDisruptionBudget.maxUnavailable=50%').status).toBe(0);
    expect(attempt('preStopSeconds=10,terminationGracePeriodSeconds=26').status).toBe(0);
    expect(attempt('processes.orders.port=9000').status).toBe(0);
    expect(attempt('processes.gateway.env.UPSTREAM_TIMEOUT_MS=5000').status).toBe(0);
  });
});

describe('optional operator resources', () => {
  it('Strimzi: one KafkaTopic per contracts topic of the named cluster, and then no topic Job', () => {
    const objects = renderChart<K8sObject>('production', { set: ['kafka.topics.create=strimzi'] });
    const topics = objects.filter((o) => o.kind === 'KafkaTopic');
    expect(topics.map((t) => t.spec.topicName).sort()).toEqual(ALL_TOPICS.map((t) => t.name).sort());
    for (const topic of topics) {
      expect(topic.apiVersion).toBe('kafka.strimzi.io/v1beta2');
      expect(topic.metadata.labels!['strimzi.io/cluster']).toBe('ordering');
      expect(topic.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/); // a DNS-1123 name
      expect(topic.spec).toMatchObject({ partitions: 3, replicas: 3 });
    }
    expect(objects.some((o) => o.metadata.name === 'kafka-topics')).toBe(false);
  });

  it('CloudNativePG: one Cluster per process with a database, whose generated Secret gives DATABASE_URL', () => {
    const objects = renderChart<K8sObject>('production', {
      set: ['postgresql.cloudnativepg.enabled=true', ...everyProcess],
    });
    const withDatabase = chartProcesses()
      .filter((p) => p.needs.postgresql)
      .map((p) => p.name);
    const clusters = objects.filter((o) => o.kind === 'Cluster');
    expect(clusters.map((c) => c.metadata.name).sort()).toEqual(withDatabase.map((n) => `${n}-db`).sort());
    for (const cluster of clusters) {
      expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
      expect(cluster.spec).toMatchObject({
        instances: 3,
        bootstrap: { initdb: { database: 'app', owner: 'app' } },
      });
    }
    for (const name of withDatabase) {
      for (const workload of [
        find(objects, 'Deployment', name),
        find(objects, 'Job', `${name}-migrations`),
      ]) {
        const url = workload.spec.template.spec.containers[0].env.find((e: any) => e.name === 'DATABASE_URL');
        expect(url.valueFrom.secretKeyRef).toEqual({ name: `${name}-db-app`, key: 'uri' });
      }
    }
    // The Clusters and their generated Secrets come with the release, after its pre-install hooks:
    // a migration Job before the first install would wait for a Secret that cannot exist yet (and
    // Helm would give up). They run before upgrades; on the first install each process migrates at
    // start, as in k8s/.
    const clustersHook = clusters.map((c) => c.metadata.annotations?.['helm.sh/hook']);
    expect(clustersHook.every((hook) => hook === undefined)).toBe(true);
    for (const o of objects.filter((x) => x.metadata.name.endsWith('migrations'))) {
      expect(`${o.kind}/${o.metadata.name}: ${o.metadata.annotations?.['helm.sh/hook']}`).toBe(
        `${o.kind}/${o.metadata.name}: pre-upgrade`,
      );
    }
  });
});

describe('TLS and SASL to managed Kafka, PostgreSQL and Redis', () => {
  const objects = renderChart<K8sObject>('production', {
    set: [
      'kafka.brokers=b-1.kafka.example:9096\\,b-2.kafka.example:9096',
      'kafka.ports={9096}',
      'kafka.tls.enabled=true',
      'kafka.tls.caSecret.name=kafka-ca',
      'kafka.sasl.mechanism=scram-sha-512',
      'postgresql.tls.mode=verify-full',
      'postgresql.tls.caSecret.name=postgres-ca',
      'redis.tls.caSecret.name=redis-ca',
    ],
  });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'chart-tls-'));
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  /** The container's environment with the Secrets filled in and CA paths moved to files we wrote. */
  function environmentOf(workload: K8sObject): Record<string, string> {
    const pod = workload.spec.template.spec;
    const c = pod.containers[0];
    const env: Record<string, string> = {};
    for (const from of c.envFrom ?? [])
      Object.assign(env, find(objects, 'ConfigMap', from.configMapRef.name).data);
    for (const e of c.env ?? []) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef)
        env[e.name] = `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`;
    }
    for (const [key, value] of Object.entries(env)) {
      if (!key.endsWith('_CA_FILE')) continue;
      // The file is where a mounted Secret puts it.
      const mount = c.volumeMounts.find((m: any) => path.dirname(value) === m.mountPath);
      const volume = pod.volumes.find((v: any) => v.name === mount?.name);
      expect(`${key}: ${volume?.secret?.items?.[0]?.path}`).toBe(`${key}: ${path.basename(value)}`);
      const local = path.join(scratch, `${workload.metadata.name}-${key}`);
      fs.writeFileSync(local, PEM);
      env[key] = local;
    }
    return env;
  }

  const workloads = () => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job');

  it('every process and Job that uses Kafka gets TLS with the CA and SASL credentials, as libs/messaging reads them', () => {
    const kafkaUsers = workloads().filter((w) => environmentOf(w).KAFKA_BROKERS);
    expect(kafkaUsers.map((w) => w.metadata.name)).toEqual(
      expect.arrayContaining(['auth', 'customers', 'webhooks', 'kafka-topics']),
    );
    for (const workload of kafkaUsers) {
      expect(kafkaSecurityFromEnv(environmentOf(workload))).toEqual({
        ssl: { ca: [PEM] },
        sasl: {
          mechanism: 'scram-sha-512',
          username: 'ordering-kafka/KAFKA_SASL_USERNAME',
          password: 'ordering-kafka/KAFKA_SASL_PASSWORD',
        },
      });
    }
  });

  it('every process with a database (and its migration Job) verifies the server with the CA, as libs/db reads it', () => {
    const dbUsers = workloads().filter((w) => environmentOf(w).DATABASE_URL);
    expect(dbUsers.map((w) => w.metadata.name).sort()).toEqual(
      [
        'approvals',
        'approvals-migrations',
        'auth',
        'auth-migrations',
        'catalog',
        'catalog-migrations',
        'customers',
        'customers-migrations',
        'orders',
        'orders-migrations',
        'webhooks',
        'webhooks-migrations',
      ].sort(),
    );
    for (const workload of dbUsers) {
      expect(databaseTlsFromEnv(environmentOf(workload))).toEqual({ rejectUnauthorized: true, ca: PEM });
    }
  });

  it('the gateway and auth get the Redis CA, as they read it', () => {
    for (const name of ['gateway', 'auth']) {
      expect(redisTlsFromEnv(environmentOf(find(objects, 'Deployment', name)))).toEqual({ tls: { ca: PEM } });
    }
    expect(environmentOf(find(objects, 'Deployment', 'customers')).REDIS_TLS_CA_FILE).toBeUndefined();
  });

  it('the network policies follow the brokers to their port', () => {
    const policy = find(objects, 'NetworkPolicy', 'customers');
    expect(policy.spec.egress.flatMap((r: any) => r.ports.map((p: any) => p.port))).toContain(9096);
    expect(policy.spec.egress.flatMap((r: any) => r.ports.map((p: any) => p.port))).not.toContain(9092);
  });
});

describe('metrics and alerts', () => {
  it("every process serves /metrics on its own metrics port, scraped when asked; the chart's alerts plus your own groups", () => {
    const objects = renderChart<K8sObject>('production', {
      set: [
        'metrics.scrape=true',
        'metrics.prometheusRule.enabled=true',
        'metrics.prometheusRule.groups[0].name=mine',
        'metrics.prometheusRule.groups[0].rules[0].alert=Example',
        'metrics.prometheusRule.groups[0].rules[0].expr=vector(1)',
      ],
    });
    const customers = find(objects, 'Deployment', 'customers');
    expect(customers.spec.template.metadata.annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': '9464',
      'prometheus.io/path': '/metrics',
    });
    expect(customers.spec.template.spec.containers[0].ports).toContainEqual({
      name: 'metrics',
      containerPort: 9464,
      protocol: 'TCP',
    });
    expect(find(objects, 'ConfigMap', 'gateway-config').data).toMatchObject({
      METRICS_PORT: '9464',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '1',
    });
    const groups = find(objects, 'PrometheusRule', 'ordering').spec.groups as {
      name: string;
      rules: any[];
    }[];
    expect(groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(['ordering.api', 'ordering.events', 'mine']),
    );
    for (const rule of groups.filter((g) => g.name !== 'mine').flatMap((g) => g.rules)) {
      expect(rule.annotations.runbook_url).toMatch(/^https:\/\/.+\/docs\/operations\.md#[a-z]+$/);
    }
    const plain = renderChart<K8sObject>('production');
    expect(plain.some((o) => o.kind === 'PrometheusRule')).toBe(false);
    expect(
      find(plain, 'Deployment', 'customers').spec.template.metadata.annotations['prometheus.io/scrape'],
    ).toBeUndefined();
  });
});

describe('NOTES.txt', () => {
  const installNotes = (environment: 'production' | 'test', set: string[]) => {
    const result = helm([
      'install',
      'ordering',
      chartDir,
      '--dry-run=client',
      '-n',
      ENVIRONMENTS[environment].namespace,
      '-f',
      ENVIRONMENTS[environment].values,
      ...set.flatMap((s) => ['--set', s]),
    ]);
    expect(result.status).toBe(0);
    return result.stdout.slice(result.stdout.indexOf('NOTES:'));
  };

  it.each(ENVIRONMENT_NAMES)(
    '%s: names every Secret the release references, the public hosts and the next steps',
    (environment) => {
      const notes = installNotes(environment, []);
      const objects = renderChart<K8sObject>(environment);
      const referenced = new Set<string>();
      for (const w of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
        for (const e of w.spec.template.spec.containers[0].env ?? []) {
          if (e.valueFrom?.secretKeyRef) referenced.add(e.valueFrom.secretKeyRef.name);
        }
      }
      for (const tls of find(objects, 'Ingress', 'ordering').spec.tls) referenced.add(tls.secretName);
      for (const secret of referenced) expect(`${secret}: ${notes.includes(secret)}`).toBe(`${secret}: true`);
      const hosts =
        environment === 'production'
          ? ['api.ordering.example', 'auth.ordering.example']
          : ['api.test.ordering.example', 'auth.test.ordering.example'];
      for (const host of hosts) expect(notes).toContain(`https://${host}`);
      expect(notes).toContain(
        `kubectl -n ${ENVIRONMENTS[environment].namespace} rollout status deploy/gateway`,
      );
      expect(notes).toContain('docs/operations.md');
    },
  );

  it.each([
    ['managed PostgreSQL', []],
    ['CloudNativePG and Kafka SASL', ['postgresql.cloudnativepg.enabled=true', 'kafka.sasl.mechanism=plain']],
  ])(
    'with %s: lists each Secret a pod reads with every key it reads, but the operator-generated ones',
    (_what, set) => {
      const notes = installNotes('production', set);
      const listed = new Map<string, string[]>();
      for (const m of notes.matchAll(/^ {5}([a-z0-9-]+) \(([A-Z0-9_, ]+)\)$/gm))
        listed.set(m[1]!, m[2]!.split(', '));
      const objects = renderChart<K8sObject>('production', { set });
      const generated = (name: string) => name.endsWith('-db-app'); // CloudNativePG's own
      for (const w of objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')) {
        for (const e of w.spec.template.spec.containers[0].env ?? []) {
          const ref = e.valueFrom?.secretKeyRef;
          if (!ref || generated(ref.name)) continue;
          expect(`${ref.name} ${ref.key}: ${listed.get(ref.name)?.includes(ref.key) ?? false}`).toBe(
            `${ref.name} ${ref.key}: true`,
          );
        }
      }
    },
  );
});

describe('the chart knows every process of the workspace', () => {
  it('each services/<name> package has an entry built from it, and so does the gateway', () => {
    const packages = new Set(chartProcesses().map((p) => p.package));
    const services = fs
      .readdirSync(path.join(repoRoot, 'services'))
      .filter((d) => fs.existsSync(path.join(repoRoot, 'services', d, 'package.json')))
      .map((d) => `services/${d}`);
    for (const pkg of [...services, 'gateway']) expect(`${pkg}: ${packages.has(pkg)}`).toBe(`${pkg}: true`);
  });

  it('no process is enabled by default before its package has landed (there would be no image)', () => {
    for (const p of chartProcesses().filter((x) => x.enabled))
      expect(`${p.name}: ${landed(p)}`).toBe(`${p.name}: true`);
  });
});
