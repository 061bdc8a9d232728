// The text the relay publishes for an outbox payload. The outbox stores it as jsonb, which keeps an
// object's fields in an order of its own (shortest name first); the spec and the text the writer
// gave have the schema's order. Parsing the event again restores that order (zod writes fields in
// schema order), at 7 to 14 µs an event. Which order comes out depends only on the event's type,
// where an object sits and which fields it has (jsonb's order is a function of that set too), so
// the order is learned from one parse per type and shape, then applied without parsing: the text is
// the same to the byte. A shape learned wrongly (a parse that changed a value, not only the order)
// shows at once, as the text differs from the parse's; that type is then always parsed.
import { safeParseEvent } from '@ordering/contracts';

interface Shape {
  /** The object's field names as stored (jsonb's order). */
  stored: string[];
  /** The same names in the order to publish. */
  order: string[];
}

interface ShapeNode {
  shapes: Shape[];
  /** The node of each field's value. */
  fields: Map<string, ShapeNode>;
  /** The node of an array's elements. */
  items?: ShapeNode;
}

/** An object's shapes learned at one place in one type (bounds memory for objects of free fields). */
const MAX_SHAPES = 32;
const MISS = Symbol('miss');

const byType = new Map<string, ShapeNode>();
const alwaysParsed = new Set<string>();

const newNode = (): ShapeNode => ({ shapes: [], fields: new Map() });
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function child(node: ShapeNode, field: string): ShapeNode {
  let next = node.fields.get(field);
  if (!next) node.fields.set(field, (next = newNode()));
  return next;
}

function sameNames(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function orderOf(names: string[], shapes: Shape[]): string[] | undefined {
  for (const shape of shapes) if (sameNames(shape.stored, names)) return shape.order;
  return undefined;
}

/** `value` with every object's fields in the learned order, or MISS where a shape is not known. */
function reorder(value: unknown, node: ShapeNode | undefined): unknown {
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = reorder(value[i], node?.items);
      if (item === MISS) return MISS;
      out[i] = item;
    }
    return out;
  }
  if (!isObject(value)) return value;
  if (!node) return MISS;
  const order = orderOf(Object.keys(value), node.shapes);
  if (!order) return MISS;
  const out: Record<string, unknown> = {};
  for (const field of order) {
    const v = reorder(value[field], node.fields.get(field));
    if (v === MISS) return MISS;
    out[field] = v;
  }
  return out;
}

/** Records the field order of every object of `parsed` by the shape of its twin in `stored`. */
function learn(stored: unknown, parsed: unknown, node: ShapeNode): void {
  if (Array.isArray(stored) && Array.isArray(parsed)) {
    node.items ??= newNode();
    for (let i = 0; i < Math.min(stored.length, parsed.length); i++) learn(stored[i], parsed[i], node.items);
    return;
  }
  if (!isObject(stored) || !isObject(parsed)) return;
  const names = Object.keys(stored);
  const order = Object.keys(parsed);
  // A `__proto__` field would set the copy's prototype: such objects are always parsed.
  if (!orderOf(names, node.shapes) && node.shapes.length < MAX_SHAPES && !order.includes('__proto__')) {
    node.shapes.push({ stored: names, order });
  }
  for (const field of Object.keys(parsed)) learn(stored[field], parsed[field], child(node, field));
}

/**
 * The JSON text of an outbox payload as published: an event envelope in the spec's field order
 * (what `JSON.stringify(parseEvent(payload))` gives), any other payload as stored.
 */
export function publishedText(payload: unknown): string {
  const type = isObject(payload) && typeof payload.type === 'string' ? payload.type : undefined;
  const known = type === undefined ? undefined : byType.get(type);
  if (known) {
    const restored = reorder(payload, known);
    if (restored !== MISS) return JSON.stringify(restored);
  }
  const parsed = safeParseEvent(payload);
  if (!parsed.success) return JSON.stringify(payload);
  const text = JSON.stringify(parsed.event);
  if (type !== undefined && !alwaysParsed.has(type)) {
    const node = known ?? newNode();
    learn(payload, parsed.event, node);
    const restored = reorder(payload, node);
    if (restored !== MISS && JSON.stringify(restored) !== text) {
      alwaysParsed.add(type);
      byType.delete(type);
    } else {
      byType.set(type, node);
    }
  }
  return text;
}
