// Turning zod issues into what a person (or the API's `error.param`) can use:
// `items[2].item_code`, `shipping_address.postal_code`, `data.total.amount`.
import type { z } from 'zod';

export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

export interface IssueSummary {
  /** Offending field path, empty for the value itself. */
  path: string;
  /** True when the field is absent (API: `missing_required_field`), false when malformed (`invalid_value`). */
  missing: boolean;
  /** True when the field is not part of the schema (API: `unknown_field`; strict request objects). */
  unknown: boolean;
  message: string;
}

/** `input` is the value that was parsed: it tells an absent field from a malformed one. */
export function summarizeIssues(error: z.ZodError, input: unknown): IssueSummary[] {
  return error.issues.flatMap((issue): IssueSummary[] => {
    // A strict object names every field it does not know in one issue: one summary per field.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: formatIssuePath([...issue.path, key]),
        missing: false,
        unknown: true,
        message: 'unknown field; request bodies accept only the documented fields',
      }));
    }
    const path = formatIssuePath(issue.path);
    return [{ path, missing: isMissing(issue, input), unknown: false, message: issue.message }];
  });
}

/** "data.total.amount: Invalid input: expected int, received string; type: ..." */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${formatIssuePath(i.path) || '(value)'}: ${i.message}`).join('; ');
}

function isMissing(issue: z.core.$ZodIssue, input: unknown): boolean {
  // A union (a date-time or a date) reports an absent field as `invalid_union`, not `invalid_type`.
  if (issue.code !== 'invalid_type' && issue.code !== 'invalid_union') return false;
  let value: unknown = input;
  for (const key of issue.path) {
    if (value === null || typeof value !== 'object') return false;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
}
