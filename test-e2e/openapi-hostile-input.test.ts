// Hostile input against every operation of the served `/v1/openapi.json` (issue 7): NUL characters
// and lone surrogates in path parameters, query values and body strings, unknown fields, wrong
// types, deep nesting and bad cursors. No answer may be a fault (5xx other than the gateway's 503 for
// a service that is not running yet), and every answer must be one the document declares for that
// operation, in the documented error shape with the request id of its header. The walk iterates the
// document, so each endpoint is covered the day it is added. The gateway and the customers service
// run as their own processes; tokens come from a real RS256 issuer.
import { randomBytes } from 'node:crypto';
import { CustomersAdminClient, migrations } from '@ordering/customers-service';
import { createTestDatabase, startTestIssuer, type TestDatabase, type TestIssuer } from '@ordering/testing';
import { ResponseConformance } from './support/response-conformance';
import { startCustomersProcess, startGatewayProcess } from './support/platform-processes';
import type { ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `HOSTILE-${suffix}`;
const audience = 'http://api.hostile.test';
const ALL_SCOPES = 'orders:read orders:write catalog:read users:read users:write admin:all';

let issuer: TestIssuer;
let db: TestDatabase;
let customers: ServiceProcess;
let gateway: ServiceProcess;
let document: Json;
let conformance: ResponseConformance;

beforeAll(async () => {
  issuer = await startTestIssuer(audience);
  db = await createTestDatabase({ service: 'customers', migrations });
  customers = await startCustomersProcess({
    databaseUrl: db.url,
    brokers: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    secret,
  });
  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Hostile ${suffix}`, currency: 'USD' });
  // Only customers runs: every other service's operations answer the gateway's 503.
  gateway = await startGatewayProcess({
    issuer: issuer.issuer,
    jwksUrl: issuer.jwksUrl,
    audience,
    secret,
    customersUrl: customers.url,
    redisPrefix: `e2e-hostile-${suffix}:`,
  });
  document = (await (await fetch(`${gateway.url}/v1/openapi.json`)).json()) as Json;
  conformance = new ResponseConformance(document);
});

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), customers?.stop()]);
  await db?.drop();
  await issuer?.close();
});

interface Probe {
  what: string;
  method: string;
  template: string;
  path: string;
  body?: string;
  contentType?: string;
}

/** The operation's request body schema, references resolved (one level at a time). */
function bodySchemaOf(operation: Json): Json | undefined {
  const schema = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
  return schema ? conformance.deref(schema) : undefined;
}

/** A value of the wrong JSON type for a property schema. */
function wrongTypeFor(schema: Json): unknown {
  const s = conformance.deref(schema);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'string') return { not: 'a string' };
  if (type === 'integer' || type === 'number') return 'not a number';
  if (type === 'boolean') return 'not a boolean';
  if (type === 'array') return 'not an array';
  if (type === 'object') return ['not an object'];
  return { unexpected: true };
}

/** Every hostile request for one operation. */
function probesOf(template: string, method: string, operation: Json): Probe[] {
  const params = (operation.parameters ?? []).map((p: Json) => conformance.deref(p));
  const pathParams = params.filter((p: Json) => p.in === 'path').map((p: Json) => p.name as string);
  const query = params.filter((p: Json) => p.in === 'query');
  const queryParams = query.map((p: Json) => p.name as string);
  /** Query parameters whose value has a shape (a number, an enum, a date): a wrong one is refused. */
  const typedQueryParams = query
    .filter((p: Json) => {
      const schema = conformance.deref(p.schema ?? {});
      return schema.type !== 'string' || schema.enum || schema.format || schema.pattern;
    })
    .map((p: Json) => p.name as string);
  const fill = (value: (name: string) => string) =>
    template.replace(/\{([^}]+)\}/g, (_, name: string) => value(name));
  const plain = fill(() => `x-${suffix.toLowerCase()}`);
  const probes: Probe[] = [];
  const add = (what: string, path: string, body?: string, contentType?: string) =>
    probes.push({
      what,
      method,
      template,
      path,
      ...(body === undefined ? {} : { body }),
      ...(contentType ? { contentType } : {}),
    });

  for (const name of pathParams) {
    add(
      `NUL in path parameter ${name}`,
      fill((n) => (n === name ? 'a%00b' : `x-${suffix}`)),
    );
    add(
      `lone surrogate in path parameter ${name}`,
      fill((n) => (n === name ? 'a%ED%A0%80' : `x-${suffix}`)),
    );
  }
  for (const name of queryParams) add(`NUL in query ${name}`, `${plain}?${name}=a%00b`);
  for (const name of typedQueryParams)
    add(`wrong type in query ${name}`, `${plain}?${name}=${encodeURIComponent('[]{}')}`);
  if (queryParams.includes('starting_after')) {
    add('bad cursor', `${plain}?starting_after=not-a-cursor`);
    const forged = Buffer.from(JSON.stringify({ id: 'a\u0000' })).toString('base64url');
    add('forged cursor with NUL', `${plain}?starting_after=${forged}`);
  }
  // Public operations (the document itself) take no input worth refusing.
  if (operation.responses?.['422']) add('NUL in an undocumented query value', `${plain}?zz=%00`);

  const schema = bodySchemaOf(operation);
  if (schema) {
    const json = 'application/json';
    add('unknown field', plain, JSON.stringify({ definitely_not_a_field: 1 }), json);
    add('not an object', plain, JSON.stringify(['an', 'array']), json);
    add('deep nesting', plain, `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`, json);
    add('not JSON', plain, '{"unterminated', json);
    add('lone surrogate escape', plain, '{"x":"\\ud800"}', json);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
      add(`wrong type for ${name}`, plain, JSON.stringify({ [name]: wrongTypeFor(property) }), json);
      add(`NUL in ${name}`, plain, JSON.stringify({ [name]: 'a\u0000b' }), json);
      add(`lone surrogate in ${name}`, plain, `{${JSON.stringify(name)}:"\\udfff"}`, json);
    }
  }
  return probes;
}

describe('every operation of /v1/openapi.json under hostile input', () => {
  it('answers each probe with a documented status in the documented error shape, never a fault', async () => {
    const operations = Object.entries(document.paths as Json).flatMap(([template, ops]) =>
      Object.entries(ops as Json)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({
          template,
          method: method.toUpperCase(),
          operation: operation as Json,
        })),
    );
    // The document lists the routed API; at least the customers and users operations.
    expect(operations.length).toBeGreaterThanOrEqual(10);
    const probes = operations.flatMap((o) => probesOf(o.template, o.method, o.operation));

    const failures: string[] = [];
    let sent = 0;
    let token = '';
    for (const probe of probes) {
      // A fresh token (bucket) now and then: the walk must not meet the rate limit.
      if (sent++ % 150 === 0) token = issuer.mint({ cust_id: custId, login: 'hostile', scope: ALL_SCOPES });
      const res = await fetch(`${gateway.url}${probe.path}`, {
        method: probe.method,
        headers: {
          Authorization: `Bearer ${token}`,
          ...(probe.contentType ? { 'Content-Type': probe.contentType } : {}),
        },
        ...(probe.body === undefined ? {} : { body: probe.body }),
      });
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const label = `${probe.method} ${probe.path.slice(0, 120)} (${probe.what}) -> ${res.status}`;
      const problems = conformance.problems(probe.method, probe.template, {
        status: res.status,
        headers: res.headers,
        body,
      });
      if (res.status >= 500 && !(res.status === 503 && (body as Json)?.error?.code === 'service_unavailable'))
        problems.push('a fault');
      if (res.status < 400 || res.status === 405) problems.push('not refused');
      const error = (body as Json)?.error;
      if (!error || error.request_id !== res.headers.get('x-request-id'))
        problems.push(`no error body with the request id of the header: ${text.slice(0, 200)}`);
      if (problems.length) failures.push(`${label}: ${problems.join('; ')}`);
    }
    expect(failures).toEqual([]);
    // The walk really exercised the refusals it is about.
    expect(probes.length).toBeGreaterThan(100);
  });
});
