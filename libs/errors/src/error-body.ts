import { AppError, InternalError } from './app-error';

/** The API error body of the spec. */
export interface ErrorBody {
  error: {
    type: string;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    [detail: string]: unknown;
  };
}

/** Any thrown value as an AppError: unknown ones become `internal_error`, keeping the cause. */
export function toAppError(err: unknown): AppError {
  return err instanceof AppError ? err : new InternalError(err);
}

/**
 * The longest `message` and `param` an error body carries. Both may quote what the caller sent (a
 * login, a category id, an unknown field's name); a megabyte of it is not sent back.
 */
export const MAX_ERROR_TEXT_LENGTH = 500;

/** `text` cut to MAX_ERROR_TEXT_LENGTH characters (an ellipsis marks the cut), whole code points. */
function bounded(text: string): string {
  if (text.length <= MAX_ERROR_TEXT_LENGTH) return text;
  return `${text.slice(0, MAX_ERROR_TEXT_LENGTH).replace(/[\uD800-\uDBFF]$/, '')}…`;
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    error: {
      ...err.details,
      type: err.type,
      code: err.code,
      message: bounded(err.message),
      ...(err.param === undefined ? {} : { param: bounded(err.param) }),
      request_id: requestId,
    },
  };
}
