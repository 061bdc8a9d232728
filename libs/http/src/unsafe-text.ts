// Text no service stores: a NUL character (PostgreSQL refuses the byte, so it would surface as a
// 500) and a lone UTF-16 surrogate (half of a character; encoding it silently stores U+FFFD).
// Refused here, where input enters a process, so that nothing downstream ever sees them.
import { InputError } from '@ordering/errors';

/** A NUL, a high surrogate not followed by a low one, or a low one not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- the NUL is exactly what this refuses
const UNSAFE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Deepest nesting of objects and arrays a request body may have. */
export const MAX_INPUT_DEPTH = 32;

export function isUnsafeText(value: string): boolean {
  return UNSAFE_TEXT.test(value);
}

/** A name with its unsafe characters shown as `?` (for `param` and messages). */
export function printable(value: string): string {
  return value.replace(new RegExp(UNSAFE_TEXT.source, 'g'), '?');
}

export interface UnsafeInput {
  /** Where, as an API `param`: `items[2].item_code`, `metadata.a`; empty for the value itself. */
  path: string;
  problem: 'unsafe_text' | 'too_deep';
}

function pathOf(parts: readonly (string | number)[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out;
}

/**
 * The first string (value or object key) holding unsafe text, or the first place nested deeper
 * than `maxDepth`, in a parsed JSON value. Iterative: a hostile nesting cannot overflow the stack.
 */
export function findUnsafeInput(value: unknown, maxDepth = MAX_INPUT_DEPTH): UnsafeInput | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (typeof v === 'string') {
      if (isUnsafeText(v)) return { path: pathOf(path), problem: 'unsafe_text' };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= maxDepth) return { path: pathOf(path), problem: 'too_deep' };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: [...path, i] });
      continue;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (isUnsafeText(key))
        return { path: pathOf([...path, key.replace(UNSAFE_TEXT, '?')]), problem: 'unsafe_text' };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return undefined;
}

/** 422 invalid_value naming the place (`param`), as the API answers unsafe input. */
export function unsafeInputError(found: UnsafeInput, paramPrefix = ''): InputError {
  const param = [paramPrefix, found.path].filter(Boolean).join('.') || undefined;
  const where = param ?? 'the request body';
  return new InputError(
    found.problem === 'too_deep'
      ? `${where} is nested deeper than ${MAX_INPUT_DEPTH} levels`
      : `${where} contains a NUL character or an unpaired UTF-16 surrogate, which no field accepts`,
    param,
  );
}

/** Throws 422 invalid_value (param = `paramPrefix` + the place) when `value` holds unsafe input. */
export function assertSafeInput(value: unknown, paramPrefix = ''): void {
  const found = findUnsafeInput(value);
  if (found) throw unsafeInputError(found, paramPrefix);
}
