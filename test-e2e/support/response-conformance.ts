// Checks real answers against the served OpenAPI document (JSON Schema 2020-12, the dialect of
// OpenAPI 3.1): the operation's response for the status, its required headers and its body.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Checks an answer against the document: the operation's response for its status, body and headers. */
export class ResponseConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
  }

  deref(node: Json): Json {
    if (!node.$ref) return node;
    return (node.$ref as string)
      .slice(2)
      .split('/')
      .reduce((n: Json, key: string) => n[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  /** The document's path template of a concrete path (`/v1/orders/ord_1?x=1` is `/v1/orders/{id}`). */
  templateOf(path: string): string | undefined {
    const segments = path.split('?')[0]!.split('/');
    let best: { template: string; literals: number } | undefined;
    for (const template of Object.keys(this.doc.paths as Json)) {
      const parts = template.split('/');
      if (parts.length !== segments.length) continue;
      let literals = 0;
      const matches = parts.every((part, i) => {
        if (/^\{[^}]+\}$/.test(part)) return true;
        literals += 1;
        return part === segments[i];
      });
      if (matches && (!best || literals > best.literals)) best = { template, literals };
    }
    return best?.template;
  }

  /** Every problem of `res` as an answer of `method pathTemplate`; empty when it conforms. */
  problems(
    method: string,
    pathTemplate: string,
    res: { status: number; headers: Headers; body: unknown },
  ): string[] {
    const operation = this.doc.paths[pathTemplate]?.[method.toLowerCase()];
    if (!operation) return [`${method} ${pathTemplate} is not in the document`];
    const declared = operation.responses[String(res.status)] ?? operation.responses.default;
    if (!declared) return [`status ${res.status} is not documented for ${method} ${pathTemplate}`];
    const response = this.deref(declared);
    const problems: string[] = [];
    for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
      if (this.deref(header).required && !res.headers.has(name)) problems.push(`missing header ${name}`);
    }
    const schema = response.content?.['application/json']?.schema;
    if (schema) {
      const key = JSON.stringify(schema);
      let validate = this.compiled.get(key);
      if (!validate) {
        const rooted = JSON.parse(key.replace(/"#\/components\//g, '"openapi.json#/components/'));
        validate = this.ajv.compile(rooted);
        this.compiled.set(key, validate);
      }
      if (!validate(res.body)) {
        problems.push(...(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message}`));
      }
    } else if (res.body !== undefined) {
      problems.push('a body where the document declares none');
    }
    return problems;
  }

  /**
   * The fields of a 200 answer that the document does not name (its schemas are open, so that
   * additive fields validate): each one an integrator's generated client would never see.
   */
  undocumentedFields(method: string, pathTemplate: string, body: unknown): string[] {
    const operation = this.doc.paths[pathTemplate]?.[method.toLowerCase()];
    const schema = operation && this.deref(operation.responses['200']).content?.['application/json']?.schema;
    const found: string[] = [];
    const walk = (node: Json | undefined, value: unknown, at: string): void => {
      if (!node || value === null || typeof value !== 'object') return;
      const s = this.deref(node);
      const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])] as Json[];
      if (Array.isArray(value)) {
        if (s.items) value.forEach((v, i) => walk(s.items, v, `${at}[${i}]`));
        else alternatives.forEach((a) => walk(a, value, at));
        return;
      }
      if (!s.properties) {
        const object = alternatives.map((a) => this.deref(a)).find((a) => a.properties);
        if (object) walk(object, value, at);
        return;
      }
      for (const [name, v] of Object.entries(value)) {
        if (name in s.properties) walk(s.properties[name], v, `${at}.${name}`);
        else found.push(`${at}.${name}`);
      }
    };
    walk(schema, body, 'body');
    return found;
  }
}
