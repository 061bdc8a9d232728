// Finished spans as an OTLP ExportTraceServiceRequest in protobuf, the body of an OTLP/HTTP
// export: the same bytes as @opentelemetry/otlp-transformer's ProtobufTraceSerializer (checked by
// otlp-span-serializer.test.ts), for a fraction of its CPU. Encoding the spans was the largest cost
// tracing added to a request (about 5 µs per span on this machine, three spans per request at the
// gateway): the SDK's serializer measures every string, id and message in a first pass and writes it
// in a second, copying each id through a new array, and runs once per batch, long after the spans
// ended (their objects no longer in the CPU's caches and promoted out of V8's young generation by
// then). Here each span is encoded once, as it ends (EncodedSpans.add, called by the span processor
// of otlp-span-processor.ts), into a Node Buffer: strings and ids written as they are, attribute
// names and span names (a few dozen distinct ones) copied from a cache of their encoded form, and
// each message's length written in front of it once known. An export then only wraps the encoded
// spans of each process and instrumentation scope in their envelopes.
//
// Wire format: opentelemetry/proto/collector/trace/v1/trace_service.proto and trace/v1/trace.proto.
import type { Attributes, AttributeValue, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';

const LENGTH_DELIMITED = 2;
const VARINT = 0;
const FIXED64 = 1;
const FIXED32 = 5;

const SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE = 0x100;
const SPAN_FLAGS_CONTEXT_IS_REMOTE = 0x200;

/** Encoded strings worth keeping: attribute names, span names, repeated short values. */
const CACHEABLE_LENGTH = 64;
const CACHE_LIMIT = 4096;

/** The value of each hex digit by character code (0 for anything else). */
const HEX_VALUE = new Uint8Array(128);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) HEX_VALUE[97 + i] = HEX_VALUE[65 + i] = 10 + i;

function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** Encoded form of short strings written often (attribute names, span names), shared by every writer. */
const encodedStrings = new Map<string, Buffer>();

class Writer {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(bytes: number): void {
    const needed = this.pos + bytes;
    if (needed <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** Writes a tag (field number and wire type); every tag used here fits in one or two bytes. */
  tag(field: number, wireType: number): void {
    const key = (field << 3) | wireType;
    this.ensure(2);
    if (key < 0x80) this.buf[this.pos++] = key;
    else {
      this.buf[this.pos++] = (key & 0x7f) | 0x80;
      this.buf[this.pos++] = key >>> 7;
    }
  }

  private u32(value: number): void {
    const buf = this.buf;
    buf[this.pos++] = value & 0xff;
    buf[this.pos++] = (value >>> 8) & 0xff;
    buf[this.pos++] = (value >>> 16) & 0xff;
    buf[this.pos++] = (value >>> 24) & 0xff;
  }

  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[this.pos++] = v;
      return;
    }
    // Beyond 32 bits (and negative numbers, as 64-bit two's complement), as the SDK writes them.
    let low: number;
    let high: number;
    if (value >= 0) {
      low = value >>> 0;
      high = (value / 4294967296) >>> 0;
    } else {
      const abs = Math.abs(value);
      low = ~(abs >>> 0) >>> 0;
      high = ~((abs / 4294967296) >>> 0) >>> 0;
      low = (low + 1) >>> 0;
      if (low === 0) high = (high + 1) >>> 0;
    }
    while (high > 0 || low > 0x7f) {
      buf[this.pos++] = (low & 0x7f) | 0x80;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    buf[this.pos++] = low & 0x7f;
  }

  fixed32(value: number): void {
    this.ensure(4);
    this.u32(value >>> 0);
  }

