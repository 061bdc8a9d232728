import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportersFromEnv, parseTraceResponse, samplerFromEnv } from '../src';

const fixture = path.join(__dirname, 'fixtures', 'traced-http-roundtrip.ts');
const register = path.join(__dirname, '..', 'src', 'register.ts');

interface Received {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: string;
  service: string;
}

/** A receiver of OTLP/HTTP JSON (/v1/traces) and Zipkin v2 JSON (/api/v2/spans). */
async function startReceiver() {
  const spans: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: {
              spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number }[];
            }[];
          }[];
        };
        for (const rs of payload.resourceSpans) {
          const service =
            rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: ['', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'][s.kind] ?? '',
                service,
              });
        }
      }
      if (req.url === '/api/v2/spans') {
        for (const s of JSON.parse(body) as {
          traceId: string;
          id: string;
          parentId?: string;
          name: string;
          kind: string;
          localEndpoint: { serviceName: string };
        }[]) {
          spans.push({
            traceId: s.traceId,
            spanId: s.id,
            parentSpanId: s.parentId,
            name: s.name,
            kind: s.kind,
            service: s.localEndpoint.serviceName,
          });
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, close: () => new Promise((resolve) => server.close(resolve)) };
}

interface Seen {
  path: string;
  traceId: string | undefined;
  traceparent: string | undefined;
  traceresponse: string | undefined;
}
interface FixtureOutput {
  seen: Seen[];
  clientTraceResponse: string | null;
  metrics?: string;
}

function runFixture(
  env: Record<string, string>,
): Promise<{ out: FixtureOutput; stdout: string; stderr: string; code: number | null }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_') && k !== 'METRICS_PORT'),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), '--require', register, fixture], {
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '{}';
      resolve({ out: JSON.parse(line) as FixtureOutput, stdout, stderr, code });
    });
  });
}

const byPath = (out: FixtureOutput, prefix: string) => out.seen.find((s) => s.path.startsWith(prefix))!;

describe('telemetry started by --require register', () => {
  it('exports one trace over OTLP: public SERVER span, CLIENT call, internal SERVER span, parents right', async () => {
    const receiver = await startReceiver();
    try {
      const { out, code, stderr } = await runFixture({
        OTEL_SERVICE_NAME: 'telemetry-test',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      const publicSide = byPath(out, '/v1/orders');
      const internal = byPath(out, '/internal/orders');
      // The public endpoint did not continue the client's trace; the internal one continued ours.
      expect(publicSide.traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
      expect(internal.traceId).toBe(publicSide.traceId);
      expect(out.clientTraceResponse).toBe(publicSide.traceresponse);
      expect(parseTraceResponse(out.clientTraceResponse)).toMatchObject({
        traceId: publicSide.traceId,
        sampled: true,
      });

      const trace = receiver.spans.filter((s) => s.traceId === publicSide.traceId);
      expect(trace.map((s) => `${s.kind} ${s.name}`).sort()).toEqual([
        'CLIENT GET internal',
        'SERVER GET /internal/orders',
        'SERVER GET /v1/orders?limit=1',
      ]);
      const root = trace.find((s) => s.name.startsWith('GET /v1'))!;
      const client = trace.find((s) => s.kind === 'CLIENT')!;
      const callee = trace.find((s) => s.name.startsWith('GET /internal'))!;
      expect(root.parentSpanId).toBeUndefined();
      expect(client.parentSpanId).toBe(root.spanId);
      expect(callee.parentSpanId).toBe(client.spanId);
      expect(internal.traceparent).toBe(`00-${root.traceId}-${client.spanId}-01`);
      expect(new Set(trace.map((s) => s.service))).toEqual(new Set(['telemetry-test']));
    } finally {
      await receiver.close();
    }
  });

  it('exports to Zipkin with OTEL_TRACES_EXPORTER=zipkin', async () => {
    const receiver = await startReceiver();
    try {
      const { out, code } = await runFixture({
        OTEL_SERVICE_NAME: 'zipkin-test',
        OTEL_TRACES_EXPORTER: 'zipkin',
        OTEL_EXPORTER_ZIPKIN_ENDPOINT: `${receiver.url}/api/v2/spans`,
      });
      expect(code).toBe(0);
      const traceId = byPath(out, '/v1/orders').traceId;
      const trace = receiver.spans.filter((s) => s.traceId === traceId);
      expect(trace.map((s) => s.kind).sort()).toEqual(['CLIENT', 'SERVER', 'SERVER']);
      expect(trace[0]!.service).toBe('zipkin-test');
    } finally {
      await receiver.close();
    }
  });

  it('a request the public side samples out is sampled out downstream too, yet names its trace', async () => {
    const receiver = await startReceiver();
    try {
      const { out, code } = await runFixture({
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0',
      });
      expect(code).toBe(0);
      const publicSide = byPath(out, '/v1/orders');
      expect(parseTraceResponse(publicSide.traceresponse)).toMatchObject({ sampled: false });
      expect(byPath(out, '/internal/orders').traceparent).toMatch(
        new RegExp(`^00-${publicSide.traceId}-[0-9a-f]{16}-00$`),
      );
      expect(receiver.spans).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('serves the request metrics for Prometheus on METRICS_PORT', async () => {
    const { out, code } = await runFixture({ METRICS_PORT: '0', OTEL_SERVICE_NAME: 'metrics-test' });
    expect(code).toBe(0);
    expect(out.metrics).toMatch(
      /http_server_request_duration_count\{http_request_method="GET",http_route="\/internal\/orders",http_response_status_code="200"[^}]*\} 1/,
    );
  });

  it('exports nothing without an exporter or endpoint, yet still creates trace context', async () => {
    const { out, code, stdout, stderr } = await runFixture({ OTEL_SERVICE_NAME: 'telemetry-test' });
    expect(code).toBe(0);
    expect(out.seen[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stderr).toBe('');
  });

  it('prints spans with OTEL_TRACES_EXPORTER=console', async () => {
    const { out, code, stdout } = await runFixture({ OTEL_TRACES_EXPORTER: 'console' });
    expect(code).toBe(0);
    expect(stdout).toContain(`traceId: '${out.seen[0]!.traceId}'`);
  });

  it('is off with OTEL_SDK_DISABLED=true: no span, no trace id, no traceresponse', async () => {
    const { out, code } = await runFixture({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console' });
    expect(code).toBe(0);
    expect(out.seen[0]!.traceId).toBeUndefined();
    expect(out.clientTraceResponse).toBeNull();
  });
});

describe('settings from the environment', () => {
  it('exporters: the explicit variable, else otlp with an endpoint, else none', () => {
    expect(exportersFromEnv({ OTEL_TRACES_EXPORTER: 'console,otlp' }, 'TRACES')).toEqual(['console', 'otlp']);
    expect(exportersFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x:4318' }, 'TRACES')).toEqual([
      'otlp',
    ]);
    expect(exportersFromEnv({}, 'LOGS')).toEqual(['none']);
  });

  it('sampler: parent-based ratio by default, refusing a ratio outside 0..1 and unknown names', () => {
    expect(samplerFromEnv({}).toString()).toMatch(/ParentBased.*TraceIdRatioBased\{1\}/);
    expect(samplerFromEnv({ OTEL_TRACES_SAMPLER_ARG: '0.1' }).toString()).toMatch(/TraceIdRatioBased\{0.1\}/);
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/between 0 and 1/);
    expect(() => samplerFromEnv({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toThrow(/not supported/);
  });
});
