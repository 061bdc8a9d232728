// The CPU the gateway's tracing adds to one request, without the network: the exact calls the
// gateway makes per request (libs/telemetry: the request span with its attributes, `gateway
// admission`, `forward <service>` with its injected traceparent, the duration metric, the
// traceresponse value), through the real SDK with the production settings: batched OTLP/HTTP
// protobuf export to a sink in another process (so that only the exporting side is measured here),
// every request sampled unless BENCH_SAMPLE_RATIO says otherwise. Compared with the same calls with
// telemetry off (the API's no-op). Alternating rounds, median. Less sensitive to a busy machine
// than gateway-overhead.ts, whose figure it complements (there, on = off + this, plus noise).
//
// BENCH_SHAPE=service measures a service's DB-backed GET instead (the customers service's
// `GET /v1/customers/{cust_id}`): the SERVER span continuing the gateway's `traceparent`, and a
// CLIENT span for each of its three queries, from knex's query events (db-tracing.ts).
//
//   tsx gateway/bench/tracing-cost.ts     (BENCH_REQUESTS=50000 ROUNDS=5 BENCH_SAMPLE_RATIO=1,
//                                          BENCH_SHAPE=gateway|service,
//                                          BENCH_PORTS=18400-18499 for the sink's port)
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { context } from '@opentelemetry/api';
import {
  ATTR,
  endRequestTelemetry,
  paramAttributes,
  shutdownTelemetry,
  startClientSpan,
  startRequestTelemetry,
  startTelemetry,
  traceKnexQueries,
  tracer,
} from '@ordering/telemetry';
import { freePort } from './bench-ports';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 50_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** An OTLP/HTTP receiver in a child process: reads and drops what it gets. */
async function startSink(): Promise<{ url: string; stop(): void }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()); });
       s.listen(Number(process.env.PORT), '127.0.0.1', () => console.log(s.address().port));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PORT: String(port) } },
  );
  return new Promise((resolve) => {
    child.stdout.once('data', (d: Buffer) =>
      resolve({ url: `http://127.0.0.1:${d.toString().trim()}`, stop: () => child.kill() }),
    );
  });
}

const headers = { host: 'api.example', authorization: 'Bearer x', accept: 'application/json' };

/** One request's telemetry, as api-request-handler.ts and request-telemetry.ts make it. */
async function oneRequest(i: number): Promise<void> {
  const t = startRequestTelemetry({
    method: 'GET',
    headers,
    trustIncomingContext: false,
    requestId: `req_${i}`,
  });
  await context.with(t.context, async () => {
    if (t.span.isRecording()) t.span.setAttributes(paramAttributes({ id: 'ord_123' }, '/v1/orders/{id}'));
    const admission = tracer().startSpan('gateway admission');
    if (admission.isRecording()) {
      const who = { [ATTR.custId]: 'ACME', [ATTR.clientId]: 'bench' };
      admission.setAttributes(who);
      t.span.setAttributes(who);
    }
    await Promise.resolve(); // the Redis round trip
    admission.end();
    const { span, headers: trace } = startClientSpan('forward orders', { [ATTR.service]: 'orders' });
    if (!trace.traceparent && t.traceResponse) throw new Error('no traceparent injected');
    await Promise.resolve(); // the upstream answer
    if (span.isRecording()) span.setAttribute('http.response.status_code', 200);
    span.end();
  });
  endRequestTelemetry(t, { method: 'GET', route: '/v1/orders/{id}', status: 200 });
}

/** Stands in for knex: the events it emits around each query, as db-tracing.ts listens to them. */
const knex = new EventEmitter();
traceKnexQueries(knex, { dbName: 'customers' });
// The customers service's three statements (reach check, account, addresses), as knex sends them.
const STATEMENTS = [
  'with recursive lineage as (select "id", "parent_id" from "customers" where "id" = ? union all select c."id", c."parent_id" from "customers" c join lineage l on c."id" = l."parent_id") select 1 from lineage where "id" = ? limit ?',
  'select * from "customers" where "id" = ? limit ?',
  'select * from "customer_addresses" where "cust_id" in (?) order by "cust_id" asc, "position" asc',
];
const gatewayHeaders = {
  ...headers,
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
};
let queryUid = 0;

/** One DB-backed GET's telemetry in a service behind the gateway. */
async function oneServiceRequest(i: number): Promise<void> {
  const t = startRequestTelemetry({
    method: 'GET',
    headers: gatewayHeaders,
    trustIncomingContext: true,
    requestId: `req_${i}`,
  });
  await context.with(t.context, async () => {
    for (const sql of STATEMENTS) {
      const data = { __knexQueryUid: String(++queryUid), sql, method: 'select' };
      knex.emit('query', data);
      await Promise.resolve(); // the round trip to PostgreSQL
      knex.emit('query-response', [], data);
    }
    if (t.span.isRecording()) {
      t.span.setAttributes(paramAttributes({ cust_id: 'BENCH' }, '/v1/customers/{cust_id}'));
      t.span.setAttribute('ordering.cust_id', 'BENCH');
    }
  });
  endRequestTelemetry(t, { method: 'GET', route: '/v1/customers/{cust_id}', status: 200 });
}

const shape = process.env.BENCH_SHAPE ?? 'gateway';
const request = shape === 'service' ? oneServiceRequest : oneRequest;

async function run(requests: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    await request(i);
    // Let the batch processor's timer and the exporter's sockets run, as between real requests.
    if (i % 256 === 0) await new Promise((r) => setImmediate(r));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

async function main(): Promise<void> {
  const sink = await startSink();
  const on: number[] = [];
  const off: number[] = [];
  // Off first (no provider registered: the API's no-op), then on, alternating by restarting.
  for (let round = 0; round < ROUNDS; round++) {
    await run(2000);
    off.push(await run(REQUESTS));
    startTelemetry({
      service: 'gateway',
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: process.env.BENCH_SAMPLE_RATIO ?? '1',
      },
    });
    await run(2000);
    const perRequest = await run(REQUESTS);
    // Include the export of what is still queued.
    const before = process.cpuUsage();
    await shutdownTelemetry();
    const flush = process.cpuUsage(before);
    on.push(perRequest + (flush.user + flush.system) / REQUESTS);
  }
  sink.stop();
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  console.log(
    `${shape}: ${ROUNDS} rounds of ${REQUESTS} requests, sampling ratio ${process.env.BENCH_SAMPLE_RATIO ?? '1'}`,
  );
  console.log(
    `  telemetry off: ${off.map((v) => v.toFixed(1)).join(', ')} µs per request (median ${median(off).toFixed(1)})`,
  );
  console.log(
    `  telemetry on:  ${on.map((v) => v.toFixed(1)).join(', ')} µs per request (median ${median(on).toFixed(1)})`,
  );
  console.log(
    shape === 'service'
      ? `  tracing CPU per DB-backed GET in a service: ${(median(on) - median(off)).toFixed(1)} µs`
      : `  tracing CPU per request at the gateway: ${(median(on) - median(off)).toFixed(1)} µs (target <= 40)`,
  );
}

void main();
