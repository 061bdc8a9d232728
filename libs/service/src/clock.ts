// Time as a service's domain reads it. Production uses `systemClock`; a test passes its own
// (`clock` in the service's options) to move time or record waits.
export interface Clock {
  now(): Date;
  /** Waits `ms` of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
