// Building blocks shared by the resources: timestamps, money, people, the list envelope and the
// error body. Resource schemas are loose (unknown fields pass through): the API may add fields
// within /v1 and readers must ignore what they do not know.
import { z } from '../zod';

/** ISO 8601 UTC date-time, e.g. `2026-11-22T09:30:00Z` (fractional seconds allowed). */
export const Timestamp = z.iso.datetime().openapi({
  description: 'ISO 8601 date-time in UTC',
  example: '2026-11-22T09:30:00Z',
});

/**
 * A point in time given as a list filter (`created_after`, ...): what the services read
 * (`parseIsoTimestamp` of libs/http), a date-time with a zone or a date alone, read as midnight UTC.
 */
export const TimeFilter = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).openapi({
  description:
    'ISO 8601: a date-time with a zone (`2026-11-22T09:30:00Z`, `2026-11-22T10:30:00+01:00`) or a date, read as midnight UTC (`2026-11-22`)',
  example: '2026-11-22T09:30:00Z',
});

/** ISO 8601 calendar date, e.g. `2026-11-25`. */
export const DateOnly = z.iso.date().openapi({ description: 'ISO 8601 date', example: '2026-11-25' });

/** The ISO 4217 codes the runtime knows (ICU's list: current and recently retired currencies). */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

/**
 * Checked against ISO 4217, not only its shape: a typo such as `UDS` would price an item (or make an
 * account buy) in a currency no account has, hiding it from every catalog without a word.
 */
export const CurrencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code')
  .refine((code) => ISO_4217.has(code), 'is not an ISO 4217 currency code')
  .openapi({ description: 'ISO 4217 currency code, upper case', example: 'USD' });

export const Money = z
  .looseObject({
    // z.int() is a safe integer; zod-to-openapi drops that range, and without `format: int64`
    // generated Java/Kotlin/C# clients read `amount` into a 32-bit int (overflow above 2^31 - 1).
    amount: z.int().openapi({
      description: "Integer amount in the currency's minor unit (cents for USD), at most 2^53 - 1",
      format: 'int64',
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    }),
    currency: CurrencyCode,
  })
  .openapi('Money', {
    description: 'An amount of money in minor units',
    example: { amount: 1250, currency: 'USD' },
  });
export type Money = z.infer<typeof Money>;

/** A user as shown inside other resources (`ordered_by`, `cancelled_by`, `rejected_by`). */
export const UserRef = z
  .looseObject({
    login: z.string().openapi({ description: 'Shopper login' }),
    name: z.string().openapi({ description: 'Display name' }),
  })
  .openapi('UserRef', { description: 'A shopper, by login and name' });
export type UserRef = z.infer<typeof UserRef>;

/** The list envelope of every list endpoint, for items of `item`. */
export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .looseObject({
      object: z.literal('list'),
      url: z.string().openapi({ description: 'Path of the list request, without the query' }),
      has_more: z.boolean().openapi({ description: 'True when another page follows' }),
      next_cursor: z
        .string()
        .nullable()
        .openapi({ description: 'Opaque cursor to pass as `starting_after`; null when `has_more` is false' }),
      data: z.array(item),
    })
    .openapi(name, { description: 'A page of a cursor-paginated list' });
}
export interface ListEnvelope<T> {
  object: 'list';
  url: string;
  has_more: boolean;
  next_cursor: string | null;
  data: T[];
}

export const ERROR_TYPES = [
  'invalid_request',
  'authentication_error',
  'permission_error',
  'rate_limit_error',
  'idempotency_error',
  'api_error',
] as const;

export const ErrorBody = z
  .looseObject({
    error: z.looseObject({
      type: z.enum(ERROR_TYPES).openapi({ description: 'Broad class of the error' }),
      code: z.string().openapi({ description: 'Machine-readable code, e.g. `missing_required_field`' }),
      message: z.string().openapi({ description: 'Human-readable explanation' }),
      param: z
        .string()
        .optional()
        .openapi({ description: 'Offending field path, e.g. `shipping_address.postal_code`' }),
      request_id: z.string().openapi({ description: 'Equal to the `X-Request-Id` response header' }),
    }),
  })
  .openapi('Error', { description: 'Body of every API error response' });
export type ErrorBody = z.infer<typeof ErrorBody>;
