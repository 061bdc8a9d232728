// Assertions on the API's error body (decisions.md "Errors").
import type { Response } from 'supertest';

export function expectApiError(res: Response, status: number, type: string, code: string): void {
  expect({ status: res.status, type: res.body?.error?.type, code: res.body?.error?.code }).toEqual({
    status,
    type,
    code,
  });
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
}
