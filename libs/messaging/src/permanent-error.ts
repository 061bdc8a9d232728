/**
 * Thrown by a consumer's handler for a message that can never succeed (an illegal state
 * transition, a reference to something that will never exist): the message goes to the
 * dead-letter topic at once, with this message as the reason, instead of being retried.
 */
export class PermanentError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentError';
  }
}
