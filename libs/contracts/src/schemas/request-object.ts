// Request bodies are strict (decisions.md "Errors"): a field the API does not know is refused with
// 422 `unknown_field` naming it, never dropped silently (a client sending `{"status": ...}` to a
// PATCH that has no such field must learn that nothing changed). Every request body object, nested
// ones included, is built with `requestObject`; the OpenAPI document then shows
// `additionalProperties: false`. Resource schemas stay loose (`z.looseObject`): readers ignore
// fields they do not know, so the API may add some within /v1.
import { z } from '../zod';

export const requestObject: typeof z.strictObject = (shape, params) => z.strictObject(shape, params);

/**
 * The body of an action that takes no parameters (rotate_secret, test, replay of one delivery,
 * deactivate): none, or `{}`. Anything in it is refused like any unknown field, as Stripe refuses
 * parameters an endpoint does not take, instead of being dropped silently.
 */
export const EmptyRequest = requestObject({}).openapi('EmptyRequest', {
  description: 'An action without parameters: send no body, or `{}`',
});
export type EmptyRequest = z.infer<typeof EmptyRequest>;
