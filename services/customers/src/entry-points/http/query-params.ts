// Reading optional query parameters: a repeated or malformed one is 422 invalid_value with `param`.
import { InputError } from '@ordering/errors';

export function optionalQuery(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new InputError(`${name} must be a single non-empty value`, name);
  return value;
}

export function optionalEnumQuery<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InputError(`${name} must be one of ${allowed.join(', ')}`, name);
  }
  return value as T;
}
