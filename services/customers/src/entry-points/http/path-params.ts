// A named route parameter as a string (Express types them loosely).
import type { Request } from 'express';

export function pathParam(req: Request, name: string): string {
  const value = (req.params as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : String(value ?? '');
}
