// Host-issued counters and timestamps (wire reference §8.3, §9). Generations and revisions are
// canonical decimal strings up to 2^63-1, so they are incremented as BigInt, never as a double.
import { randomBytes } from 'node:crypto';
import { HostError } from '../errors.js';

export const FIRST_COUNTER = '1';
const COUNTER_MAXIMUM = 9223372036854775807n;

export function nextCounter(value: string): string {
  const next = BigInt(value) + 1n;
  if (next > COUNTER_MAXIMUM) throw new HostError('internal_error', 'a generation or revision counter is exhausted');
  return next.toString();
}

/** RFC 3339 in UTC with whole seconds, `YYYY-MM-DDTHH:MM:SSZ`. */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The default uid: `res_` + 96 random bits (matches the uid grammar, never reused). */
export function randomUid(): string {
  return `res_${randomBytes(12).toString('hex')}`;
}
