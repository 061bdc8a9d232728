import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID (26 Crockford base-32 characters: 48-bit millisecond time, then 80 random bits), so
 * identifiers sort by creation time. `now` is injectable for tests.
 */
export function ulid(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[bytes[i]! % 32]!;
  return time + random;
}

/** `<prefix>_<ulid>`, e.g. `evt_01JD0Z...`. */
export function newId(prefix: string, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

/** A new event identifier: `evt_` + ULID. */
export function newEventId(now?: number): string {
  return newId('evt', now);
}