  /** HrTime [seconds, nanoseconds] as fixed64 nanoseconds since the epoch. */
  time(hr: HrTime): void {
    this.ensure(8);
    const [seconds, nanos] = hr;
    // seconds * 1e9 + nanos exceeds 2^53: split seconds so that every product stays exact.
    const secondsLow = seconds & 0xffff;
    const secondsHigh = (seconds / 0x10000) >>> 0;
    const fromLow = secondsLow * 1e9; // < 2^46
    const fromHigh = secondsHigh * 1e9; // < 2^46, to be multiplied by 2^16
    const lowSum = (fromLow >>> 0) + (fromHigh & 0xffff) * 0x10000 + nanos;
    const low = lowSum >>> 0;
    const high =
      Math.floor(fromLow / 4294967296) + Math.floor(fromHigh / 0x10000) + Math.floor(lowSum / 4294967296);
    this.u32(low);
    this.u32(high >>> 0);
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A length-delimited string (UTF-8). */
  string(value: string): void {
    const length = value.length;
    if (length <= CACHEABLE_LENGTH) {
      let encoded = encodedStrings.get(value);
      if (encoded === undefined) {
        if (encodedStrings.size >= CACHE_LIMIT) encodedStrings.clear();
        encoded = Buffer.from(value, 'utf8');
        encodedStrings.set(value, encoded);
      }
      const n = encoded.length;
      this.varint(n);
      this.ensure(n);
      const buf = this.buf;
      for (let i = 0; i < n; i++) buf[this.pos++] = encoded[i]!;
      return;
    }
    this.uncachedString(value);
  }

  /** A string that may not be seen again (ids, messages): written as it is, without a cache entry. */
  uncachedString(value: string): void {
    const length = value.length;
    if (length < 0x80) {
      // Most values are short ASCII: copied character by character after a one-byte length.
      this.ensure(length + 1);
      const buf = this.buf;
      const start = this.pos;
      let at = start + 1;
      for (let i = 0; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code >= 0x80) {
          at = -1;
          break;
        }
        buf[at++] = code;
      }
      if (at !== -1) {
        buf[start] = length;
        this.pos = at;
        return;
      }
    }
    const bytes = Buffer.byteLength(value, 'utf8');
    this.varint(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(value, this.pos, bytes, 'utf8');
  }

  /** An id given in hex (trace id: 32 digits, span id: 16) as bytes. */
  hexBytes(hex: string): void {
    const bytes = hex.length >>> 1;
    this.varint(bytes);
    this.ensure(bytes);
    const buf = this.buf;
    for (let i = 0; i < hex.length; i += 2) {
      buf[this.pos++] =
        (HEX_VALUE[hex.charCodeAt(i) & 0x7f]! << 4) | HEX_VALUE[hex.charCodeAt(i + 1) & 0x7f]!;
    }
  }

  /** Bytes already encoded (messages with their tags), as they are. */
  raw(source: Buffer, length: number): void {
    this.ensure(length);
    source.copy(this.buf, this.pos, 0, length);
    this.pos += length;
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a length-delimited message: `reserve` bytes are kept for its length. */
  begin(reserve: number): number {
    this.ensure(reserve);
    const start = this.pos;
    this.pos += reserve;
    return start;
  }

  /** Writes the length of the message begun at `start`, moving it if the length needs other than `reserve` bytes. */
  end(start: number, reserve: number): void {
    const length = this.pos - start - reserve;
    const size = varintSize(length);
    if (size !== reserve) {
      this.ensure(size - reserve);
      this.buf.copyWithin(start + size, start + reserve, this.pos);
      this.pos += size - reserve;
    }
    let at = start;
    let v = length;
    while (v > 0x7f) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
  }
}

function writeAnyValue(w: Writer, value: unknown): void {
  switch (typeof value) {
    case 'string':
      w.tag(1, LENGTH_DELIMITED);
      // Values repeat less than names (request and order ids): not cached.
      w.uncachedString(value);
      return;
    case 'boolean':
      w.tag(2, VARINT);
      w.varint(value ? 1 : 0);
      return;
    case 'number':
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
        w.tag(3, VARINT);
        w.varint(value);
      } else {
        w.tag(4, FIXED64);
        w.double(value);
      }
      return;
    default:
      break;
  }
  if (value instanceof Uint8Array) {
    w.tag(7, LENGTH_DELIMITED);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, LENGTH_DELIMITED);
    const array = w.begin(1);
    for (const item of value) {
      w.tag(1, LENGTH_DELIMITED);
      const itemStart = w.begin(1);
      writeAnyValue(w, item);
      w.end(itemStart, 1);
    }
    w.end(array, 1);
  } else if (typeof value === 'object' && value !== null) {
    w.tag(6, LENGTH_DELIMITED);
    const list = w.begin(1);
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (!Object.prototype.hasOwnProperty.call(record, key)) continue;
      w.tag(1, LENGTH_DELIMITED);
      writeKeyValue(w, key, record[key]);
    }
    w.end(list, 1);
  }
}

