// Concurrent runs with small counts (`npm run soak` runs many more rounds): two applies on
// separate states racing for one claim and one exclusive target, a saved plan made stale by
// an out-of-band edit, and two runs on one state through OpenTofu's pg backend on a real
// PostgreSQL server started for the test.
import { describe, expect, it } from 'vitest';
import { oneLine, runRaces, type RacesReport } from './races.js';

describe('concurrent runs', () => {
  let report: RacesReport;

  it('keeps every invariant: one winner per race, the fence holds, the pg state stays whole', { timeout: 300_000 }, async () => {
    // RELIABILITY_LOG=1 prints the progress lines (with times) while it runs.
    const log = process.env.RELIABILITY_LOG ? (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`) : undefined;
    // RACES_SEED / RACES_ROUNDS replay another run (the soak prints its seed).
    const seed = Number(process.env.RACES_SEED ?? 20261130);
    const rounds = Number(process.env.RACES_ROUNDS ?? 2);
    report = await runRaces({ seed, rounds, ...(log ? { log } : {}) });
    log?.(JSON.stringify({ counters: report.counters, notes: report.notes, samples: report.samples }, null, 2));
    // Violations first: each is a sentence saying what broke.
    expect(report.violations).toEqual([]);
    for (const key of [
      'races:claim',
      'races:exclusive',
      'races:same-name',
      'races:fence',
      'races:pg-lock',
      'races:pg-lock:failed-fast',
      'races:pg-lock:waited',
    ]) {
      expect(report.counters[key], key).toBeGreaterThan(0);
    }
    // With two rounds one of them applies saved plans through the barrier: both creates were
    // in flight at the Host at once and the Host's apply (not its prepare) picked the winner.
    expect(report.counters['races:barrier:met'], 'races:barrier:met').toBeGreaterThan(0);
    expect(report.counters['races:claim:refused-at-apply'], 'races:claim:refused-at-apply').toBeGreaterThan(0);
  });

  it('tells the loser of a race which resource lost, the Host code and what to do', () => {
    expect(report, 'the scenario did not finish').toBeDefined();
    const losers = [report.samples.claimLoser, report.samples.exclusiveLoser].filter((s): s is string => s !== undefined);
    // Core stops a run at the first refused plan, so a loser may be refused for one of its
    // two contenders only; at least one diagnostic must have been seen.
    expect(losers.length).toBeGreaterThan(0);
    if (report.samples.claimLoser) {
      const text = oneLine(report.samples.claimLoser);
      expect(text).toMatch(/^Error: Host refused: invalid_argument with (takoform_claim_ticket|takoform_resource)\.claim_\d+,/);
      // The Host's pointer is written as the HCL path in the text and kept on the Field line.
      expect(text).toMatch(/: (spec\.)?claim is already claimed by another ClaimTicket of your tenant \(claim\)/);
      expect(text).toMatch(/Field: \/spec\/claim/);
      expect(text).toMatch(/Host code: invalid_argument \(HTTP 400, not retryable\)/);
      expect(text).toMatch(/Fix the value the Host names and run the command again\./);
    }
    if (report.samples.exclusiveLoser) {
      const text = oneLine(report.samples.exclusiveLoser);
      expect(text).toMatch(/^Error: Host refused: invalid_argument with takoform_counter_reservation\.hold_\d+,/);
      expect(text).toMatch(/another CounterReservation already holds "rt-\d+" \(exclusive\)/);
      expect(text).toMatch(/Fix the value the Host names and run the command again\./);
    }
  });

  it('tells the loser of a same-name race that the name is taken, with the import id', () => {
    expect(report, 'the scenario did not finish').toBeDefined();
    // The race itself is checked in the first test (exactly one state owns the uid); here the text.
    expect(report.counters['races:same-name:refused-at-apply'] ?? 0, 'a same-name loser was refused at apply').toBeGreaterThan(0);
    const text = oneLine(report.samples.sameNameLoser ?? '');
    expect(text).toMatch(/^Error: Resource already exists on the Host with (takoform_range_sequence|takoform_resource)\.same_\d+,/);
    expect(text).toMatch(/(takoform_range_sequence|takoform_resource) "same-\d+" already exists in space "races" \(uid [^,]+, generation 1\)/);
    expect(text).toMatch(/`import` block with id = "([^"]*\/)?races\/same-\d+"/);
    expect(text).toMatch(/Nothing was changed/);
  });

  it('refuses a saved plan when the resource changed on the Host since plan', () => {
    expect(report, 'the scenario did not finish').toBeDefined();
    const text = oneLine(report.samples.fenceRefusal ?? '');
    expect(text).toMatch(/^Error: (Host refused: generation_conflict|Changed on the Host since plan) with takoform_range_sequence\.fenced,/);
    expect(text).toMatch(/changed on the Host since plan/i);
    expect(text).toMatch(/run plan again/i);
  });

  it('makes the second run on a pg state fail on the lock, or wait for it with -lock-timeout', () => {
    expect(report, 'the scenario did not finish').toBeDefined();
    const failed = oneLine(report.samples.lockFailure ?? '');
    expect(failed).toMatch(/Error: Error acquiring the state lock/);
    expect(failed).toMatch(/Workspace is already locked|Already locked for workspace creation/);
    const waited = report.samples.lockWait ?? '';
    expect(waited).toMatch(/Acquiring state lock\. This may take a few moments\.\.\./);
    // It then built on the first run's state: only its own resource was added.
    expect(waited).toMatch(/Apply complete! Resources: 1 added, 0 changed, 0 destroyed/);
  });
});
