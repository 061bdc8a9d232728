// What benchmark scripts measure with: a process's CPU time (user + system, all its threads, from
// /proc) and a closed loop of requests (`concurrency` callers, each sending its next request once
// its last one was answered). Open-loop load is open-loop-load.ts.
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU of the processes, in milliseconds; a process that is gone counts 0. */
export function processCpuMs(...pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone
    }
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** Sends `requests` requests with `send`, `concurrency` at a time, each caller waiting for its answer. */
export async function closedLoopLoad(
  concurrency: number,
  requests: number,
  send: () => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await send();
    }),
  );
}
