// The clock of the retry schedule. In production it is the wall clock; a test speeds it up
// (`speed` times faster from the moment it was made) so the whole 24 h horizon runs in seconds.
export interface DeliveryClock {
  now(): Date;
  /** Real milliseconds for `ms` of schedule time. */
  realMs(ms: number): number;
}

export function deliveryClock(speed = 1, origin = Date.now()): DeliveryClock {
  if (speed === 1) return { now: () => new Date(), realMs: (ms) => ms };
  return {
    now: () => new Date(origin + (Date.now() - origin) * speed),
    realMs: (ms) => ms / speed,
  };
}
