// Two Host processes on one PostgreSQL database, small counts (`npm run soak` runs many more):
// claim / exclusive / uniquePair / import-claim / name races split across the processes, replays
// answered by the other process, a process SIGKILLed mid-commit while the other serves, and two
// `tofu` states on two processes creating one name.
import { describe, expect, it } from 'vitest';
import { runMultiHost } from './multi-host.js';

describe('several Host processes on one PostgreSQL database', () => {
  it('keeps every invariant: one winner per race, byte-identical replays, nothing lost to a kill, one owner', { timeout: 300_000 }, async () => {
    const log = process.env.RELIABILITY_LOG ? (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`) : undefined;
    const report = await runMultiHost({
      seed: Number(process.env.MULTI_HOST_SEED ?? 20261201),
      raceRounds: 2,
      contenders: 6,
      killRounds: 1,
      tofuRounds: 1,
      ...(log ? { log } : {}),
    });
    log?.(JSON.stringify(report, null, 2));
    expect(report.violations).toEqual([]);
    for (const key of ['races:claim', 'races:exclusive', 'races:uniquePair', 'races:import-claim', 'races:name', 'races:tofu', 'kills', 'tofu:one-owner']) {
      expect(report.counters[key], key).toBeGreaterThan(0);
    }
    expect(report.counters['replays across processes']).toBe(2 * 5 * 2);
    expect(report.counters['operations finished by the survivor']).toBe(3);
    expect(report.counters['survivor requests during kill']).toBeGreaterThan(0);
    // Every create of the burst was accounted for; which of them committed before the kill
    // depends on the machine's load (the soak's counters show all three kinds).
    const burst = ['kill:answered-before-kill', 'kill:committed-unanswered', 'kill:not-committed'].reduce((sum, key) => sum + (report.counters[key] ?? 0), 0);
    expect(burst).toBe(8);
  });
});
