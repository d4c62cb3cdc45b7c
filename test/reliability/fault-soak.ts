// The randomized fault soak: cycles of apply / modify / destroy over a multi-resource
// configuration (sequences and reservations that name them, one Form answering 202 with
// Operations), with the fault proxy injecting network and Host faults at random into the
// first `tofu apply` of each cycle. After every cycle, with the network healthy again, at
// most two re-runs of `tofu apply` must bring the plan to "No changes", and the Host must
// hold exactly the resources of the state, with the same uids. Seeded and reproducible:
// the same seed makes the same configuration changes and the same fault choices (timing
// between processes still varies).
import type { Fault, ForwardedRequest } from '../support/fault-proxy.js';
import { checkInvariants, converge, emptyModel, RESERVATION_NAMES, SEQUENCE_NAMES, startRig, tail, type DesiredModel } from './harness.js';
import { count, emptyReport, pick, seededRandom, type Random, type ReliabilityReport, type ScenarioOptions } from './report.js';

export interface FaultSoakOptions extends ScenarioOptions {
  readonly cycles: number;
  /** Chance in percent that a given request to the Host meets a fault. Default 12. */
  readonly faultPercent?: number;
}

const envelope = (code: string, retryable: boolean) =>
  JSON.stringify({ error: { code, message: 'injected by the soak', requestId: 'req_soak_fault', retryable } });

/** The fault kinds of the issue, each as the proxy's action. */
const FAULT_KINDS: ReadonlyArray<{ readonly kind: string; readonly fault: (r: Random) => Fault }> = [
  { kind: 'reset-before', fault: () => ({ kind: 'reset-before' }) },
  { kind: 'reset-after-commit', fault: () => ({ kind: 'reset-after' }) },
  { kind: '503-retry-after', fault: () => ({ kind: 'respond', status: 503, headers: { 'retry-after': '1' }, body: envelope('backend_unavailable', true) }) },
  { kind: '503-no-retry-after', fault: () => ({ kind: 'respond', status: 503, body: envelope('backend_unavailable', true) }) },
  { kind: '429-rate-limited', fault: () => ({ kind: 'respond', status: 429, body: envelope('rate_limited', true) }) },
  { kind: 'slow-body', fault: (r) => ({ kind: 'slow-body', delayMs: r(200, 1500) }) },
  { kind: 'truncated-body', fault: () => ({ kind: 'truncate' }) },
];

export async function runFaultSoak(options: FaultSoakOptions): Promise<ReliabilityReport> {
  const report = emptyReport('fault soak');
  // Two streams: the configuration edits stay reproducible whatever order requests arrive in.
  const random = seededRandom(options.seed);
  const faultRandom = seededRandom(options.seed + 1);
  const percent = options.faultPercent ?? 12;
  const rig = await startRig({ asyncKinds: ['CounterReservation'] });
  try {
    let model = emptyModel();
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      model = nextModel(model, random, cycle);
      rig.writeConfig(model);
      rig.proxy.chooser = (request: ForwardedRequest) => {
        if (faultRandom(1, 100) > percent) return undefined;
        // A dropped poll is a reset on an Operation read; elsewhere any kind.
        if (request.method === 'GET' && request.path.includes('/operations/')) {
          count(report, 'fault:dropped-202-poll');
          return { kind: 'reset-after' };
        }
        const choice = pick(faultRandom, FAULT_KINDS);
        count(report, `fault:${choice.kind}`);
        return choice.fault(faultRandom);
      };
      const faulty = await rig.workspace.run(['apply', '-auto-approve', '-input=false', '-no-color']);
      rig.proxy.chooser = undefined;
      count(report, faulty.code === 0 ? 'applies:succeeded-despite-faults' : 'applies:failed-with-diagnostic');
      if (faulty.code !== 0 && !/Error: /.test(faulty.stdout + faulty.stderr)) {
        report.violations.push(`cycle ${cycle}: tofu apply failed without a diagnostic:\n${tail(faulty.stdout + faulty.stderr)}`);
      }
      if (/panic:|plugin exited|crashed/i.test(faulty.stdout + faulty.stderr)) {
        report.violations.push(`cycle ${cycle}: the provider crashed under faults:\n${tail(faulty.stdout + faulty.stderr)}`);
      }
      const c = await converge(rig.workspace);
      count(report, `reruns:${c.reruns}`);
      count(report, 'resumed creates', (c.output.match(/Interrupted create resumed/g) ?? []).length);
      if (!c.converged) report.violations.push(`cycle ${cycle}: no "No changes" after two re-runs of tofu apply:\n${tail(c.output)}`);
      const problems = checkInvariants(`cycle ${cycle}`, model, await rig.hostInventory(), rig.stateInventory());
      report.violations.push(...problems);
      count(report, 'cycles');
      options.log?.(
        `soak cycle ${cycle}/${options.cycles}: ${model.sequences.size} sequences, ${model.reservations.size} reservations, apply exit ${faulty.code}, re-runs ${c.reruns}${problems.length ? `, ${problems.length} violations` : ''}`,
      );
    }
    count(
      report,
      'faults injected',
      Object.entries(report.counters)
        .filter(([k]) => k.startsWith('fault:'))
        .reduce((s, [, v]) => s + v, 0),
    );
    count(report, 'host requests', rig.proxy.seen.length);
  } finally {
    await rig.close();
  }
  return report;
}

/**
 * The next configuration: every tenth cycle destroys everything, otherwise a few random
 * edits (add, remove, change a value, re-target a reservation, which replaces it).
 */
function nextModel(prev: DesiredModel, random: Random, cycle: number): DesiredModel {
  if (cycle % 10 === 0) return emptyModel();
  const sequences = new Map(prev.sequences);
  const reservations = new Map(prev.reservations);
  const edits = random(1, 3);
  for (let i = 0; i < edits; i++) {
    const name = pick(random, SEQUENCE_NAMES);
    switch (random(0, 4)) {
      case 0:
      case 1:
        sequences.set(name, { lower: random(0, 3), upper: random(10, 40) });
        break;
      case 2:
        if (![...reservations.values()].some((r) => r.target === name)) sequences.delete(name);
        break;
      case 3: {
        // CounterReservation is `exclusive` on its target: pick one no reservation holds,
        // before or after this cycle, so the configuration itself is always satisfiable.
        const held = new Set([...prev.reservations.values(), ...reservations.values()].map((r) => r.target));
        const targets = [...sequences.keys()].filter((t) => !held.has(t));
        if (targets.length) reservations.set(pick(random, RESERVATION_NAMES), { target: pick(random, targets) });
        break;
      }
      default:
        reservations.delete(pick(random, RESERVATION_NAMES));
    }
  }
  return { sequences, reservations };
}
