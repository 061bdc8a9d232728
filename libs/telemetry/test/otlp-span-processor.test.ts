// OTLP/HTTP protobuf export as production runs it: spans encoded as they end, sent in batches to a
// real HTTP receiver, and received as exactly the request the SDK's own serializer would have made
// of the same spans. The scenarios run in a process of their own (fixtures/otlp-protobuf-export.ts):
// the SDK's HTTP transport loads its modules with import(), which jest refuses.
import { execFile } from 'node:child_process';
import path from 'node:path';

const fixture = path.join(__dirname, 'fixtures', 'otlp-protobuf-export.ts');

let results: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [require.resolve('tsx/cli'), fixture],
      { timeout: 20_000 },
      (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
    ),
  );
  results = JSON.parse(stdout.trim().split('\n').pop()!) as typeof results;
}, 30_000);

describe('EncodingBatchSpanProcessor with the OTLP/HTTP protobuf exporter', () => {
  it('sends a full batch at once, to /v1/traces, as the SDK would have serialized it', () => {
    expect(results['full batch']).toEqual({
      requests: [{ path: '/v1/traces', contentType: 'application/x-protobuf' }],
      equal: true,
    });
  });

  it('sends what waits once the delay has passed, in order, batch by batch', () => {
    expect(results.delay).toEqual({ requests: 2, equal: [true, true] });
  });

  it('exports only sampled spans: a sampled-out request sends nothing, a sampled caller is followed', () => {
    expect(results.sampling).toEqual({ requests: 1, equal: true });
  });

  it('drops spans beyond the queue size instead of growing without bound', () => {
    expect(results['queue full']).toEqual({ requests: 1, equal: true });
  });

  it('reports a failed export from forceFlush and keeps exporting later batches', () => {
    expect(results.failure).toEqual({ flushes: ['rejected', 'rejected'], requests: 2 });
  });

  it('flushes on shutdown and ignores spans ended afterwards', () => {
    expect(results.shutdown).toEqual({ atShutdown: 1, after: 1 });
  });
});
