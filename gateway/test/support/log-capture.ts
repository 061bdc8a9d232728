// A logger whose lines tests can read.
import { type Logger, createLogger } from '@ordering/http';

export interface CapturedLogs {
  logger: Logger;
  lines(): Record<string, unknown>[];
}

export function captureLogs(level = 'warn'): CapturedLogs {
  const raw: string[] = [];
  const logger = createLogger({
    service: 'gateway',
    level,
    destination: { write: (s: string) => void raw.push(s) },
  });
  return { logger, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}
