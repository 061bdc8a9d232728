// A pino destination that keeps every line, so tests can read what was logged.
import { createLogger, type Logger } from '../src';

export interface CapturedLogs {
  logger: Logger;
  lines: () => Array<Record<string, unknown>>;
  text: () => string;
}

export function captureLogs(service = 'test-service', level = 'info'): CapturedLogs {
  const raw: string[] = [];
  const logger = createLogger({ service, level, destination: { write: (s: string) => void raw.push(s) } });
  return {
    logger,
    lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>),
    text: () => raw.join(''),
  };
}
