// Who can reach whom under the rendered NetworkPolicies, evaluated offline with Kubernetes'
// semantics (a pod selected by a policy of a direction allows only what some rule of such a policy
// allows; traffic needs the sender's egress and the receiver's ingress), against the architecture:
// from outside only the gateway and auth; inside, the calls docs/architecture.md draws. Checked on
// the chart with every process of the architecture enabled (also those not on main yet, so that
// their entries are right when they land) and on the plain manifests of k8s/ (the processes that
// are enabled by default).
import { ENVIRONMENTS, ENVIRONMENT_NAMES, renderChart } from '../helm-tool/chart';
import { chartProcesses } from './support/chart-processes';
import { renderPlain } from './support/renderings';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}
/** One end of a connection: a pod of some namespace, or an address outside the cluster. */
interface Endpoint {
  namespace?: { name: string; labels: Labels };
  labels?: Labels;
  ip: string;
  /** The destination port, by number and (for pods) by the container port's name. */
  ports?: Record<string, number>;
}

function selects(selector: Selector | undefined, labels: Labels | undefined): boolean {
  if (!selector) return true;
  const l = labels ?? {};
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => l[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) => {
    const has = e.key in l;
    if (e.operator === 'In') return has && e.values!.includes(l[e.key]!);
    if (e.operator === 'NotIn') return !has || !e.values!.includes(l[e.key]!);
    return e.operator === 'Exists' ? has : !has;
  });
  return byLabels && byExpressions;
}

function ipv4(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}
function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(ipv4(ip) / size) === Math.floor(ipv4(base!) / size);
}

/** Whether a peer of a rule (`from` / `to` element) matches an endpoint, seen from `policyNamespace`. */
function peerMatches(peer: any, endpoint: Endpoint, policyNamespace: string): boolean {
  if (peer.ipBlock) {
    return (
      inCidr(endpoint.ip, peer.ipBlock.cidr) &&
      !(peer.ipBlock.except ?? []).some((c: string) => inCidr(endpoint.ip, c))
    );
  }
  if (!endpoint.namespace) return false; // selectors only match pods
  const namespaceOk = peer.namespaceSelector
    ? selects(peer.namespaceSelector, endpoint.namespace.labels)
    : endpoint.namespace.name === policyNamespace;
  return namespaceOk && (!peer.podSelector || selects(peer.podSelector, endpoint.labels));
}

function portMatches(rulePorts: any[] | undefined, port: string, destination: Endpoint): boolean {
  if (!rulePorts || rulePorts.length === 0) return true;
  const number = destination.ports?.[port] ?? Number(port);
  return rulePorts.some(
    (p) => (p.protocol ?? 'TCP') === 'TCP' && (p.port === port || p.port === number || p.port === undefined),
  );
}

/** The policies of `pod`'s namespace that select it for `direction`. */
function applying(policies: any[], direction: 'Ingress' | 'Egress', pod: Endpoint): any[] {
  return policies.filter(
    (p) =>
      p.metadata.namespace === pod.namespace?.name &&
      selects(p.spec.podSelector, pod.labels) &&
      (p.spec.policyTypes ?? ['Ingress']).includes(direction),
  );
}

/** Whether `direction`'s policies of `pod` let it talk to `peer`, on `port` of `destination`. */
function allowedFor(
  policies: any[],
  direction: 'Ingress' | 'Egress',
  pod: Endpoint,
  peer: Endpoint,
  port: string,
  destination: Endpoint,
): boolean {
  if (!pod.namespace) return true; // outside the cluster: none of our policies applies
  const selected = applying(policies, direction, pod);
  if (selected.length === 0) return true;
  const [rulesKey, peersKey] = direction === 'Ingress' ? ['ingress', 'from'] : ['egress', 'to'];
  return selected.some((policy) =>
    (policy.spec[rulesKey] ?? []).some(
      (rule: any) =>
        (!rule[peersKey] ||
          rule[peersKey].some((p: any) => peerMatches(p, peer, policy.metadata.namespace))) &&
        portMatches(rule.ports, port, destination),
    ),
  );
}

/** A connection from `source` to `port` of `destination` is allowed by both ends' policies. */
function canConnect(policies: any[], source: Endpoint, destination: Endpoint, port: string): boolean {
  return (
    allowedFor(policies, 'Egress', source, destination, port, destination) &&
    allowedFor(policies, 'Ingress', destination, source, port, destination)
  );
}

const ALL_PROCESSES = [
  'gateway',
  'auth',
  'orders',
  'catalog',
  'customers',
  'approvals',
  'webhooks',
  'developer-portal',
] as const;
type Process = (typeof ALL_PROCESSES)[number];

