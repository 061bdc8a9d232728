// Fires many requests at once over keep-alive connections and keeps what came back.
import { Pool } from 'undici';

export interface BurstResult {
  statuses: number[];
  responses: { status: number; headers: Record<string, string | string[] | undefined>; body: string }[];
  /** Client clock (ms) when the first request was sent and when the last answer came back. */
  startedAt: number;
  endedAt: number;
  passed: number;
  limited: number;
}

export async function burst(pool: Pool, path: string, token: string, count: number): Promise<BurstResult> {
  const startedAt = Date.now();
  const responses = await Promise.all(
    Array.from({ length: count }, async () => {
      const res = await pool.request({ method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
      return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
    }),
  );
  const endedAt = Date.now();
  const statuses = responses.map((r) => r.status);
  return {
    statuses,
    responses,
    startedAt,
    endedAt,
    passed: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
  };
}

export function gatewayClient(url: string): Pool {
  return new Pool(url, { connections: 32 });
}
