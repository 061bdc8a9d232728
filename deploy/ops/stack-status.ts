import type { StackFile } from '../local/stack-file';

export interface StatusRow {
  name: string;
  url: string;
  ok: boolean;
  detail: string;
}

/** Asks every process of the stack for /readyz. */
export async function stackStatus(stack: StackFile): Promise<StatusRow[]> {
  return Promise.all(
    Object.entries(stack.services).map(async ([name, url]) => {
      try {
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(3000) });
        return { name, url, ok: res.ok, detail: await res.text() };
      } catch (err) {
        return { name, url, ok: false, detail: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
}
