// Request bodies are checked against zod schemas; the first problem becomes the API error:
// an absent field is 422 missing_required_field, a malformed one 422 invalid_value, both with `param`.
import { summarizeIssues } from '@ordering/contracts';
import { InputError, MissingFieldError } from '@ordering/errors';
import type { z } from 'zod';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown, paramPrefix = ''): z.infer<S> {
  if (paramPrefix === '' && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new InputError('The request body must be a JSON object');
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const [first] = summarizeIssues(result.error, input);
  const path = [paramPrefix, first?.path ?? ''].filter(Boolean).join('.') || undefined;
  if (first?.missing && path) throw new MissingFieldError(path);
  throw new InputError(
    path ? `${path}: ${first?.message ?? 'invalid value'}` : (first?.message ?? 'Invalid value'),
    path,
  );
}
