// Kill tests: SIGKILL of the provider or of `tofu` itself at a random moment of an apply
// (create, update or destroy of a multi-resource configuration, one Form answering 202),
// and a Host killed and restarted on the same database in the middle of a run. After each
// trial the next `tofu apply` (at most two re-runs) must converge with no duplicate, no
// orphan and no lost resource. A create that the Host committed but the state never saw
// must come back with the same uid — resumed through the create journal and the Host's
// idempotency record — never be created twice.
//
// One moment is outside the journal's reach, by design (docs/design.md, "What is left to the
// user"): core shuts the provider down when its last resource is done and only then saves the
// state, so a CLI killed in between leaves creates that were answered, whose journal entries
// the normal shutdown removed, and that the saved state never got. Resuming them would also
// resume after `state rm`, so the next run refuses them with "Resource already exists on the
// Host" and the import id. That is what a trial checks there: every such create refused with
// its id, nothing created twice, and `import` of each id converging with the same uids. It is
// told from a lost journal entry by the evidence: `tofu` was the one killed (a killed provider
// never shuts down normally, and after a Host restart `tofu` saves its state itself), the
// apply had created everything it was asked to (so its provider was done), and the journal
// holds none of the orphans.
import { readdirSync, readFileSync } from 'node:fs';
import {
  addressOf,
  checkInvariants,
  converge,
  emptyModel,
  modelInventoryKeys,
  SEQUENCE_NAMES,
  RESERVATION_NAMES,
  startRig,
  tail,
  type DesiredModel,
  type FormKey,
  type Inventory,
  type SoakRig,
} from './harness.js';
import { count, emptyReport, pick, seededRandom, type Random, type ReliabilityReport, type ScenarioOptions } from './report.js';

export interface KillOptions extends ScenarioOptions {
  readonly trials: number;
  readonly hostRestarts: number;
}

type Operation = 'create' | 'update' | 'destroy';

export async function runKills(options: KillOptions): Promise<ReliabilityReport> {
  const report = emptyReport('kills');
  const random = seededRandom(options.seed);
  const rig = await startRig({ asyncKinds: ['CounterReservation'] });
  // How long each kind of apply takes unkilled, so kill moments spread over the whole run.
  const durations: Record<Operation, number> = { create: 4000, update: 3000, destroy: 3000 };
  let model = emptyModel();
  try {
    const total = options.trials + options.hostRestarts;
    for (let trial = 1; trial <= total; trial++) {
      const restart = trial > options.trials;
      const inventory = await rig.hostInventory();
      const op: Operation = inventory.size === 0 ? 'create' : pick(random, ['update', 'destroy', 'update'] as const);
      model = op === 'create' ? fullModel(random) : op === 'update' ? updated(model, random) : emptyModel();
      rig.writeConfig(model);
      const delay = random(0, durations[op]);
      const label = `trial ${trial} (${restart ? 'Host restart' : 'kill'} during ${op} after ${delay} ms)`;
      const outcome = restart ? await restartDuring(rig, delay, random) : await killDuring(rig, delay, pick(random, ['provider', 'tofu'] as const));
      if (outcome.missed) {
        count(report, 'kills:missed (apply finished first)');
        durations[op] = Math.max(500, Math.round(outcome.elapsedMs * 0.9));
      } else count(report, restart ? 'host restarts' : `kills:${outcome.target}`);
      if (outcome.strayProvider) report.violations.push(`${label}: a provider process outlived its killed CLI by more than 5 s`);
      const hostAfter = await rig.hostInventory();
      const stateAfter = rig.stateInventory();
      // Orphans: on the Host, not in state. Each must be resumable (in the journal), except all
      // of them at once after a tofu kill that came once the apply had created everything —
      // the moment the journal leaves to the user (header). Anything else is a lost entry.
      const journal = rig.journalInventory();
      const orphans = [...hostAfter.keys()].filter((k) => stateAfter.get(k) !== hostAfter.get(k));
      const unjournaled = orphans.filter((k) => !journal.has(k));
      let imported = new Set<string>();
      if (unjournaled.length > 0) {
        const unsaved =
          op === 'create' &&
          outcome.target === 'tofu' &&
          unjournaled.length === orphans.length &&
          [...modelInventoryKeys(model)].every((k) => hostAfter.has(k));
        if (!unsaved)
          report.violations.push(
            `${label}: ${unjournaled.join(', ')} on the Host, neither in state nor in the create journal ` +
              `(${orphans.length - unjournaled.length} other orphans journaled), and not after a finished create's provider closed`,
          );
        else {
          count(report, 'kills after the provider closed, before core saved the state');
          report.violations.push(...(await importUnsaved(rig, label, unjournaled, hostAfter)));
          imported = new Set(unjournaled);
        }
      }
      const c = await converge(rig.workspace);
      count(report, `reruns:${c.reruns}`);
      if (!c.converged) report.violations.push(`${label}: no "No changes" after two re-runs of tofu apply:\n${tail(c.output)}`);
      const hostFinal = await rig.hostInventory();
      const stateFinal = rig.stateInventory();
      report.violations.push(...checkInvariants(label, model, hostFinal, stateFinal));
      countResumed(report, label, hostAfter, stateAfter, stateFinal, imported);
      count(report, 'trials');
      options.log?.(`kills ${label}: recovered in ${c.reruns} re-runs; Host ${hostFinal.size} resources`);
    }
  } finally {
    await rig.close();
  }
  return report;
}