/** A KeyValue message (its tag already written). */
function writeKeyValue(w: Writer, key: string, value: unknown): void {
  const kv = w.begin(1);
  w.tag(1, LENGTH_DELIMITED);
  w.string(key);
  w.tag(2, LENGTH_DELIMITED);
  const any = w.begin(1);
  writeAnyValue(w, value);
  w.end(any, 1);
  w.end(kv, 1);
}

function writeAttributes(w: Writer, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    w.tag(field, LENGTH_DELIMITED);
    writeKeyValue(w, key, attributes[key] as AttributeValue | undefined);
  }
}

function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (
    (traceFlags & 0xff) | SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE | (isRemote ? SPAN_FLAGS_CONTEXT_IS_REMOTE : 0)
  );
}

function writeEvent(w: Writer, event: TimedEvent): void {
  const start = w.begin(1);
  w.tag(1, FIXED64);
  w.time(event.time);
  w.tag(2, LENGTH_DELIMITED);
  w.string(event.name);
  if (event.attributes) writeAttributes(w, event.attributes, 3);
  w.tag(4, VARINT);
  w.varint(event.droppedAttributesCount || 0);
  w.end(start, 1);
}

/** Fields 1-3 of a Span and of a Link alike: trace id, span id, trace state. */
function writeSpanContext(w: Writer, ctx: SpanContext): void {
  w.tag(1, LENGTH_DELIMITED);
  w.hexBytes(ctx.traceId);
  w.tag(2, LENGTH_DELIMITED);
  w.hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, LENGTH_DELIMITED);
    w.uncachedString(traceState);
  }
}

function writeLink(w: Writer, link: Link): void {
  const start = w.begin(1);
  const ctx: SpanContext = link.context;
  writeSpanContext(w, ctx);
  if (link.attributes) writeAttributes(w, link.attributes, 4);
  w.tag(5, VARINT);
  w.varint(link.droppedAttributesCount || 0);
  w.tag(6, FIXED32);
  w.fixed32(spanFlags(ctx.traceFlags, ctx.isRemote));
  w.end(start, 1);
}

/** A Span message (its tag already written); most spans take 128 to 16383 bytes: 2 length bytes. */
function writeSpan(w: Writer, span: ReadableSpan): void {
  const start = w.begin(2);
  const ctx = span.spanContext();
  writeSpanContext(w, ctx);
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, LENGTH_DELIMITED);
    w.hexBytes(parent.spanId);
  }
  w.tag(5, LENGTH_DELIMITED);
  w.string(span.name);
  const kind = span.kind == null ? 0 : span.kind + 1;
  if (kind !== 0) {
    w.tag(6, VARINT);
    w.varint(kind);
  }
  w.tag(7, FIXED64);
  w.time(span.startTime);
  w.tag(8, FIXED64);
  w.time(span.endTime);
  if (span.attributes) writeAttributes(w, span.attributes, 9);
  w.tag(10, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    w.tag(11, LENGTH_DELIMITED);
    writeEvent(w, event);
  }
  w.tag(12, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) {
    w.tag(13, LENGTH_DELIMITED);
    writeLink(w, link);
  }
  w.tag(14, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(15, LENGTH_DELIMITED);
  const status = w.begin(1);
  if (span.status.message) {
    w.tag(2, LENGTH_DELIMITED);
    w.uncachedString(span.status.message);
  }
  w.tag(3, VARINT);
  w.varint(span.status.code);
  w.end(status, 1);
  w.tag(16, FIXED32);
  w.fixed32(spanFlags(ctx.traceFlags, parent?.isRemote));
  w.end(start, 2);
}

