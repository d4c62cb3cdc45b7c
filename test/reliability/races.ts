// Concurrent runs, through the real `tofu` and the real reference Host:
//
// * claim / exclusive: two `tofu apply` processes on separate states race for the same claim
//   value (ClaimTicket, `claim` constraint, per tenant across spaces) and the same exclusive
//   target (CounterReservation, `exclusive` constraint), and both create a RangeSequence with
//   the same name and the same spec (one name, two owners wanted). Exactly one may win; the loser must
//   get a diagnostic naming its resource address, the Host code and what to do; both states
//   must agree with the Host. Rounds alternate between live applies (the later plan usually
//   meets the winner in the Host's prepare) and saved plans applied through a barrier proxy
//   that releases both creates together (only the Host's serialized apply can decide).
// * fence: a resource edited directly over HTTP between `tofu plan -out` and `tofu apply
//   <plan>` must be refused ("changed on the Host since plan") and the out-of-band value must
//   survive untouched (same generation, same spec).
// * pg lock: two runs on the same state through OpenTofu's `pg` backend on a real PostgreSQL
//   server: the second one fails on the state lock (no -lock-timeout) or waits for it
//   (-lock-timeout) and then builds on the first one's state; afterwards the state is valid,
//   its serial grew, Host resources == state resources and a re-plan has no changes.
//
// Every broken invariant becomes a sentence in `violations`; only a broken set-up (missing
// tool, Host or PostgreSQL that will not start) throws.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { findPostgresBin, startPostgres, type Postgres } from '../support/postgres.js';
import { BarrierProxy } from '../support/barrier-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { GENERIC_FORMS, TOFU, requireFile } from '../support/paths.js';
import { createWorkspace, type TofuRun, type TofuWorkspace } from '../support/tofu.js';
import { count, emptyReport, pick, seededRandom, type Random, type ReliabilityReport, type ScenarioOptions } from './report.js';

/** Texts the test asserts on directly, so that it can fail for a reason a human can read. */
export interface RaceSamples {
  /** The loser's diagnostic in a claim race (one `Error:` block of its stderr). */
  claimLoser?: string;
  /** The loser's diagnostic in an exclusive race. */
  exclusiveLoser?: string;
  /** The loser's diagnostic in a same-name race ("Resource already exists on the Host"). */
  sameNameLoser?: string;
  /** The diagnostic of a saved plan refused by the fence (the resource was edited on the Host). */
  fenceRefusal?: string;
  /** The diagnostic of a saved plan whose create found the name taken on the Host. */
  fenceCreateRefusal?: string;
  /** What the second run on a locked pg state printed when it did not wait. */
  lockFailure?: string;
  /** What the second run printed while it waited for the lock (-lock-timeout). */
  lockWait?: string;
}

/** A ReliabilityReport (so the soak table takes it as is) with the sample texts. */
export interface RacesReport extends ReliabilityReport {
  readonly samples: RaceSamples;
}

const FORM_DIRS = ['range-sequence', 'range-gauge', 'counter-reservation', 'constraint-claim-primary'] as const;
/** One space per concern, so the races, the fence and the pg state never see each other's resources. */
const SPACE = 'races';
const OTHER_SPACE = 'races-other';
const PG_SPACE = 'races-pg';
const PG_DATABASE = 'takoform_races';
const PG_SCHEMA = 'takoform_state';
/** How many polls of an Operation answer "pending" (Retry-After: 1): an async create lasts ~4 s. */
const PENDING_POLLS = 4;
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];