/** Creates the Host committed that the state did not record when the kill hit. */
function countResumed(
  report: ReturnType<typeof emptyReport>,
  label: string,
  hostAfter: Inventory,
  stateAfter: Inventory,
  stateFinal: Inventory,
  imported: Set<string>,
): void {
  for (const [k, uid] of hostAfter) {
    if (stateAfter.get(k) === uid) continue;
    if (imported.has(k)) {
      if (stateFinal.get(k) === uid) count(report, 'unsaved creates imported (same uid)');
      else report.violations.push(`${label}: ${k} was imported with uid ${uid} but state holds ${String(stateFinal.get(k))}`);
      continue;
    }
    count(report, 'orphans left by a kill');
    const final = stateFinal.get(k);
    if (final === uid) count(report, 'creates resumed (same uid)');
    else if (final !== undefined) report.violations.push(`${label}: ${k} was created again (uid ${uid} → ${final}) instead of resumed`);
  }
}

/**
 * Creates the provider finished and closed on before core saved the state: each apply must
 * refuse them with the import id and create nothing; importing each id adopts it. A block
 * whose dependency was refused is not tried yet, so this takes one apply per level of the
 * configuration (sequences, then the reservations that name them).
 */
async function importUnsaved(rig: SoakRig, label: string, keys: string[], host: Inventory): Promise<string[]> {
  const problems: string[] = [];
  const pending = new Map(
    keys.map((k) => {
      const [form, name] = k.split('/') as [FormKey, string];
      return [addressOf(form, name), k] as const;
    }),
  );
  // Two levels in the configuration, so two rounds at most.
  for (let round = 1; pending.size > 0; round++) {
    if (round > 2) {
      problems.push(`${label}: still not refused after two applies: ${[...pending.keys()].join(', ')}`);
      break;
    }
    const apply = await rig.workspace.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    const text = apply.stdout + apply.stderr;
    // The CLIs wrap diagnostics: compare with whitespace collapsed.
    const refused = new Map<string, string>();
    const others: string[] = [];
    for (const block of text.split('Error: ').slice(1)) {
      const flat = block.replace(/\s+/g, ' ');
      const m = /^Resource already exists on the Host with ([^,\s]+),.*? with id = "([^"]+)"/.exec(flat);
      if (m) refused.set(m[1]!, m[2]!);
      else others.push(flat.slice(0, 200));
    }
    const after = await rig.hostInventory();
    for (const k of pending.values())
      if (after.get(k) !== host.get(k)) problems.push(`${label}: ${k} changed uid on the Host (${host.get(k)} → ${after.get(k)}) instead of being refused`);
    const unexpected = [...refused.keys()].filter((a) => !pending.has(a));
    if (apply.code !== 1 || refused.size === 0 || unexpected.length > 0 || others.length > 0) {
      problems.push(
        `${label}: apply ${round} after the unsaved creates exited ${apply.code}, refused ${[...refused.keys()].join(', ') || 'nothing'}` +
          `${others.length ? `, and also said: ${others.join(' | ')}` : ''}; still to import: ${[...pending.keys()].join(', ')}:\n${tail(text)}`,
      );
      break;
    }
    for (const [address, id] of refused) {
      const imported = await rig.workspace.run(['import', '-input=false', '-no-color', address, id]);
      if (imported.code !== 0) {
        problems.push(`${label}: import ${address} ${id} failed:\n${tail(imported.stdout + imported.stderr)}`);
        return problems;
      }
      pending.delete(address);
    }
  }
  return problems;
}

