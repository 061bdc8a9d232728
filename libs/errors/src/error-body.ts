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

export function errorBody(err: AppError, requestId: string): ErrorBody {
  return {
    error: {
      ...err.details,
      type: err.type,
      code: err.code,
      message: err.message,
      ...(err.param === undefined ? {} : { param: err.param }),
      request_id: requestId,
    },
  };
}