/** Which in-namespace calls the architecture has (docs/architecture.md): caller -> callees. */
const CALLS: Record<Process, Process[]> = {
  gateway: ['auth', 'orders', 'catalog', 'customers', 'approvals', 'webhooks'], // JWKS; the routed API
  auth: ['customers'], // credentials, just-in-time sign-up
  orders: ['catalog', 'customers', 'approvals'], // prices per account; addresses, settings, reach; which chain applies
  catalog: ['customers'], // account reach and inherited terms
  customers: [],
  approvals: ['orders', 'customers'], // the preview's quote; reach of approvers, account admins
  webhooks: ['catalog', 'customers'], // per-account item views; account reach of deliveries
  'developer-portal': ['gateway'], // the API with the signed-in admin's token
};
/** Who uses which infrastructure. */
const USES: Record<Process, { pg: boolean; kafka: boolean; redis: boolean }> = {
  gateway: { pg: false, kafka: false, redis: true },
  auth: { pg: true, kafka: true, redis: true },
  orders: { pg: true, kafka: true, redis: false },
  catalog: { pg: true, kafka: true, redis: false },
  customers: { pg: true, kafka: true, redis: false },
  approvals: { pg: true, kafka: true, redis: false },
  webhooks: { pg: true, kafka: true, redis: false },
  'developer-portal': { pg: false, kafka: false, redis: true }, // sessions
};

const enabledByDefault = new Set(
  chartProcesses()
    .filter((p) => p.enabled)
    .map((p) => p.name),
);
const everyProcess = ALL_PROCESSES.map((name) => `processes.${name}.enabled=true`);

