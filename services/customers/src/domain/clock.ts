// Time as the domain reads it; tests move it or scale it.
export interface Clock {
  now(): Date;
  /** Waits `ms` of this clock's time. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