export async function runRaces(options: ScenarioOptions & { rounds: number }): Promise<RacesReport> {
  const report: RacesReport = { ...emptyReport('races'), samples: {} };
  const random = seededRandom(options.seed);
  const log = (line: string) => options.log?.(`races: ${line}`);
  requireFile(TOFU, 'run `bash scripts/install-tofu` first');
  const pgBin = findPostgresBin();

  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    // RangeGauge answers every change with 202 + an Operation that stays pending for a few
    // polls: the run that creates one holds its state lock long enough for the other to meet it.
    const host = await startHostProcess(
      FORM_DIRS.map((d) => path.join(GENERIC_FORMS, d)),
      undefined,
      ['--async-form', 'resources.publisher.example/RangeGauge', '--operation-pending-polls', String(PENDING_POLLS)],
    );
    // Cleanups run last-in first-out: the Host stops before its directory goes.
    cleanups.push(
      () => rmSync(host.dir, { recursive: true, force: true }),
      () => host.stop(),
    );
    const refs = Object.fromEntries(FORM_DIRS.map((d) => [d, readFormRef(d)])) as Record<(typeof FORM_DIRS)[number], FormRefLike>;

    // The racing workspaces reach the Host through a barrier that can hold two creates until
    // both have arrived, so that both are in flight at the Host at once.
    const barrier = await BarrierProxy.start(host.url);
    cleanups.push(() => barrier.close());
    const viaBarrier = { url: barrier.url, token: host.token };
    const a = workspace(viaBarrier, SPACE, cleanups);
    const b = workspace(viaBarrier, SPACE, cleanups);
    await lockCatalog(a, [b]);
    await Promise.all([a.ok(['init', '-input=false', '-no-color']), b.ok(['init', '-input=false', '-no-color'])]);
    log('Host and two workspaces (separate local states) ready');

    const races = new ClaimRaces(host, barrier, refs, a, b, report, random, log);
    await races.setUp();
    for (let round = 0; round < options.rounds; round++) {
      await races.race(round);
      await races.fence(round);
    }
    await races.finalCheck();

    const pgRounds = Math.max(1, Math.ceil(options.rounds / 2));
    const pg = await startPostgres(pgBin);
    cleanups.push(() => pg.stop());
    await new PgRaces(host, refs, pg, report, random, log, cleanups).run(pgRounds);
  } finally {
    for (const cleanup of cleanups.reverse()) {
      // One failed clean-up must not keep the others (a running PostgreSQL) from happening.
      try {
        await cleanup();
      } catch (e) {
        log(`clean-up failed: ${(e as Error).message}`);
      }
    }
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// claim / exclusive races on separate states, and the fence against out-of-band edits

type Side = 'a' | 'b';

interface Block {
  readonly address: string;
  readonly name: string;
  readonly space: string;
  readonly ref: FormRefLike;
  readonly hcl: string;
}

interface Contender extends Block {
  readonly side: Side;
  readonly kind: 'claim' | 'exclusive' | 'same-name';
}

const KINDS = ['claim', 'exclusive', 'same-name'] as const;

// A type alias, not an interface, so that it is assignable to Record<string, unknown>.
type RangeSpec = { lower: number; upper: number; mode: 'safe' | 'fast' };

/** The last value written out of band; the provider must never have overwritten it. */
interface OutOfBand {
  readonly name: string;
  readonly spec: RangeSpec;
  readonly generation: string;
}

class ClaimRaces {
  private readonly owned: Record<Side, Block[]> = { a: [], b: [] };
  private readonly api: HostApi;
  /** The range sequence the fence checks edit; side A's configuration always carries it. */
  private fenced: RangeSpec = { lower: 1, upper: 3, mode: 'safe' };
  private readonly outOfBand = new Map<string, OutOfBand>();
  private readonly claims: { round: number; contenders: Contender[] }[] = [];
  /** Whether even or odd rounds use saved plans: with two rounds or more both modes run. */
  private readonly modeOffset: number;

  constructor(
    private readonly host: HostProcess,
    private readonly barrier: BarrierProxy,
    private readonly refs: Record<(typeof FORM_DIRS)[number], FormRefLike>,
    private readonly a: TofuWorkspace,
    private readonly b: TofuWorkspace,
    private readonly report: RacesReport,
    private readonly random: Random,
    private readonly log: (line: string) => void,
  ) {
    this.api = new HostApi(host.url, host.token, SPACE);
    this.modeOffset = random(0, 1);
  }

  private ws(side: Side): TofuWorkspace {
    return side === 'a' ? this.a : this.b;
  }

  private fencedBlock(spec: RangeSpec): Block {
    return rangeBlock('takoform_range_sequence', 'fenced', 'fenced', SPACE, spec, this.refs['range-sequence']);
  }

  private config(side: Side, extra: readonly Block[] = [], fenced = this.fenced): string {
    const blocks = [...(side === 'a' ? [this.fencedBlock(fenced)] : []), ...this.owned[side], ...extra];
    return PROVIDER_BLOCK + blocks.map((blk) => blk.hcl).join('');
  }

  private write(side: Side, extra: readonly Block[] = [], fenced = this.fenced): void {
    writeFileSync(path.join(this.ws(side).dir, 'main.tf'), this.config(side, extra, fenced));
  }

  async setUp(): Promise<void> {
    // The resource the fence checks edit exists before the first round, so every fence check
    // is about an update (a lost create race of side A would otherwise leave it unmade).
    this.write('a');
    this.write('b');
    await this.a.ok(APPLY);
  }

  async race(round: number): Promise<void> {
    const target = `rt-${round}`;
    // The exclusive target exists before either run starts: created out of band, like a
    // shared resource another team owns.
    await this.api.put(this.refs['range-sequence'], target, { lower: 0, upper: round + 1 });
    // `claim` holds per tenant across spaces: sometimes the second claimant is in another space.
    const crossSpace = this.random(0, 1) === 1;
    // On odd rounds side B writes its claim and its same-name create with the generic
    // takoform_resource: the Host's rules, the ownership keys and the diagnostics must not
    // depend on the kind.
    const genericB = round % 2 === 1;
    const contenders: Contender[] = (['a', 'b'] as const).flatMap((side): Contender[] => {
      const claimSpace = side === 'b' && crossSpace ? OTHER_SPACE : SPACE;
      const claimLabel = `claim_${round}`;
      const holdLabel = `hold_${round}`;
      const generic = side === 'b' && genericB;
      const sameSpec: RangeSpec = { lower: 1, upper: round + 2, mode: 'safe' };
      return [
        {
          side,
          kind: 'claim',
          address: `${generic ? 'takoform_resource' : 'takoform_claim_ticket'}.${claimLabel}`,
          name: `claim-${side}-${round}`,
          space: claimSpace,
          ref: this.refs['constraint-claim-primary'],
          hcl: generic
            ? genericHcl(claimLabel, this.refs['constraint-claim-primary'], `claim-${side}-${round}`, claimSpace, { claim: `ticket-${round}` })
            : resourceHcl('takoform_claim_ticket', claimLabel, { name: `claim-${side}-${round}`, space: claimSpace, claim: `ticket-${round}` }),
        },
        {
          side,
          kind: 'exclusive',
          address: `takoform_counter_reservation.${holdLabel}`,
          name: `hold-${side}-${round}`,
          space: SPACE,
          ref: this.refs['counter-reservation'],
          hcl: resourceHcl('takoform_counter_reservation', holdLabel, { name: `hold-${side}-${round}`, target }),
        },
        // Byte-identical creates from two states: same name, same spec, same principal.
        {
          side,
          kind: 'same-name',
          ...(generic
            ? {
                address: `takoform_resource.same_${round}`,
                name: `same-${round}`,
                space: SPACE,
                ref: this.refs['range-sequence'],
                hcl: genericHcl(`same_${round}`, this.refs['range-sequence'], `same-${round}`, SPACE, sameSpec),
              }
            : rangeBlock('takoform_range_sequence', `same_${round}`, `same-${round}`, SPACE, sameSpec, this.refs['range-sequence'])),
        },
      ];
    });
    for (const side of ['a', 'b'] as const)
      this.write(
        side,
        contenders.filter((c) => c.side === side),
      );

    // Live: both run `apply -auto-approve`; whoever plans after the other's create is refused
    // by the Host's prepare. Saved plans: both `plan -out` first (both pass, nothing is taken
    // yet), then both apply their plans while the barrier holds each create until the other
    // side's create of the same kind has arrived: both passed prepare, both are in flight at
    // once, and only the Host's serialized check-and-write can decide.
    const mode = (round + this.modeOffset) % 2 === 0 ? 'saved-plans' : 'live';
    // Which side starts first, and how far behind the other follows.
    const first: Side = this.random(0, 1) === 0 ? 'a' : 'b';
    const second: Side = first === 'a' ? 'b' : 'a';
    const delayMs = this.random(0, 3) === 0 ? this.random(1500, 3000) : this.random(0, 300);
    this.log(`round ${round} (${mode}): ${first} starts, ${second} follows after ${delayMs} ms${crossSpace ? ', claims in two spaces' : ''}`);
    count(this.report, `races:mode:${mode}`);
    let args = APPLY;
    if (mode === 'saved-plans') {
      const plans = await Promise.all((['a', 'b'] as const).map((side) => this.ws(side).run(['plan', '-input=false', '-no-color', '-out', 'race.tfplan'])));
      const failed = plans.findIndex((r) => r.code !== 0);
      if (failed >= 0) {
        this.write('a');
        this.write('b');
        return this.violation(
          `round ${round}: side ${failed === 0 ? 'a' : 'b'} could not plan before any contender existed (exit ${plans[failed]!.code}):\n${tail(plans[failed]!.stderr)}`,
        );
      }
      args = ['apply', '-input=false', '-no-color', 'race.tfplan'];
      for (const kind of KINDS) {
        this.barrier.hold(contenders.filter((c) => c.kind === kind).map((c) => `/${c.ref.kind}/${c.name}`));
      }
    }
    const firstRun = this.ws(first).run(args);
    await sleep(delayMs);
    const secondRun = this.ws(second).run(args);
    const runs: Record<Side, TofuRun> = first === 'a' ? { a: await firstRun, b: await secondRun } : { a: await secondRun, b: await firstRun };
    for (const met of this.barrier.release()) count(this.report, met ? 'races:barrier:met' : 'races:barrier:timed-out');

    const states = { a: await this.stateOf('a'), b: await this.stateOf('b') };
    const wonAll: Record<Side, boolean> = { a: true, b: true };
    for (const kind of KINDS) {
      count(this.report, `races:${kind}`);
      const pair = contenders.filter((c) => c.kind === kind);
      if (kind === 'same-name') {
        if (!(await this.checkSameName(round, pair, states, runs))) for (const c of pair) wonAll[c.side] = false;
        else wonAll[pair.find((c) => !this.owned[c.side].includes(c))!.side] = false;
        continue;
      }
      const onHost = await Promise.all(pair.map((c) => this.readOnHost(c)));
      const winners = pair.filter((_, i) => onHost[i] !== null);
      const what = kind === 'claim' ? `claim "ticket-${round}"` : `exclusive target "${target}"`;
      if (winners.length !== 1) {
        this.violation(
          `round ${round}: the Host has ${winners.length} holders of ${what} (${winners.map((w) => `${w.space}/${w.name}`).join(', ') || 'none'}); exactly one run must win. a: exit ${runs.a.code}, b: exit ${runs.b.code}\n${tail(runs.a.stderr)}\n${tail(runs.b.stderr)}`,
        );
        for (const c of pair) wonAll[c.side] = false;
        continue;
      }
      const winner = winners[0]!;
      const loser = pair.find((c) => c !== winner)!;
      wonAll[loser.side] = false;
      this.owned[winner.side].push(winner);
      const uid = onHost[pair.indexOf(winner)]!.metadata.uid;
      // Both states must agree with the Host: the winner records the Host's incarnation, the
      // loser records nothing for its contender.
      const inWinner = states[winner.side]?.byName.get(`${winner.space}/${winner.name}`);
      if (inWinner !== uid)
        this.violation(
          `round ${round}: side ${winner.side} holds ${what} on the Host (uid ${uid}) but its state records ${inWinner ?? 'nothing'} for ${winner.address}`,
        );
      if (states[loser.side]?.byName.has(`${loser.space}/${loser.name}`))
        this.violation(`round ${round}: side ${loser.side} lost ${what} but its state still records ${loser.address}`);
      this.checkLoser(round, kind, what, loser, runs[loser.side]);
    }
    for (const side of ['a', 'b'] as const) {
      if (wonAll[side] && runs[side].code !== 0)
        this.violation(`round ${round}: side ${side} won both races but its apply exited ${runs[side].code}:\n${tail(runs[side].stderr)}`);
    }
    this.claims.push({ round, contenders });
    // Only what each side owns stays in its configuration, so the next round's applies
    // neither retry a lost contender nor destroy a won one.
    this.write('a');
    this.write('b');
  }

  /**
   * Two states created one name with one spec: the Host holds one resource, exactly one
   * state records its uid (the other nothing), and the loser was told the name is taken.
   * Returns false when no single owner could be found.
   */
  private async checkSameName(
    round: number,
    pair: Contender[],
    states: Record<Side, { byName: Map<string, string> } | undefined>,
    runs: Record<Side, TofuRun>,
  ): Promise<boolean> {
    const what = `the name "${pair[0]!.name}"`;
    const onHost = await this.readOnHost(pair[0]!);
    if (!onHost) {
      this.violation(
        `round ${round}: neither state created ${what}: a: exit ${runs.a.code}, b: exit ${runs.b.code}\n${tail(runs.a.stderr)}\n${tail(runs.b.stderr)}`,
      );
      return false;
    }
    const key = `${SPACE}/${pair[0]!.name}`;
    const owners = pair.filter((c) => states[c.side]?.byName.get(key) === onHost.metadata.uid);
    if (owners.length !== 1) {
      this.violation(
        `round ${round}: ${owners.length} states record the uid ${onHost.metadata.uid} of ${what} on the Host: ${owners.map((o) => o.side).join(', ') || 'none'}; exactly one must own it. a: exit ${runs.a.code}, b: exit ${runs.b.code}`,
      );
      return false;
    }
    const winner = owners[0]!;
    const loser = pair.find((c) => c !== winner)!;
    this.owned[winner.side].push(winner);
    if (states[loser.side]?.byName.has(key))
      this.violation(`round ${round}: side ${loser.side} lost ${what} but its state records ${loser.address} as ${states[loser.side]!.byName.get(key)}`);
    this.checkLoser(round, 'same-name', what, loser, runs[loser.side]);
    return true;
  }

  /** The loser must say which resource, which Host code and what to do. */
  private checkLoser(round: number, kind: Contender['kind'], what: string, loser: Contender, run: TofuRun): void {
    if (run.code === 0) {
      this.violation(`round ${round}: side ${loser.side} lost ${what} but its apply exited 0 (no error shown to the user)`);
      return;
    }
    const block = errorBlocks(run.stderr).find((b) => b.includes(`with ${loser.address},`));
    if (block === undefined) {
      // Core stops the whole run when any plan step fails: the loser may have been refused for
      // its other contender at plan time and never attempted this one. That is fine as long as
      // it really never tried to create it.
      const attempted = run.stdout.includes(`${loser.address}: Creating...`);
      const refusedElsewhere = /Host refused: /.test(run.stderr) && !run.stdout.includes('Apply complete');
      if (attempted || !refusedElsewhere) {
        this.violation(`round ${round}: side ${loser.side} lost ${what} but no diagnostic names ${loser.address}:\n${tail(run.stderr)}`);
      } else count(this.report, `races:${kind}:not-attempted`);
      return;
    }
    const text = oneLine(block);
    const expected =
      kind === 'same-name'
        ? [
            ['the summary', 'Resource already exists on the Host'],
            ['the Host name of the resource', `"${loser.name}" already exists in space "${loser.space}"`],
            ['the import id', `${loser.space}/${loser.name}"`],
            ['that nothing changed', 'Nothing was changed'],
            ['the Host code', 'Host code: '],
          ]
        : [
            ['the Host code', 'Host refused: invalid_argument'],
            ['the Host code line', 'Host code: invalid_argument'],
            ['the Host rule', kind === 'claim' ? 'is already claimed by another ClaimTicket' : 'already holds'],
            ['the Host name of the resource', `"${loser.name}" in space "${loser.space}"`],
            ['what to do', 'run the command again'],
          ];
    const missing = expected.filter(([, needle]) => !text.includes(needle!));
    if (missing.length)
      this.violation(`round ${round}: the diagnostic of the ${kind} loser ${loser.address} lacks ${missing.map(([w]) => w).join(', ')}:\n${block}`);
    count(this.report, `races:${kind}:refused-at-${text.includes('refused to prepare') ? 'prepare' : 'apply'}`);
    if (kind === 'claim') this.report.samples.claimLoser ??= block;
    else if (kind === 'exclusive') this.report.samples.exclusiveLoser ??= block;
    else this.report.samples.sameNameLoser ??= block;
  }

  /**
   * `tofu plan -out`, an edit over HTTP, then `tofu apply <plan>`: the fence must refuse and
   * the Host must keep the out-of-band value (same spec, same generation: not even a rewrite).
   */
  async fence(round: number): Promise<void> {
    // The first round always edits the resource (the case the fence exists for); later rounds
    // may also have someone take the name a planned create wanted.
    const edits = ['same-attribute', 'other-attribute', 'same-as-plan'] as const;
    const variant = pick(this.random, round === 0 ? edits : [...edits, 'create-taken' as const]);
    count(this.report, 'races:fence');
    count(this.report, `races:fence:${variant}`);
    const ref = this.refs['range-sequence'];
    // Never what the Host already holds (earlier rounds stay below 20 + round * 10), so the plan
    // always changes something.
    const planned: RangeSpec = { lower: 1, upper: 20 + round * 10 + this.random(0, 2), mode: this.random(0, 1) ? 'fast' : 'safe' };
    let name = 'fenced';
    let address = 'takoform_range_sequence.fenced';
    let generation: string | undefined;
    let outOfBand: RangeSpec;
    if (variant === 'create-taken') {
      // The plan creates a name that someone else takes before the apply.
      name = `fenced-new-${round}`;
      const label = `fenced_new_${round}`;
      address = `takoform_range_sequence.${label}`;
      this.write('a', [rangeBlock('takoform_range_sequence', label, name, SPACE, planned, ref)]);
      outOfBand = { lower: 2, upper: planned.upper + 1, mode: planned.mode };
    } else {
      const current = await this.readOnHost({ name, space: SPACE, ref });
      if (!current) return this.violation(`round ${round}: takoform_range_sequence.fenced is missing on the Host before the fence check`);
      generation = current.metadata.generation;
      this.write('a', [], planned);
      outOfBand =
        variant === 'same-attribute'
          ? { ...this.fenced, upper: planned.upper + 1 }
          : variant === 'other-attribute'
            ? { ...this.fenced, mode: this.fenced.mode === 'safe' ? 'fast' : 'safe' }
            : { ...planned }; // same-as-plan: the Host already stores what the plan wants, yet the plan is stale
    }
    const plan = await this.a.run(['plan', '-input=false', '-no-color', '-out', 'fence.tfplan']);
    if (plan.code !== 0 || !plan.stdout.includes(`# ${address} will be`))
      return this.violation(
        `round ${round} (fence, ${variant}): plan -out exited ${plan.code} or does not change ${address}:\n${tail(plan.stdout)}\n${tail(plan.stderr)}`,
      );
    const written = (await this.api.put(ref, name, { ...outOfBand }, generation)) as { metadata: { generation: string } };
    const apply = await this.a.run(['apply', '-input=false', '-no-color', 'fence.tfplan']);
    const block = errorBlocks(apply.stderr).find((b) => b.includes(`with ${address},`));
    if (apply.code === 0 || block === undefined) {
      this.violation(
        `round ${round} (fence, ${variant}): the saved plan was applied (exit ${apply.code}) although ${address} changed on the Host since plan:\n${tail(apply.stdout)}\n${tail(apply.stderr)}`,
      );
    } else if (variant === 'create-taken') {
      // The name was taken since plan: the provider says so and how to adopt it.
      if (
        !/Resource already exists on the Host|changed on the Host since plan/i.test(oneLine(block)) ||
        !/Nothing was changed|run plan again/i.test(oneLine(block))
      ) {
        this.violation(`round ${round} (fence, ${variant}): the refusal of ${address} does not say the name was taken on the Host since plan:\n${block}`);
      } else this.report.samples.fenceCreateRefusal ??= block;
    } else if (!/changed on the Host since plan/i.test(oneLine(block)) || !/run plan again/i.test(oneLine(block))) {
      this.violation(
        `round ${round} (fence, ${variant}): the refusal of ${address} does not say it changed on the Host since plan and to run plan again:\n${block}`,
      );
    } else this.report.samples.fenceRefusal ??= block;
    this.outOfBand.set(name, { name, spec: outOfBand, generation: written.metadata.generation });
    await this.checkOutOfBand(`round ${round} (fence, ${variant})`, name);
    // Side A adopts the out-of-band value (an edited resource) or leaves the name to whoever
    // took it (create-taken), so no later apply of this run overwrites it.
    if (variant !== 'create-taken') this.fenced = outOfBand;
    this.write('a');
  }

  private async checkOutOfBand(when: string, name: string): Promise<void> {
    const expected = this.outOfBand.get(name)!;
    const now = await this.readOnHost({ name, space: SPACE, ref: this.refs['range-sequence'] });
    if (!now) return this.violation(`${when}: ${name}, written out of band, is gone from the Host`);
    if (JSON.stringify(sortKeys(now.spec)) !== JSON.stringify(sortKeys(expected.spec)) || now.metadata.generation !== expected.generation) {
      this.violation(
        `${when}: the out-of-band value of ${name} was overwritten: the Host has ${JSON.stringify(now.spec)} at generation ${now.metadata.generation}, written out of band was ${JSON.stringify(expected.spec)} at generation ${expected.generation}`,
      );
    }
  }

  /** After all rounds: still exactly one claimant per race, and every out-of-band value intact. */
  async finalCheck(): Promise<void> {
    // One more plan of each side: both states converge with the Host (exit 0, no changes).
    for (const side of ['a', 'b'] as const) {
      const plan = await this.ws(side).run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
      if (plan.code !== 0)
        this.violation(`after the races, side ${side} does not plan "no changes" (exit ${plan.code}):\n${tail(plan.stdout)}\n${tail(plan.stderr)}`);
    }
    for (const { round, contenders } of this.claims) {
      for (const kind of ['claim', 'exclusive'] as const) {
        const pair = contenders.filter((c) => c.kind === kind);
        // (same-name contenders share one name: the Host can hold at most one; the final
        // "no changes" plans above show that exactly one state still owns it.)
        const live = (await Promise.all(pair.map((c) => this.readOnHost(c)))).filter((r) => r !== null);
        if (live.length !== 1) this.violation(`at the end, round ${round}'s ${kind} has ${live.length} holders on the Host (expected exactly one)`);
      }
    }
    for (const name of this.outOfBand.keys()) await this.checkOutOfBand('at the end', name);
  }

  private async stateOf(side: Side): Promise<{ byName: Map<string, string> } | undefined> {
    const pulled = await this.ws(side).run(['state', 'pull']);
    const doc = parseState(pulled.stdout);
    if (pulled.code !== 0 || typeof doc === 'string') {
      this.violation(
        `side ${side}: tofu state pull failed or is not a valid state (${pulled.code}): ${typeof doc === 'string' ? doc : ''}\n${tail(pulled.stderr)}`,
      );
      return undefined;
    }
    return { byName: stateUids(doc) };
  }

  private async readOnHost(what: { name: string; space: string; ref: FormRefLike }): Promise<HostResource | null> {
    return readResource(this.host, what.space, what.ref, what.name, (v) => this.violation(v));
  }

  private violation(sentence: string): void {
    this.report.violations.push(sentence);
    this.log(`VIOLATION ${sentence.split('\n')[0]}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Two runs on the same state through the pg backend

class PgRaces {
  /** Every resource either configuration ever named. */
  private readonly known: { address: string; name: string; ref: FormRefLike; hcl: string }[] = [];
  private lineage: string | undefined;
  private serial = -1;

  constructor(
    private readonly host: HostProcess,
    private readonly refs: Record<(typeof FORM_DIRS)[number], FormRefLike>,
    private readonly pg: Postgres,
    private readonly report: RacesReport,
    private readonly random: Random,
    private readonly log: (line: string) => void,
    private readonly cleanups: (() => Promise<void> | void)[],
  ) {}

  private violation(sentence: string): void {
    this.report.violations.push(sentence);
    this.log(`VIOLATION ${sentence.split('\n')[0]}`);
  }

  async run(rounds: number): Promise<void> {
    const db = PG_DATABASE;
    await this.pg.createDatabase(db);
    const backend = `terraform {\n  backend "pg" {\n    conn_str    = "postgres://postgres@127.0.0.1:${this.pg.port}/${db}?sslmode=disable"\n    schema_name = "${PG_SCHEMA}"\n  }\n}\n`;
    // Two working directories, one state: what two people (or two CI jobs) sharing a backend have.
    const p = workspace(this.host, PG_SPACE, this.cleanups);
    const q = workspace(this.host, PG_SPACE, this.cleanups);
    await lockCatalog(p, [q]);
    for (const ws of [p, q]) {
      writeFileSync(path.join(ws.dir, 'backend.tf'), backend);
      writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK);
      // One after the other: the first init creates the schema and table.
      await ws.ok(['init', '-input=false', '-no-color']);
    }
    this.log(`PostgreSQL on port ${this.pg.port}; two working directories share one pg state`);
    for (let round = 0; round < rounds; round++) await this.round(round, p, q);
  }

  private async round(round: number, p: TofuWorkspace, q: TofuWorkspace): Promise<void> {
    count(this.report, 'races:pg-lock');
    // The first round always tries both behaviours (fail fast, then wait); later ones vary.
    const tryFailFast = round === 0 || this.random(0, 1) === 1;
    const [first, second] = this.random(0, 1) === 0 ? [p, q] : [q, p];
    const slow = { address: `takoform_range_gauge.pg_a_${round}`, name: `pg-a-${round}`, ref: this.refs['range-gauge'] };
    const quick = { address: `takoform_range_sequence.pg_b_${round}`, name: `pg-b-${round}`, ref: this.refs['range-sequence'] };
    const slowBlock = { ...slow, hcl: resourceHcl('takoform_range_gauge', `pg_a_${round}`, { name: slow.name, lower: 1, upper: round + 2 }) };
    const quickBlock = { ...quick, hcl: resourceHcl('takoform_range_sequence', `pg_b_${round}`, { name: quick.name, lower: 1, upper: round + 2 }) };
    const before = [...this.known];
    // The first run adds a slow (asynchronous) resource; the second wants that one too (it
    // configures what it expects to find) plus a quick one of its own.
    writeFileSync(path.join(first.dir, 'main.tf'), PROVIDER_BLOCK + [...before, slowBlock].map((k) => k.hcl).join(''));
    writeFileSync(path.join(second.dir, 'main.tf'), PROVIDER_BLOCK + [...before, slowBlock, quickBlock].map((k) => k.hcl).join(''));
    this.known.push(slowBlock, quickBlock);
    await this.checkState(`pg round ${round}, before`, before, false, p, q);

    // Start the second run only once the first one is applying, i.e. surely holds the lock.
    let applying: () => void = () => {};
    const firstApplying = new Promise<void>((resolve) => (applying = resolve));
    const firstRun = startTofu(first, APPLY, (out) => {
      if (out.includes(`${slow.address}: Creating...`)) applying();
    });
    await Promise.race([firstApplying, firstRun.done]);
    if (!firstRun.running()) {
      const r = await firstRun.done;
      return this.violation(`pg round ${round}: the first run ended before it started applying (exit ${r.code}):\n${tail(r.stdout)}\n${tail(r.stderr)}`);
    }
    this.log(`pg round ${round}: first run holds the lock; second run ${tryFailFast ? 'without, then with' : 'with'} -lock-timeout`);

    if (tryFailFast) {
      const failed = await startTofu(second, [...APPLY, '-lock-timeout=0s']).done;
      const overlapped = firstRun.running();
      if (!overlapped) {
        this.report.notes.push(`pg round ${round}: the first run ended before the second finished trying the lock; fail-fast not exercised`);
      } else if (failed.code === 0) {
        this.violation(`pg round ${round}: a second apply on the same pg state succeeded while the first still held the lock:\n${tail(failed.stdout)}`);
      } else {
        const text = oneLine(failed.stderr);
        if (!text.includes('Error acquiring the state lock') || !/already locked/i.test(text)) {
          this.violation(`pg round ${round}: the second run failed without a clear state-lock message:\n${tail(failed.stderr)}`);
        } else {
          count(this.report, 'races:pg-lock:failed-fast');
          this.report.samples.lockFailure ??= failed.stderr;
        }
        // It must not have touched the Host either.
        if (await this.readOnHost(quick)) this.violation(`pg round ${round}: the run refused by the state lock still created ${quick.address} on the Host`);
      }
    }

    // A fail-fast run that met no lock (the first run had just ended) may have created the
    // quick resource already; the waiting run then has nothing left to do.
    const quickDone = (await this.readOnHost(quick)) !== null;
    const waitStarted = firstRun.running();
    const waited = await startTofu(second, [...APPLY, '-lock-timeout=120s']).done;
    const firstResult = await firstRun.done;
    if (firstResult.code !== 0)
      this.violation(`pg round ${round}: the first run (holding the lock) failed (exit ${firstResult.code}):\n${tail(firstResult.stderr)}`);
    if (waited.code !== 0) {
      this.violation(`pg round ${round}: the run that waited for the lock failed (exit ${waited.code}):\n${tail(waited.stdout)}\n${tail(waited.stderr)}`);
    } else {
      // OpenTofu prints this only when taking the lock lasts longer than 400 ms: it waited.
      const didWait = waited.stdout.includes('Acquiring state lock. This may take a few moments...');
      if (waitStarted && didWait) {
        if (waited.endedAt < firstResult.endedAt) this.violation(`pg round ${round}: the waiting run finished before the run holding the lock did`);
        count(this.report, 'races:pg-lock:waited');
        this.report.notes.push(`pg round ${round}: the second run waited ${((firstResult.endedAt - waited.startedAt) / 1000).toFixed(1)} s for the state lock`);
        this.report.samples.lockWait ??= waited.stdout + waited.stderr;
      } else this.report.notes.push(`pg round ${round}: the first run ended before the waiting run asked for the lock; wait not exercised`);
      // Lost update check: the waiting run must have read the first run's state, so it
      // creates only its own resource and never tries the first one's again.
      if (waited.stdout.includes(`${slow.address}: Creating...`))
        this.violation(`pg round ${round}: the run that waited for the lock did not see the first run's state: it created ${slow.address} again`);
      if (!quickDone && !waited.stdout.includes(`${quick.address}: Creation complete`))
        this.violation(`pg round ${round}: the run that waited for the lock did not create ${quick.address}:\n${tail(waited.stdout)}`);
    }

    // Both directories now configure everything; the shared state must be whole and converged.
    for (const ws of [p, q]) writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + this.known.map((k) => k.hcl).join(''));
    await this.checkState(`pg round ${round}, after`, this.known, true, p, q);
  }

  /** Valid JSON, same lineage, growing serial, state == Host, and (after) a clean re-plan. */
  private async checkState(
    when: string,
    expected: readonly { address: string; name: string }[],
    after: boolean,
    p: TofuWorkspace,
    q: TofuWorkspace,
  ): Promise<void> {
    const pulled = await p.run(['state', 'pull']);
    const doc = parseState(pulled.stdout);
    if (pulled.code !== 0 || typeof doc === 'string')
      return this.violation(
        `${when}: tofu state pull from the pg backend failed or is not a valid state (exit ${pulled.code}): ${typeof doc === 'string' ? doc : ''}\n${tail(pulled.stderr)}`,
      );
    // Before the first apply the backend holds no state: `state pull` prints an empty one
    // (serial 0, no lineage) and `state list` says "No state file was found".
    const none = doc.lineage === '';
    if (none && (after || this.lineage !== undefined)) return this.violation(`${when}: the pg backend has no state although applies wrote it`);
    if (this.lineage !== undefined && doc.lineage !== this.lineage)
      this.violation(`${when}: the pg state lineage changed from ${this.lineage} to ${doc.lineage}`);
    if (after && doc.serial <= this.serial)
      this.violation(`${when}: the pg state serial did not grow (${this.serial} -> ${doc.serial}) although two applies wrote it`);
    if (!after && this.lineage !== undefined && doc.serial !== this.serial)
      this.violation(`${when}: the pg state serial moved between rounds (${this.serial} -> ${doc.serial}) with no run in between`);
    if (after) this.report.notes.push(`${when}: pg state serial ${this.serial} -> ${doc.serial}`);
    if (!none) this.lineage = doc.lineage;
    this.serial = doc.serial;
    const inState = stateUids(doc);
    if (!none) {
      // Underneath: one row for the one workspace, holding what `state pull` showed. Two runs
      // creating the workspace at once must not leave two rows (or one with an older state).
      let rows: string[];
      try {
        rows = (
          await this.pg.query(
            PG_DATABASE,
            `select json_build_object('name', name, 'serial', (data::json->>'serial')::int, 'lineage', data::json->>'lineage') from ${PG_SCHEMA}.states order by name`,
          )
        )
          .split('\n')
          .filter(Boolean);
      } catch (e) {
        rows = [`(unreadable: ${(e as Error).message})`];
      }
      const parsed = rows.map((row) => {
        try {
          return JSON.parse(row) as { name: unknown; serial: unknown; lineage: unknown };
        } catch {
          return undefined;
        }
      });
      const row = parsed[0];
      if (parsed.length !== 1 || !row || row.name !== 'default' || row.serial !== doc.serial || row.lineage !== doc.lineage) {
        this.violation(
          `${when}: the pg backend's states table holds [${rows.join(', ')}], expected exactly one row "default" at serial ${doc.serial}, lineage ${doc.lineage}`,
        );
      }
    }

    // The other directory lists the same state.
    const listed = await q.run(['state', 'list', '-no-color']);
    const addresses = listed.stdout.split('\n').filter(Boolean).sort();
    const wanted = expected.map((e) => e.address).sort();
    const listedOk = listed.code === 0 || (none && listed.stderr.includes('No state file was found'));
    if (!listedOk || JSON.stringify(addresses) !== JSON.stringify(wanted)) {
      this.violation(`${when}: tofu state list shows [${addresses.join(', ')}], expected [${wanted.join(', ')}] (exit ${listed.code})\n${tail(listed.stderr)}`);
    }
    // Host resources == state resources, over every name either configuration ever used.
    for (const k of this.known) {
      const onHost = await this.readOnHost(k);
      const recorded = inState.get(`${PG_SPACE}/${k.name}`);
      const shouldExist = expected.some((e) => e.name === k.name);
      if (shouldExist && (!onHost || onHost.metadata.uid !== recorded))
        this.violation(`${when}: ${k.address} is ${onHost ? `uid ${onHost.metadata.uid}` : 'missing'} on the Host but ${recorded ?? 'absent'} in the pg state`);
      if (!shouldExist && (onHost || recorded))
        this.violation(`${when}: ${k.address} should not exist yet but is${onHost ? ' on the Host' : ''}${recorded ? ' in the pg state' : ''}`);
    }
    if (after) {
      for (const ws of [p, q]) {
        const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color', '-lock-timeout=60s']);
        if (plan.code !== 0)
          this.violation(`${when}: a plan on the shared pg state does not say "no changes" (exit ${plan.code}):\n${tail(plan.stdout)}\n${tail(plan.stderr)}`);
      }
    }
  }

  private readOnHost(what: { name: string; ref: FormRefLike }): Promise<HostResource | null> {
    return readResource(this.host, PG_SPACE, what.ref, what.name, (v) => this.violation(v));
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers

interface HostResource {
  readonly metadata: { readonly uid: string; readonly generation: string };
  readonly spec: Record<string, unknown>;
}

async function readResource(host: HostProcess, space: string, ref: FormRefLike, name: string, violation: (v: string) => void): Promise<HostResource | null> {
  const r = await new HostApi(host.url, host.token, space).read(ref, name);
  if (r.status === 404) return null;
  if (r.status !== 200) {
    violation(`reading ${space}/${ref.kind}/${name} on the Host answered ${r.status}: ${JSON.stringify(r.body)}`);
    return null;
  }
  return r.body as HostResource;
}

function readFormRef(dir: string): FormRefLike {
  const index = JSON.parse(readFileSync(path.join(GENERIC_FORMS, dir, 'package-index.json'), 'utf8')) as { formRef: FormRefLike };
  return index.formRef;
}

function workspace(host: { url: string; token: string }, space: string, cleanups: (() => Promise<void> | void)[]): TofuWorkspace {
  const ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, space);
  cleanups.push(() => rmSync(path.dirname(ws.dir), { recursive: true, force: true }));
  return ws;
}

/** One catalog for every workspace: locked once (with the verified packages), then copied. */
async function lockCatalog(ws: TofuWorkspace, others: TofuWorkspace[]): Promise<void> {
  const lock = await ws.provider(['catalog', 'lock', ...FORM_DIRS.flatMap((d) => ['--package', path.join(GENERIC_FORMS, d)])]);
  if (lock.code !== 0) throw new Error(`catalog lock failed: ${lock.stderr}`);
  for (const other of others) copyFileSync(path.join(ws.dir, '.takoform.lock.json'), path.join(other.dir, '.takoform.lock.json'));
}

function resourceHcl(type: string, label: string, attributes: Record<string, string | number>): string {
  const body = Object.entries(attributes)
    .map(([k, v]) => `  ${k} = ${JSON.stringify(v)}\n`)
    .join('');
  return `resource "${type}" "${label}" {\n${body}}\n`;
}

/** The same resource through the generic takoform_resource: exact FormRef, spec as written. */
function genericHcl(label: string, ref: FormRefLike, name: string, space: string, spec: Record<string, string | number>): string {
  const fields = Object.entries(spec)
    .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
    .join(', ');
  return resourceHcl('takoform_resource', label, {
    api_version: ref.apiVersion,
    kind: ref.kind,
    definition_version: ref.definitionVersion,
    schema_digest: ref.schemaDigest,
    name,
    space,
  }).replace(/\}\n$/, `  spec = { ${fields} }\n}\n`);
}

