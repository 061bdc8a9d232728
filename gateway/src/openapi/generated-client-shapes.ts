// Two spellings zod-to-openapi emits that say the same in JSON Schema 2020-12 as a plainer one but
// that generated clients render badly, rewritten after generation:
// - `additionalProperties: {}` (a loose resource: unknown fields pass) says what an absent
//   `additionalProperties` says, but openapi-typescript and @hey-api/openapi-ts turn it into an
//   index signature `[key: string]: unknown`, so `order.totl` or `item.price` type-checks as
//   `unknown` instead of failing. Dropped: resources stay loose, only the index signature goes.
// - `allOf: [{ $ref }, { description }]` (a named schema with its own description) becomes
//   `Money & unknown`; OpenAPI 3.1 allows `description` beside `$ref`, so it is written so.
type Json = unknown;

function isEmptyObject(value: Json): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

const ANNOTATIONS = new Set(['description', 'example', 'examples', 'deprecated']);

function plainRef(node: Record<string, Json>): Record<string, Json> | undefined {
  const allOf = node.allOf;
  if (!Array.isArray(allOf) || allOf.length !== 2 || Object.keys(node).length !== 1) return undefined;
  const [ref, annotations] = allOf as [Record<string, Json>, Record<string, Json>];
  if (typeof ref.$ref !== 'string' || Object.keys(ref).length !== 1) return undefined;
  if (!Object.keys(annotations).every((key) => ANNOTATIONS.has(key))) return undefined;
  return { $ref: ref.$ref, ...annotations };
}

/** Rewrites, in place, every schema of the document (components, paths, webhooks). */
export function simplifyForGeneratedClients(node: Json): void {
  if (Array.isArray(node)) {
    for (const child of node) simplifyForGeneratedClients(child);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const object = node as Record<string, Json>;
  if ('additionalProperties' in object && isEmptyObject(object.additionalProperties)) {
    delete object.additionalProperties;
  }
  for (const [key, child] of Object.entries(object)) {
    if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
      const replacement = plainRef(child as Record<string, Json>);
      if (replacement) object[key] = replacement;
    }
    simplifyForGeneratedClients(object[key]);
  }
}