type Resource = ReadableSpan['resource'];
type Scope = ReadableSpan['instrumentationScope'];

/** The InstrumentationScope message, field 1 of ScopeSpans (its tag already written). */
function writeScope(w: Writer, scope: Scope): void {
  const start = w.begin(1);
  w.tag(1, LENGTH_DELIMITED);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, LENGTH_DELIMITED);
    w.string(scope.version);
  }
  const { attributes, droppedAttributesCount } = scope as {
    attributes?: Attributes;
    droppedAttributesCount?: number;
  };
  if (attributes) writeAttributes(w, attributes, 3);
  if (droppedAttributesCount) {
    w.tag(4, VARINT);
    w.varint(droppedAttributesCount);
  }
  w.end(start, 1);
}

/** The Resource message, field 1 of ResourceSpans (its tag already written). */
function writeResource(w: Writer, resource: Resource): void {
  const start = w.begin(2);
  writeAttributes(w, resource.attributes, 1);
  w.tag(2, VARINT);
  w.varint(0);
  w.end(start, 2);
}

/** About what a batch took lately: the next batch's buffer starts at that size. */
let expectedBatchBytes = 64 * 1024;

/**
 * Spans encoded as they end, grouped by process (resource) and instrumentation scope in the order
 * first seen, as the SDK's serializer groups them; `bytes()` is the export request.
 */
export class EncodedSpans {
  /** Spans added. */
  count = 0;
  private readonly groups = new Map<Resource, Map<Scope, Writer>>();

  add(span: ReadableSpan): void {
    let scopes = this.groups.get(span.resource);
    if (!scopes) this.groups.set(span.resource, (scopes = new Map()));
    let w = scopes.get(span.instrumentationScope);
    if (!w) scopes.set(span.instrumentationScope, (w = new Writer(expectedBatchBytes)));
    const mark = w.pos;
    try {
      w.tag(2, LENGTH_DELIMITED);
      writeSpan(w, span);
    } catch (err) {
      w.pos = mark; // nothing half-written stays in the batch
      throw err;
    }
    this.count++;
  }

  /** The ExportTraceServiceRequest of the spans added. */
  bytes(): Uint8Array {
    let encoded = 0;
    for (const scopes of this.groups.values()) for (const w of scopes.values()) encoded += w.pos;
    const out = new Writer(encoded + 1024);
    for (const [resource, scopes] of this.groups) {
      out.tag(1, LENGTH_DELIMITED);
      const resourceSpans = out.begin(3);
      out.tag(1, LENGTH_DELIMITED);
      writeResource(out, resource);
      for (const [scope, w] of scopes) {
        out.tag(2, LENGTH_DELIMITED);
        const scopeSpans = out.begin(3);
        out.tag(1, LENGTH_DELIMITED);
        writeScope(out, scope);
        out.raw(w.buf, w.pos);
        if (scope.schemaUrl) {
          out.tag(3, LENGTH_DELIMITED);
          out.string(scope.schemaUrl);
        }
        out.end(scopeSpans, 3);
      }
      if (resource.schemaUrl) {
        out.tag(3, LENGTH_DELIMITED);
        out.string(resource.schemaUrl);
      }
      out.end(resourceSpans, 3);
    }
    // A decaying maximum: a small batch sent by the timer does not shrink the next full one's buffer.
    expectedBatchBytes = Math.min(4 * 1024 * 1024, Math.max(16 * 1024, expectedBatchBytes * 0.9, encoded));
    return out.buf.subarray(0, out.pos);
  }
}

/** The ExportTraceServiceRequest of `spans` in protobuf, in one go. */
export function serializeSpans(spans: readonly ReadableSpan[]): Uint8Array {
  const batch = new EncodedSpans();
  for (const span of spans) batch.add(span);
  return batch.bytes();
}
