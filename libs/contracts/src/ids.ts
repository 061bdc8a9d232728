import { randomFillSync } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * Random bytes for ids, filled 4 KiB at a time: one `randomBytes(16)` per id (seven ids an order)
 * was a buffer and a call into the CSPRNG each, visible in the orders service's profile.
 */
const RANDOM_POOL = Buffer.allocUnsafe(4096);
let poolOffset = RANDOM_POOL.length;

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
  if (poolOffset + 16 > RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    poolOffset = 0;
  }
  let random = '';
  for (let i = poolOffset; i < poolOffset + 16; i++) random += CROCKFORD[RANDOM_POOL[i]! % 32]!;
  poolOffset += 16;
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
