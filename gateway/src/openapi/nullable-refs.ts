// zod-to-openapi 9.1 drops `null` from a nullable property whose schema is a named component: it
// emits a bare `$ref` (`Cancellation.nullable()`), or `allOf: [$ref, {type: [object, null]}]` when
// the property has its own description, which still refuses null. The contracts are the truth, so
// this pass walks each component's zod schema beside its generated JSON Schema and rewrites every
// such property to `anyOf: [$ref, {type: 'null'}]`.
import type { z } from '@ordering/contracts';

type JsonSchema = Record<string, unknown>;

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** The schema under optional / nullable / default / readonly wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (!def.innerType || !['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(def.type)) {
      return current;
    }
    current = def.innerType;
  }
}

function allowsNull(json: JsonSchema): boolean {
  const type = json.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (Array.isArray(json.enum) && json.enum.includes(null)) return true;
  const anyOf = (json.anyOf ?? json.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(anyOf) && anyOf.some(allowsNull);
}

/** The `$ref` a property stands for (bare, or first of an `allOf` with overrides), if any. */
function refOf(json: JsonSchema): string | undefined {
  if (typeof json.$ref === 'string') return json.$ref;
  const first = Array.isArray(json.allOf) ? (json.allOf[0] as JsonSchema | undefined) : undefined;
  return typeof first?.$ref === 'string' ? first.$ref : undefined;
}

function nullableRef(ref: string, json: JsonSchema): JsonSchema {
  const overrides = Array.isArray(json.allOf) ? ((json.allOf[1] ?? {}) as JsonSchema) : {};
  const description = json.description ?? overrides.description;
  return {
    anyOf: [{ $ref: ref }, { type: 'null' }],
    ...(typeof description === 'string' ? { description } : {}),
  };
}

export class NullableRefFixer {
  private readonly visited = new Set<string>();

  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** Fixes the component `name` generated from `schema`, and every component it references. */
  component(name: string, schema: z.ZodType): void {
    if (this.visited.has(name)) return;
    this.visited.add(name);
    const json = this.components[name];
    if (json) this.walk(schema, json);
  }

  private walk(schema: z.ZodType, json: JsonSchema): void {
    const ref = refOf(json);
    if (ref?.startsWith('#/components/schemas/')) {
      this.component(ref.slice('#/components/schemas/'.length), unwrap(schema));
      return;
    }
    const def = defOf(unwrap(schema));
    if (def.type === 'array' && def.element && json.items) {
      this.walk(def.element, json.items as JsonSchema);
      return;
    }
    if (def.type !== 'object' || !def.shape) return;
    const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
    for (const [key, property] of Object.entries(def.shape)) {
      const generated = properties[key];
      if (!generated) continue;
      const propertyRef = refOf(generated);
      if (propertyRef && property.safeParse(null).success && !allowsNull(generated)) {
        properties[key] = nullableRef(propertyRef, generated);
      }
      this.walk(property, generated);
    }
  }
}
