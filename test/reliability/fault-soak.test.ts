import { describe, expect, it } from 'vitest';
import { runFaultSoak } from './fault-soak.js';

// A short run of the randomized soak (the long one is `npm run soak`): the same invariants,
// fewer cycles. Fixed seed, so a failure here reproduces with the same edits and faults.
describe('fault soak (short)', () => {
  it('keeps Host and state equal, converges in at most two re-runs, under injected faults', async () => {
    const report = await runFaultSoak({ seed: 7, cycles: 6, faultPercent: 15 });
    expect(report.violations).toEqual([]);
    expect(report.counters.cycles).toBe(6);
    expect(report.counters['faults injected']).toBeGreaterThan(0);
  }, 600_000);
});