function rangeBlock(type: string, label: string, name: string, space: string, spec: RangeSpec, ref: FormRefLike): Block {
  return { address: `${type}.${label}`, name, space, ref, hcl: resourceHcl(type, label, { name, space, ...spec }) };
}

interface StateDocument {
  readonly serial: number;
  readonly lineage: string;
  readonly resources: readonly { readonly mode: string; readonly instances: readonly { readonly attributes: Record<string, unknown> }[] }[];
}

/** The state document, or why it is not a valid one. */
function parseState(text: string): StateDocument | string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return `not JSON: ${(e as Error).message}`;
  }
  const d = doc as Partial<StateDocument> & { version?: unknown };
  if (d.version !== 4 || typeof d.serial !== 'number' || typeof d.lineage !== 'string' || !Array.isArray(d.resources))
    return `not a version 4 state: ${text.slice(0, 200)}`;
  return d as StateDocument;
}

/** space/name → uid of every managed instance in a state. */
function stateUids(doc: StateDocument): Map<string, string> {
  const byName = new Map<string, string>();
  for (const r of doc.resources) {
    if (r.mode !== 'managed') continue;
    for (const i of r.instances) byName.set(`${String(i.attributes.space)}/${String(i.attributes.name)}`, String(i.attributes.uid));
  }
  return byName;
}

interface TimedRun extends TofuRun {
  readonly startedAt: number;
  readonly endedAt: number;
}

interface Running {
  readonly done: Promise<TimedRun>;
  running(): boolean;
}

/** Like TofuWorkspace.run, but streams stdout to `onStdout` (the whole text so far). */
function startTofu(ws: TofuWorkspace, args: string[], onStdout?: (all: string) => void): Running {
  const startedAt = Date.now();
  const child = spawn(TOFU, args, { cwd: ws.dir, env: ws.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let ended = false;
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    onStdout?.(stdout);
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<TimedRun>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      ended = true;
      resolve({ code: code ?? -1, stdout, stderr, startedAt, endedAt: Date.now() });
    });
  });
  return { done, running: () => !ended };
}

/** The `Error: ...` diagnostics of a CLI's stderr, one block each. */
function errorBlocks(stderr: string): string[] {
  return stderr
    .split(/\n(?=Error: |Warning: )/)
    .map((b) => b.trim())
    .filter((b) => b.startsWith('Error: '));
}

export const oneLine = (s: string): string => s.replace(/\s+/g, ' ');

function tail(text: string, lines = 30): string {
  return text.split('\n').slice(-lines).join('\n');
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([x], [y]) => x.localeCompare(y)));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