describe.each(
  ENVIRONMENT_NAMES.flatMap((environment) => [
    {
      label: `the chart (${environment}, every process)`,
      namespace: ENVIRONMENTS[environment].namespace,
      // As `helm install -n` applies them: into the release's namespace.
      objects: renderChart<any>(environment, { set: everyProcess }).map((o) => ({
        ...o,
        metadata: { namespace: ENVIRONMENTS[environment].namespace, ...o.metadata },
      })),
      PROCESSES: [...ALL_PROCESSES],
    },
    {
      label: `k8s/${environment}`,
      namespace: ENVIRONMENTS[environment].namespace,
      objects: renderPlain(environment),
      PROCESSES: ALL_PROCESSES.filter((name) => enabledByDefault.has(name)),
    },
  ]),
)('network policies of $label', ({ namespace, objects, PROCESSES }) => {
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const ns = { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } };
  const pods = Object.fromEntries(
    PROCESSES.map((name, i) => {
      const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
      const container = deployment.spec.template.spec.containers[0];
      const ports = Object.fromEntries(container.ports.map((p: any) => [p.name, p.containerPort]));
      const pod: Endpoint = {
        namespace: ns,
        labels: deployment.spec.template.metadata.labels,
        ip: `10.244.0.${10 + i}`,
        ports,
      };
      return [name, pod];
    }),
  ) as Record<Process, Endpoint>;
  const ingressController: Endpoint = {
    namespace: { name: 'ingress-nginx', labels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } },
    labels: { 'app.kubernetes.io/name': 'ingress-nginx' },
    ip: '10.244.9.9',
  };
  const otherNamespacePod: Endpoint = {
    namespace: { name: 'someone-else', labels: { 'kubernetes.io/metadata.name': 'someone-else' } },
    labels: { 'app.kubernetes.io/name': 'customers' }, // even with a look-alike label
    ip: '10.244.8.8',
  };
  const postgres: Endpoint = { ip: '10.20.0.5' };
  const kafka: Endpoint = { ip: '10.20.0.6' };
  const redis: Endpoint = { ip: '10.20.0.7' };
  const dns: Endpoint = {
    namespace: { name: 'kube-system', labels: { 'kubernetes.io/metadata.name': 'kube-system' } },
    labels: { 'k8s-app': 'kube-dns' },
    ip: '10.96.0.10',
  };

  it('there are policies, and every pod of the namespace is under a default deny both ways', () => {
    for (const name of PROCESSES) {
      expect(applying(policies, 'Ingress', pods[name]).length).toBeGreaterThan(0);
      expect(applying(policies, 'Egress', pods[name]).length).toBeGreaterThan(0);
    }
    const stranger: Endpoint = {
      namespace: ns,
      labels: { app: 'debug-shell' },
      ip: '10.244.0.99',
      ports: { http: 8080 },
    };
    expect(canConnect(policies, stranger, pods.customers, 'http')).toBe(false);
    expect(canConnect(policies, pods.gateway, stranger, 'http')).toBe(false);
  });

  it.each(PROCESSES)(
    'from outside the namespace, %s is reachable only if it is the gateway, auth or the portal',
    (name) => {
      const publicHost = name === 'gateway' || name === 'auth' || name === 'developer-portal';
      expect(canConnect(policies, ingressController, pods[name], 'http')).toBe(publicHost);
      expect(canConnect(policies, otherNamespacePod, pods[name], 'http')).toBe(publicHost);
    },
  );

  it.each(PROCESSES)('%s calls exactly the processes the architecture says it calls', (caller) => {
    const reachable = PROCESSES.filter(
      (callee) => callee !== caller && canConnect(policies, pods[caller], pods[callee], 'http'),
    );
    expect(reachable).toEqual(PROCESSES.filter((callee) => CALLS[caller].includes(callee)));
  });

  it('only the http port of a process is open to its callers', () => {
    const debugPort = { ...pods.customers, ports: { ...pods.customers.ports, inspector: 9229 } };
    expect(canConnect(policies, pods.gateway, debugPort, 'inspector')).toBe(false);
  });

  it.each(PROCESSES)('%s resolves names through the cluster DNS', (name) => {
    expect(canConnect(policies, pods[name], dns, '53')).toBe(true);
  });

  it('PostgreSQL and Kafka for the services with a database, Redis for the gateway, auth and the portal only', () => {
    const uses = USES;
    for (const name of PROCESSES) {
      const actual = {
        pg: canConnect(policies, pods[name], postgres, '5432'),
        kafka: canConnect(policies, pods[name], kafka, '9092'),
        redis: canConnect(policies, pods[name], redis, '6379'),
      };
      expect({ name, ...actual }).toEqual({ name, ...uses[name] });
    }
  });

  it('the topic Job reaches Kafka and DNS only, and nothing reaches it', () => {
    const job = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'kafka-topics');
    const topics: Endpoint = {
      namespace: ns,
      labels: job.spec.template.metadata.labels,
      ip: '10.244.0.50',
      ports: { http: 8080 },
    };
    expect(canConnect(policies, topics, kafka, '9092')).toBe(true);
    expect(canConnect(policies, topics, dns, '53')).toBe(true);
    expect(canConnect(policies, topics, postgres, '5432')).toBe(false);
    expect(canConnect(policies, topics, redis, '6379')).toBe(false);
    expect(canConnect(policies, topics, { ip: '203.0.113.20' }, '443')).toBe(false);
    for (const name of PROCESSES) {
      expect(`${name} ${canConnect(policies, topics, pods[name], 'http')}`).toBe(`${name} false`);
      expect(`${name} ${canConnect(policies, pods[name], topics, 'http')}`).toBe(`${name} false`);
    }
  });

  it('with Helm, the migration Jobs reach PostgreSQL and DNS only, and nothing reaches them', () => {
    const jobs = objects.filter((o) => o.kind === 'Job' && o.metadata.name.endsWith('-migrations'));
    if (!objects.some((o) => o.metadata.annotations?.['helm.sh/hook'])) {
      expect(jobs).toEqual([]); // k8s/: the processes migrate at start
      return;
    }
    expect(jobs.map((j) => j.metadata.name).sort()).toEqual(
      PROCESSES.filter((p) => USES[p].pg)
        .map((p) => `${p}-migrations`)
        .sort(),
    );
    for (const job of jobs) {
      const pod: Endpoint = { namespace: ns, labels: job.spec.template.metadata.labels, ip: '10.244.0.60' };
      const id = job.metadata.name;
      expect(`${id} ${canConnect(policies, pod, postgres, '5432')}`).toBe(`${id} true`);
      expect(`${id} ${canConnect(policies, pod, dns, '53')}`).toBe(`${id} true`);
      expect(`${id} ${canConnect(policies, pod, kafka, '9092')}`).toBe(`${id} false`);
      expect(`${id} ${canConnect(policies, pod, redis, '6379')}`).toBe(`${id} false`);
      for (const name of PROCESSES) {
        expect(`${id} -> ${name} ${canConnect(policies, pod, pods[name], 'http')}`).toBe(
          `${id} -> ${name} false`,
        );
        expect(
          `${name} -> ${id} ${canConnect(policies, pods[name], { ...pod, ports: { http: 8080 } }, 'http')}`,
        ).toBe(`${name} -> ${id} false`);
      }
    }
  });

  it.each(PROCESSES)('%s exports traces and metrics to the OpenTelemetry collector', (name) => {
    const collector: Endpoint = { ip: '10.20.0.9' };
    expect(canConnect(policies, pods[name], collector, '4318')).toBe(true);
    expect(canConnect(policies, pods[name], collector, '4317')).toBe(true);
  });

  it('webhooks deliver to public addresses only, on the port a receiver URL names; nothing else leaves for the internet', () => {
    const receiver: Endpoint = { ip: '203.0.113.20' };
    // The API accepts https://host:8443/ as a receiver: the cluster must let it be delivered.
    for (const port of ['443', '8443'])
      expect(canConnect(policies, pods.webhooks, receiver, port)).toBe(true);
    for (const internal of [
      '10.1.2.3',
      '172.16.5.5',
      '192.168.1.1',
      '169.254.169.254',
      '127.0.0.1',
      '100.64.0.1',
    ]) {
      for (const port of ['443', '8443'])
        expect(`${internal}:${port} ${canConnect(policies, pods.webhooks, { ip: internal }, port)}`).toBe(
          `${internal}:${port} false`,
        );
    }
    for (const name of PROCESSES.filter((n) => !['webhooks', 'developer-portal', 'auth'].includes(n))) {
      expect(canConnect(policies, pods[name], receiver, '443')).toBe(false);
      expect(canConnect(policies, pods[name], receiver, '8443')).toBe(false);
    }
  });

  it('the portal reaches the public OAuth host over HTTPS (443 only), and no private address', () => {
    if (!PROCESSES.includes('developer-portal')) return;
    const oauthHost: Endpoint = { ip: '203.0.113.30' };
    expect(canConnect(policies, pods['developer-portal'], oauthHost, '443')).toBe(true);
    expect(canConnect(policies, pods['developer-portal'], oauthHost, '8443')).toBe(false);
    expect(canConnect(policies, pods['developer-portal'], { ip: '10.1.2.3' }, '443')).toBe(false);
  });

  it("auth reaches a company's identity provider over HTTPS (443 only) for federated sign-in, and no private address", () => {
    const identityProvider: Endpoint = { ip: '203.0.113.40' };
    expect(canConnect(policies, pods.auth, identityProvider, '443')).toBe(true);
    expect(canConnect(policies, pods.auth, identityProvider, '8443')).toBe(false);
    for (const internal of ['10.1.2.3', '169.254.169.254', '192.168.1.1'])
      expect(`${internal} ${canConnect(policies, pods.auth, { ip: internal }, '443')}`).toBe(
        `${internal} false`,
      );
  });
});

