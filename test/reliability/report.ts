import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

// What every reliability scenario returns, so the CI tests (small counts, assert zero
// violations) and `npm run soak` (large counts, one printed table) share the same code.
export interface ReliabilityReport {
  /** The scenario: 'soak', 'kills', 'races', 'fuzz', 'secrets', ... */
  readonly scenario: string;
  /** What was exercised, by kind: e.g. { cycles: 200, 'fault:reset-after': 31 }. */
  readonly counters: Record<string, number>;
  /** Invariant violations found, each a sentence a human can act on. Must be empty. */
  readonly violations: string[];
  /** Short facts worth printing (e.g. "3 creates resumed by idempotent replay"). */
  readonly notes: string[];
}

export interface ScenarioOptions {
  /** Seed of the pseudo-random choices; the same seed replays the same run. */
  readonly seed: number;
  /** Progress lines (the soak script prints them; tests may ignore them). */
  readonly log?: (line: string) => void;
}

export function emptyReport(scenario: string): ReliabilityReport {
  return { scenario, counters: {}, violations: [], notes: [] };
}

export function count(report: ReliabilityReport, key: string, by = 1): void {
  report.counters[key] = (report.counters[key] ?? 0) + by;
}

/** Reproducible choices: the same seed replays the same run (pure-rand, fast-check's generator). */
export function seededRandom(seed: number): (fromInclusive: number, toInclusive: number) => number {
  const rng = xoroshiro128plus(seed);
  return (from, to) => uniformInt(rng, from, to);
}

export type Random = ReturnType<typeof seededRandom>;

export function pick<T>(random: Random, items: readonly T[]): T {
  return items[random(0, items.length - 1)]!;
}
