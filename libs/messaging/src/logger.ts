// The logging this library needs: a pino logger fits (`logger.warn({ err }, 'message')`).
export interface MessagingLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const nothing = () => {};
export const silentLogger: MessagingLogger = { debug: nothing, info: nothing, warn: nothing, error: nothing };