describe('network policies with CloudNativePG instances in the namespace', () => {
  const namespace = ENVIRONMENTS.production.namespace;
  const objects = renderChart<any>('production', { set: ['postgresql.cloudnativepg.enabled=true'] }).map(
    (o) => ({ ...o, metadata: { namespace, ...o.metadata } }),
  );
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  const ns = { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } };
  const podOf = (name: string, ip: string): Endpoint => ({
    namespace: ns,
    labels: objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name).spec.template.metadata
      .labels,
    ip,
  });
  const instance = (cluster: string, ip: string): Endpoint => ({
    namespace: ns,
    labels: { 'cnpg.io/cluster': cluster, 'cnpg.io/instanceRole': 'primary' },
    ip,
  });
  const orders = podOf('orders', '10.244.0.10');
  const ordersDb = instance('orders-db', '10.244.1.10');
  const ordersReplica = instance('orders-db', '10.244.1.11');
  const operator: Endpoint = {
    namespace: { name: 'cnpg-system', labels: { 'kubernetes.io/metadata.name': 'cnpg-system' } },
    labels: { 'app.kubernetes.io/name': 'cloudnative-pg' },
    ip: '10.244.7.7',
  };

  it('the processes reach the instances on PostgreSQL; the instances reach each other; the operator its ports', () => {
    expect(canConnect(policies, orders, ordersDb, '5432')).toBe(true);
    expect(canConnect(policies, orders, ordersDb, '8000')).toBe(false);
    expect(canConnect(policies, ordersReplica, ordersDb, '5432')).toBe(true);
    expect(canConnect(policies, ordersReplica, ordersDb, '8000')).toBe(true);
    expect(canConnect(policies, operator, ordersDb, '8000')).toBe(true);
    expect(canConnect(policies, operator, ordersDb, '5432')).toBe(true);
  });

  it('nothing else reaches them, and the processes stay under the default deny', () => {
    const stranger: Endpoint = { namespace: ns, labels: { app: 'debug-shell' }, ip: '10.244.0.99' };
    const elsewhere: Endpoint = {
      namespace: { name: 'someone-else', labels: { 'kubernetes.io/metadata.name': 'someone-else' } },
      labels: { 'app.kubernetes.io/name': 'cloudnative-pg' },
      ip: '10.244.8.8',
    };
    for (const source of [stranger, elsewhere]) {
      expect(canConnect(policies, source, ordersDb, '5432')).toBe(false);
      expect(canConnect(policies, source, ordersDb, '8000')).toBe(false);
    }
    expect(canConnect(policies, stranger, podOf('customers', '10.244.0.12'), '8103')).toBe(false);
    expect(canConnect(policies, orders, { ip: '203.0.113.20' }, '443')).toBe(false);
  });

  it("the instances may call the Kubernetes API (their manager's status and leader election)", () => {
    expect(canConnect(policies, ordersDb, { ip: '10.96.0.1' }, '443')).toBe(true);
  });
});