interface KillOutcome {
  readonly missed: boolean;
  readonly elapsedMs: number;
  readonly target: string;
  readonly strayProvider: boolean;
}

/** A `tofu apply` started now; `reached` says whether it was still running after `delayMs`. */
async function applyFor(rig: SoakRig, delayMs: number) {
  const started = Date.now();
  const tofu = rig.spawnTofu(['apply', '-auto-approve', '-input=false', '-no-color']);
  let finished = false;
  const exited = new Promise<void>((r) => tofu.once('exit', () => r())).then(() => {
    finished = true;
  });
  await Promise.race([exited, sleep(delayMs)]);
  return { tofu, exited, reached: !finished, isFinished: () => finished, elapsedMs: () => Date.now() - started };
}

async function killDuring(rig: SoakRig, delayMs: number, target: 'provider' | 'tofu'): Promise<KillOutcome> {
  const run = await applyFor(rig, delayMs);
  if (!run.reached) return { missed: true, elapsedMs: run.elapsedMs(), target, strayProvider: false };
  const providersOf = () => descendants(run.tofu.pid!).filter((p) => cmdline(p).includes('provider'));
  const providers = providersOf();
  if (target === 'provider') {
    // Between two provider launches: kill the next one as soon as it appears.
    for (let i = 0; i < 100 && !run.isFinished() && providers.length === 0; i++) {
      await sleep(20);
      providers.push(...providersOf());
    }
    for (const p of providers) kill(p);
    await run.exited;
    return { missed: providers.length === 0, elapsedMs: run.elapsedMs(), target, strayProvider: false };
  }
  run.tofu.kill('SIGKILL');
  await run.exited;
  // The provider's parent watchdog must end it once its CLI is gone.
  let stray = false;
  for (const p of providers) {
    const deadline = Date.now() + 5000;
    while (alive(p) && Date.now() < deadline) await sleep(50);
    if (alive(p)) {
      stray = true;
      kill(p);
    }
  }
  return { missed: false, elapsedMs: run.elapsedMs(), target, strayProvider: stray };
}

async function restartDuring(rig: SoakRig, delayMs: number, random: Random): Promise<KillOutcome> {
  const run = await applyFor(rig, delayMs);
  if (run.reached) {
    await rig.restartHost(random(200, 800));
    await run.exited;
  }
  return { missed: !run.reached, elapsedMs: run.elapsedMs(), target: 'host', strayProvider: false };
}

function fullModel(random: Random): DesiredModel {
  const model = emptyModel();
  for (const name of SEQUENCE_NAMES) model.sequences.set(name, { lower: random(0, 3), upper: random(10, 40) });
  // Distinct targets: CounterReservation is exclusive on its target.
  RESERVATION_NAMES.forEach((name, i) => model.reservations.set(name, { target: SEQUENCE_NAMES[i]! }));
  return model;
}

function updated(model: DesiredModel, random: Random): DesiredModel {
  const sequences = new Map(
    [...model.sequences].map(([n, v]) => [n, { lower: v.lower, upper: v.upper === 40 ? 10 : v.upper + random(1, 40 - v.upper) }] as const),
  );
  return { sequences, reservations: new Map(model.reservations) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== 'Z';
  } catch {
    return false;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** All processes below `root`, from /proc (Linux). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [child, pp] of parent) if (pp === p) (out.push(child), walk(child));
  };
  walk(root);
  return out;
}
