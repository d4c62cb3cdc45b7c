import { describe, expect, it } from 'vitest';
import { runKills } from './kills.js';

// A short run of the kill tests (the long one is `npm run soak`): SIGKILL of the provider
// and of tofu at seeded random moments, and one Host restart mid-run.
describe('kill tests (short)', () => {
  it('recovers from killed provider, killed tofu and a restarted Host with nothing lost or doubled', async () => {
    const report = await runKills({ seed: 11, trials: 6, hostRestarts: 1, log: (l) => process.stderr.write(`${l}\n`) });
    expect(report.violations).toEqual([]);
    expect(report.counters.trials).toBe(7);
  }, 600_000);
});
