import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportersFromEnv } from '../src';

const fixture = path.join(__dirname, 'fixtures', 'traced-http-roundtrip.ts');
const register = path.join(__dirname, '..', 'src', 'register.ts');

interface OtlpSpan {
  traceId: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string } }[];
}

/** An OTLP/HTTP (JSON) receiver collecting the spans posted to /v1/traces. */
async function startOtlpReceiver() {
  const spans: OtlpSpan[] = [];
  const services = new Set<string>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const payload = JSON.parse(body) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: OtlpSpan[] }[];
          }[];
        };
        for (const rs of payload.resourceSpans) {
          const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          if (name) services.add(name);
          for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
      }
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, services, close: () => new Promise((resolve) => server.close(resolve)) };
}

function runFixture(
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));
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
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

function seenBy(stdout: string): { path: string; traceId: string | undefined }[] {
  const line = stdout.trim().split('\n').pop()!;
  return (JSON.parse(line) as { seen: { path: string; traceId: string | undefined }[] }).seen;
}

describe('startTelemetry via --require register', () => {
  it('exports server and client spans of one trace over OTLP when an endpoint is configured', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const run = await runFixture({
        OTEL_SERVICE_NAME: 'telemetry-test',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      expect(run.code).toBe(0);
      const seen = seenBy(run.stdout);
      const orders = seen.find((s) => s.path.startsWith('/v1/orders'))!;
      expect(orders.traceId).toMatch(/^[0-9a-f]{32}$/);

      expect(receiver.services).toEqual(new Set(['telemetry-test']));
      const ofTrace = receiver.spans.filter((s) => s.traceId === orders.traceId);
      // OTLP span kinds: 2 SERVER (http instrumentation), 3 CLIENT (undici instrumentation of fetch).
      expect(ofTrace.map((s) => s.kind).sort()).toEqual([2, 3]);
      // The readiness probe made no span.
      const probe = seen.find((s) => s.path === '/healthz')!;
      expect(receiver.spans.filter((s) => s.traceId === probe.traceId && s.kind === 2)).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('exports nothing without an endpoint, yet still creates trace context for logs and Kafka headers', async () => {
    const run = await runFixture({ OTEL_SERVICE_NAME: 'telemetry-test' });
    expect(run.code).toBe(0);
    const seen = seenBy(run.stdout);
    expect(seen[0]!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toBe('');
  });

  it('prints spans with OTEL_TRACES_EXPORTER=console', async () => {
    const run = await runFixture({ OTEL_SERVICE_NAME: 'telemetry-test', OTEL_TRACES_EXPORTER: 'console' });
    expect(run.code).toBe(0);
    const seen = seenBy(run.stdout);
    expect(run.stdout).toContain(`traceId: '${seen[0]!.traceId}'`);
  });

  it('is off with OTEL_SDK_DISABLED=true: no span, no trace id', async () => {
    const run = await runFixture({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console' });
    expect(run.code).toBe(0);
    expect(seenBy(run.stdout)[0]!.traceId).toBeUndefined();
  });
});

describe('exportersFromEnv', () => {
  it('prefers the explicit variable, else otlp with an endpoint, else none', () => {
    expect(exportersFromEnv({ OTEL_TRACES_EXPORTER: 'console,otlp' }, 'TRACES')).toEqual(['console', 'otlp']);
    expect(exportersFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://x:4318' }, 'TRACES')).toEqual([
      'otlp',
    ]);
    expect(exportersFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' }, 'METRICS')).toEqual(['otlp']);
    expect(exportersFromEnv({}, 'LOGS')).toEqual(['none']);
  });
});
