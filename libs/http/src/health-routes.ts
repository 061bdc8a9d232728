// Liveness (`/healthz`: the process answers) and readiness (`/readyz`: its dependencies answer).
import type { Express } from 'express';

export interface ReadinessCheck {
  name: string;
  /**
   * Resolves when the dependency is usable; rejects (or times out) when it is not. It may resolve
   * with a note such as `degraded: ...` when the service works around the dependency: /readyz then
   * shows the note and the service stays ready.
   */
  check(): Promise<void | string>;
}

export const DEFAULT_READINESS_TIMEOUT_MS = 2000;

class CheckTimeoutError extends Error {}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<{ ok: boolean; status: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const note = await Promise.race([Promise.resolve().then(() => check.check()), timeout]);
    return { ok: true, status: typeof note === 'string' && note ? note.slice(0, 200) : 'ok' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, status: (message || 'failed').slice(0, 200) };
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once; `ready` only when each says ok. */
export async function readiness(
  checks: ReadinessCheck[],
  timeoutMs = DEFAULT_READINESS_TIMEOUT_MS,
): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const results = await Promise.all(checks.map((c) => runCheck(c, timeoutMs)));
  const byName: Record<string, string> = {};
  checks.forEach((c, i) => {
    byName[c.name] = results[i]?.status ?? 'failed';
  });
  return { ready: results.every((r) => r.ok), checks: byName };
}

export function mountHealthRoutes(app: Express, checks: ReadinessCheck[], timeoutMs: number): void {
  app.get('/healthz', (_req, res) => {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const result = await readiness(checks, timeoutMs);
    res
      .status(result.ready ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json({ status: result.ready ? 'ready' : 'not_ready', checks: result.checks });
  });
}
