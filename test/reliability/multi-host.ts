// Two reference Host processes on one PostgreSQL database, driven over real HTTP:
//
// * races: for `claim`, `exclusive`, `uniquePair`, import nativeId claims and plain name
//   uniqueness, N contenders fire at once, split across the two processes. Exactly one may win;
//   every loser gets the documented refusal; both processes then read the same winner byte for
//   byte; a replay of the winner's (and a loser's) key at the *other* process answers the recorded
//   status, ETag and body byte for byte; request ids never repeat across processes.
// * kill: process A accepts asynchronous creates (202 + Operation), then is SIGKILLed while a
//   burst of creates is in flight at it; process B serves a steady load throughout. Afterwards
//   every create A answered exists (same uid) at B, every unanswered one retried with its key at
//   B converges to exactly one resource, and B finishes A's Operations once their lease expires.
// * tofu: two `tofu` states, each pointed at a different process, plan the same resource name
//   while it is free and apply their saved plans at once. Exactly one state may own it, with
//   the Host's uid; the other apply must fail saying the name is taken.
//
// Every broken invariant becomes a sentence in `violations`; only a broken set-up throws.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Barrier, BarrierProxy } from '../support/barrier-proxy.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS } from '../support/paths.js';
import { startPostgres, type Postgres } from '../support/postgres.js';
import { createWorkspace, type TofuRun, type TofuWorkspace } from '../support/tofu.js';
import { count, emptyReport, seededRandom, type Random, type ReliabilityReport, type ScenarioOptions } from './report.js';

export interface MultiHostOptions extends ScenarioOptions {
  /** Rounds of the five races. */
  readonly raceRounds: number;
  /** Contenders per race, alternating between the two processes. */
  readonly contenders: number;
  /** Rounds of "kill process A mid-commit" (A is restarted between rounds). */
  readonly killRounds: number;
  /** Rounds of two `tofu apply` on two processes creating one name. */
  readonly tofuRounds: number;
}

const API = '/apis/forms.takoform.com/v1';
const SPACE = 'multi';
const R = 'resources.publisher.example';
const C = 'constraints.publisher.example';
interface FormRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly schemaDigest: string;
}

/**
 * The exact FormRef of a package folder of the external family. (Not the conformance suite's
 * helper: that module pulls in vitest, and `npm run soak` runs this file outside vitest.)
 */
function refOf(packageFolder: string): FormRef {
  return (JSON.parse(readFileSync(path.join(GENERIC_FORMS, packageFolder, 'package-index.json'), 'utf8')) as { formRef: FormRef }).formRef;
}

/** Short, so that the survivor takes a killed process's Operations over quickly. */
const LEASE_MS = 1000;

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly text: string;
}

interface Request {
  readonly method: string;
  readonly target: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

class Cluster {
  readonly hosts: HostProcess[] = [];
  private readonly dirs: string[] = [];
  private constructor(
    readonly pg: Postgres,
    readonly url: string,
  ) {}

  static async start(): Promise<Cluster> {
    const pg = await startPostgres();
    try {
      await pg.createDatabase('hosts');
      const cluster = new Cluster(pg, pg.url('hosts'));
      // One after the other: the first migrates the schema, the second finds it current.
      cluster.hosts.push(await cluster.startHost(), await cluster.startHost());
      return cluster;
    } catch (error) {
      await pg.stop();
      throw error;
    }
  }

  async startHost(): Promise<HostProcess> {
    const dir = mkdtempSync(path.join(tmpdir(), 'takoform-multi-host-'));
    this.dirs.push(dir);
    return startHostProcess([GENERIC_FORMS], dir, ['--enable-test-switches', '--operation-lease-ms', String(LEASE_MS)], [], this.url);
  }

  async replace(index: number): Promise<void> {
    this.hosts[index] = await this.startHost();
  }

  async close(): Promise<void> {
    await Promise.all(this.hosts.map((host) => host.stop()));
    await this.pg.stop();
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function send(host: HostProcess, request: Request): Promise<Answer> {
  const response = await fetch(new URL(request.target, host.url), {
    method: request.method,
    headers: { authorization: `Bearer ${host.token}`, accept: 'application/json', 'content-type': 'application/json', ...request.headers },
    body: request.body === '' ? undefined : request.body,
  });
  return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
}

/** Like a client: resource_busy is retried with the same key (never anything else). */
async function sendRetryingBusy(host: HostProcess, request: Request): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await send(host, request);
    if (attempt >= 8 || errorCodeOf(answer) !== 'resource_busy') return answer;
    await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt * Math.random()));
  }
}

function errorCodeOf(answer: Answer): string | undefined {
  try {
    return (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

function requestIdOf(answer: Answer): string | undefined {
  try {
    return (JSON.parse(answer.text) as { error?: { requestId?: string } }).error?.requestId;
  } catch {
    return undefined;
  }
}

function uidOf(answer: Answer): string | undefined {
  try {
    return (JSON.parse(answer.text) as { metadata?: { uid?: string } }).metadata?.uid;
  } catch {
    return undefined;
  }
}

function core(ref: FormRef, name: string, spec: unknown) {
  return { apiVersion: ref.apiVersion, kind: ref.kind, form: { formRef: ref }, metadata: { name, space: SPACE }, spec };
}

function resourcePath(ref: FormRef, name: string): string {
  return `${API}/resources/${ref.apiVersion}/${ref.kind}/${name}`;
}

function readRequest(ref: FormRef, name: string): Request {
  const query = new URLSearchParams({ space: SPACE, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest });
  return { method: 'GET', target: `${resourcePath(ref, name)}?${query}`, body: '', headers: {} };
}

/** prepare (at `host`) + the create request that spends it; undefined when prepare refuses. */
async function createRequest(
  host: HostProcess,
  ref: FormRef,
  name: string,
  spec: unknown,
  key: string,
  headers: Record<string, string> = {},
): Promise<Request | Answer> {
  const prepared = await send(host, { method: 'POST', target: `${API}/resources/prepare`, body: JSON.stringify(core(ref, name, spec)), headers: {} });
  if (prepared.status !== 200) return prepared;
  const { resource, review } = JSON.parse(prepared.text) as { resource: { spec: unknown }; review: { prepareDigest: string } };
  return {
    method: 'PUT',
    target: resourcePath(ref, name),
    body: JSON.stringify({ ...core(ref, name, resource.spec), review: { prepareDigest: review.prepareDigest } }),
    headers: { 'if-none-match': '*', 'idempotency-key': key, ...headers },
  };
}

function importRequest(ref: FormRef, name: string, spec: unknown, nativeId: string, key: string): Request {
  return {
    method: 'POST',
    target: `${resourcePath(ref, name)}/import`,
    body: JSON.stringify({ ...core(ref, name, spec), nativeId }),
    headers: { 'if-none-match': '*', 'idempotency-key': key },
  };
}

const isRequest = (value: Request | Answer): value is Request => 'method' in value;
const target = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, name });

export async function runMultiHost(options: MultiHostOptions): Promise<ReliabilityReport> {
  const report = emptyReport('multi-host');
  const random = seededRandom(options.seed);
  const violation = (text: string) => report.violations.push(text);
  const requestIds = new Map<string, string>();
  const noteRequestId = (answer: Answer, where: string) => {
    const id = requestIdOf(answer);
    if (id === undefined) return;
    const seen = requestIds.get(id);
    // A replay carries the recorded id on purpose; only a fresh answer must bring a new one.
    if (seen !== undefined && seen !== answer.text) violation(`request id ${id} was answered twice with different bodies (${where})`);
    requestIds.set(id, answer.text);
  };
  const cluster = await Cluster.start();
  try {
    for (let round = 1; round <= options.raceRounds; round++) {
      await raceRound(cluster, round, options.contenders, report, violation, noteRequestId);
      options.log?.(`multi-host: race round ${round} done`);
    }
    for (let round = 1; round <= options.killRounds; round++) {
      await killRound(cluster, round, random, report, violation);
      options.log?.(`multi-host: kill round ${round} done`);
    }
    for (let round = 1; round <= options.tofuRounds; round++) {
      await tofuRound(cluster, round, report, violation);
      options.log?.(`multi-host: tofu round ${round} done`);
    }
    const prefixes = new Set([...requestIds.keys()].map((id) => id.split('_')[1]));
    if (options.raceRounds > 0 && prefixes.size < 2) violation(`error answers came from ${prefixes.size} request-id prefix(es); expected one per Host process`);
    count(report, 'request ids checked', requestIds.size);
  } finally {
    await cluster.close();
  }
  return report;
}

// ---------------------------------------------------------------------------------------------
// Races

interface Race {
  readonly name: string;
  /** What every loser must be answered. */
  readonly loserCode: string;
  /** Builds contender i's request (setup already done) or the refusal prepare gave. */
  readonly contender: (i: number) => Promise<Request | Answer>;
  readonly ref: FormRef;
  readonly nameOf: (i: number) => string;
}

async function raceRound(
  cluster: Cluster,
  round: number,
  contenders: number,
  report: ReliabilityReport,
  violation: (text: string) => void,
  noteRequestId: (answer: Answer, where: string) => void,
): Promise<void> {
  const [a, b] = cluster.hosts as [HostProcess, HostProcess];
  const host = (i: number) => (i % 2 === 0 ? a : b);
  const sequence = refOf('range-sequence');
  const node = refOf('constraint-node');
  // Targets the exclusive and uniquePair contenders point at.
  for (const [ref, name, spec] of [
    [sequence, `seq-${round}`, { lower: 1, upper: 2 }],
    [node, `na-${round}`, {}],
    [node, `nb-${round}`, {}],
  ] as const) {
    const request = await createRequest(a, ref, name, spec, `setup-${name}`);
    const answer = isRequest(request) ? await send(a, request) : request;
    if (answer.status !== 201) throw new Error(`set-up create of ${name} failed: ${answer.status} ${answer.text}`);
  }
  const races: Race[] = [
    {
      name: 'claim',
      loserCode: 'invalid_argument',
      ref: refOf('constraint-claim-primary'),
      nameOf: (i) => `claim-${round}-${i}`,
      contender: (i) => createRequest(host(i), refOf('constraint-claim-primary'), `claim-${round}-${i}`, { claim: `value-${round}` }, `claim-${round}-${i}`),
    },
    {
      name: 'exclusive',
      loserCode: 'invalid_argument',
      ref: refOf('counter-reservation'),
      nameOf: (i) => `hold-${round}-${i}`,
      contender: (i) =>
        createRequest(
          host(i),
          refOf('counter-reservation'),
          `hold-${round}-${i}`,
          { target: target(R, 'RangeSequence', `seq-${round}`) },
          `hold-${round}-${i}`,
        ),
    },
    {
      name: 'uniquePair',
      loserCode: 'invalid_argument',
      ref: refOf('constraint-unique-pair'),
      nameOf: (i) => `pair-${round}-${i}`,
      contender: (i) =>
        createRequest(
          host(i),
          refOf('constraint-unique-pair'),
          `pair-${round}-${i}`,
          { left: target(C, 'ConstraintNode', `na-${round}`), right: target(C, 'ConstraintNode', `nb-${round}`) },
          `pair-${round}-${i}`,
        ),
    },
    {
      name: 'import-claim',
      loserCode: 'import_conflict',
      ref: sequence,
      nameOf: (i) => `imp-${round}-${i}`,
      contender: async (i) => importRequest(sequence, `imp-${round}-${i}`, { lower: 1, upper: 2 }, `native-${round}`, `imp-${round}-${i}`),
    },
    {
      name: 'name',
      loserCode: 'generation_conflict',
      ref: sequence,
      nameOf: () => `same-${round}`,
      contender: (i) => createRequest(host(i), sequence, `same-${round}`, { lower: 1, upper: 2 }, `same-${round}-${i}`),
    },
  ];
  for (const race of races) {
    const prepared = await Promise.all(Array.from({ length: contenders }, (_, i) => race.contender(i)));
    const requests = prepared.filter(isRequest);
    if (requests.length !== contenders) {
      violation(
        `${race.name} round ${round}: prepare refused a contender before the race: ${prepared
          .filter((p) => !isRequest(p))
          .map((p) => (p as Answer).text)
          .join(' | ')}`,
      );
      continue;
    }
    // Fired together, alternating processes: only the stores' serializable commits can decide.
    const answers = await Promise.all(requests.map((request, i) => sendRetryingBusy(host(i), request)));
    answers.forEach((answer, i) => noteRequestId(answer, `${race.name} contender ${i}`));
    const winners = answers.flatMap((answer, i) => (answer.status === 201 ? [i] : []));
    count(report, `races:${race.name}`);
    if (winners.length !== 1) {
      violation(
        `${race.name} round ${round}: ${winners.length} winners across two Host processes (expected exactly 1): ${answers.map((x) => x.status).join(',')}`,
      );
      continue;
    }
    const winner = winners[0]!;
    answers.forEach((answer, i) => {
      if (i !== winner && errorCodeOf(answer) !== race.loserCode)
        violation(`${race.name} round ${round}: loser ${i} got ${answer.status} ${answer.text.slice(0, 200)} (expected ${race.loserCode})`);
    });
    // Both processes see the one winner, byte for byte; no loser left anything behind.
    const names = [...new Set(requests.map((_, i) => race.nameOf(i)))];
    for (const name of names) {
      const [readA, readB] = await Promise.all([send(a, readRequest(race.ref, name)), send(b, readRequest(race.ref, name))]);
      const expected = name === race.nameOf(winner) ? 200 : 404;
      if (readA.status !== expected || readB.status !== expected)
        violation(`${race.name} round ${round}: ${name} reads ${readA.status}/${readB.status} at A/B (expected ${expected})`);
      if (expected === 200 && (readA.text !== readB.text || uidOf(readA) !== uidOf(answers[winner]!)))
        violation(`${race.name} round ${round}: A and B disagree on ${name}`);
    }
    // Replays at the other process: the winner's record and one loser's refusal, byte for byte.
    const loser = winner === 0 ? 1 : 0;
    for (const i of [winner, loser]) {
      const replay = await send(host(i + 1), requests[i]!);
      count(report, 'replays across processes');
      if (replay.status !== answers[i]!.status || replay.etag !== answers[i]!.etag || replay.text !== answers[i]!.text) {
        violation(
          `${race.name} round ${round}: replay of contender ${i}'s key at the other process answered ${replay.status} ${replay.text.slice(0, 120)}, not the recorded ${answers[i]!.status} ${answers[i]!.text.slice(0, 120)}`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// SIGKILL of one process mid-commit

async function killRound(cluster: Cluster, round: number, random: Random, report: ReliabilityReport, violation: (text: string) => void): Promise<void> {
  const [a, b] = cluster.hosts as [HostProcess, HostProcess];
  const sequence = refOf('range-sequence');
  // 1. A accepts asynchronous creates: 202 + Operation, leased to A.
  const operations: { id: string; name: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const name = `op-${round}-${i}`;
    const request = await createRequest(a, sequence, name, { lower: 1, upper: 3 }, `op-${round}-${i}`, { 'takoform-test-async': '1' });
    const answer = isRequest(request) ? await send(a, request) : request;
    if (answer.status !== 202) throw new Error(`async create at A answered ${answer.status}: ${answer.text}`);
    operations.push({ id: (JSON.parse(answer.text) as { operation: { id: string } }).operation.id, name });
  }
  // 2. B serves a steady load throughout.
  let loadRunning = true;
  let loadServed = 0;
  const load = (async () => {
    for (let i = 0; loadRunning; i++) {
      const name = `steady-${round}-${i}`;
      const request = await createRequest(b, sequence, name, { lower: 2, upper: 3 }, `steady-${round}-${i}`);
      const created = isRequest(request) ? await sendRetryingBusy(b, request) : request;
      const read = await send(b, readRequest(sequence, name));
      if (created.status !== 201 || read.status !== 200)
        violation(`kill round ${round}: B failed its own load while A died: ${created.status} ${created.text.slice(0, 160)} / read ${read.status}`);
      loadServed += 1;
    }
  })();
  try {
    await killAndCheck(round, random, report, violation, a, b, sequence, operations);
  } finally {
    loadRunning = false;
    await load;
  }
  count(report, 'survivor requests during kill', loadServed);
  // A comes back as a new process (a new instance number) for the next round.
  await cluster.replace(0);
}

async function killAndCheck(
  round: number,
  random: Random,
  report: ReliabilityReport,
  violation: (text: string) => void,
  a: HostProcess,
  b: HostProcess,
  sequence: FormRef,
  operations: readonly { id: string; name: string }[],
): Promise<void> {
  // 3. A burst of creates at A, and SIGKILL while they are in flight.
  const burst = await Promise.all(
    Array.from({ length: 8 }, async (_, i) => {
      // The first two commit and then lose their answer on purpose (the Host closes the
      // connection): the retry at B must replay A's record, not create again.
      const lost: Record<string, string> = i < 2 ? { 'takoform-test-fault': 'drop-after-commit' } : {};
      const request = await createRequest(a, sequence, `kill-${round}-${i}`, { lower: 1, upper: 4 }, `kill-${round}-${i}`, lost);
      if (!isRequest(request)) throw new Error(`prepare at A refused: ${request.text}`);
      return { name: `kill-${round}-${i}`, request };
    }),
  );
  // Staggered, and the kill at a random moment among them: some creates are answered, some
  // committed with the answer lost, some not yet committed when A dies.
  const inFlight = burst.map(({ request }, i) =>
    new Promise((resolve) => setTimeout(resolve, i * 15))
      .then(() => send(a, request))
      .then(
        (answer): Answer | undefined => answer,
        () => undefined,
      ),
  );
  await new Promise((resolve) => setTimeout(resolve, random(60, 160)));
  a.child.kill('SIGKILL');
  await new Promise<void>((resolve) => (a.child.exitCode !== null || a.child.signalCode !== null ? resolve() : a.child.once('exit', () => resolve())));
  const outcomes = await Promise.all(inFlight);
  count(report, 'kills');
  // 4. Nothing lost, nothing partial: answered creates exist at B; unanswered ones, retried with
  //    their key at B, converge to exactly one resource (a replay if A had committed).
  for (const [i, { name, request }] of burst.entries()) {
    const before = outcomes[i];
    if (before !== undefined && before.status !== 201)
      violation(`kill round ${round}: ${name} was answered ${before.status} by A before the kill: ${before.text.slice(0, 160)}`);
    count(report, before === undefined ? 'kill:unanswered' : 'kill:answered-before-kill');
    if (before === undefined) {
      // Committed by A with the answer lost (the retry below must replay it), or rolled back.
      const found = await send(b, readRequest(sequence, name));
      count(report, found.status === 200 ? 'kill:committed-unanswered' : 'kill:not-committed');
    }
    // The retry is the client's: same key, same body, no test fault.
    const { 'takoform-test-fault': _fault, ...headers } = request.headers;
    const retried = await sendRetryingBusy(b, { ...request, headers });
    const read = await send(b, readRequest(sequence, name));
    if (retried.status !== 201) violation(`kill round ${round}: retry of ${name} at B answered ${retried.status} ${retried.text.slice(0, 160)}`);
    if (read.status !== 200 || uidOf(read) !== uidOf(retried))
      violation(`kill round ${round}: ${name} at B reads ${read.status} uid ${uidOf(read)}, the retry reported ${uidOf(retried)}`);
    if (before !== undefined && uidOf(before) !== uidOf(read))
      violation(`kill round ${round}: A answered ${name} with uid ${uidOf(before)} but B holds ${uidOf(read)}: an answered create was lost`);
  }
  // 5. B finishes A's Operations once A's lease expires.
  const deadline = Date.now() + 30_000;
  for (const { id, name } of operations) {
    let document: { done: boolean; result?: { resource?: { metadata?: { uid?: string } } }; error?: unknown } = { done: false };
    while (!document.done && Date.now() < deadline) {
      const polled = await send(b, { method: 'GET', target: `${API}/operations/${id}`, body: '', headers: {} });
      if (polled.status !== 200) {
        violation(`kill round ${round}: poll of ${id} at B answered ${polled.status} ${polled.text.slice(0, 160)}`);
        break;
      }
      document = JSON.parse(polled.text) as typeof document;
      if (!document.done) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const read = await send(b, readRequest(sequence, name));
    if (!document.done || document.error !== undefined)
      violation(`kill round ${round}: Operation ${id} accepted by the killed process was not finished by the survivor: ${JSON.stringify(document)}`);
    else if (read.status !== 200 || uidOf(read) !== document.result?.resource?.metadata?.uid)
      violation(`kill round ${round}: Operation ${id} succeeded but ${name} reads ${read.status}`);
    else count(report, 'operations finished by the survivor');
  }
}

// ---------------------------------------------------------------------------------------------
// Two tofu states, two processes, one name

async function tofuRound(cluster: Cluster, round: number, report: ReliabilityReport, violation: (text: string) => void): Promise<void> {
  const [a, b] = cluster.hosts as [HostProcess, HostProcess];
  const name = `tofu-same-${round}`;
  const hcl = `${PROVIDER_BLOCK}resource "takoform_range_sequence" "same" {\n  name  = "${name}"\n  space = "${SPACE}"\n  lower = 1\n  upper = 2\n}\n`;
  // Each state reaches its own process through a proxy; the two proxies share one barrier that
  // holds both creates until both have arrived, so neither plan's apply can meet the other's
  // resource in a prepare first: both creates are at the Hosts at once, every round.
  const barrier = new Barrier();
  const proxies = await Promise.all([a, b].map((host) => BarrierProxy.start(host.url, barrier)));
  const workspaces: TofuWorkspace[] = proxies.map((proxy) => createWorkspace({ 'main.tf': hcl }, { url: proxy.url, token: a.token }, SPACE));
  try {
    const lock = await workspaces[0]!.provider(['catalog', 'lock', '--package', path.join(GENERIC_FORMS, 'range-sequence')]);
    if (lock.code !== 0) throw new Error(`catalog lock failed: ${lock.stderr}`);
    copyFileSync(path.join(workspaces[0]!.dir, '.takoform.lock.json'), path.join(workspaces[1]!.dir, '.takoform.lock.json'));
    for (const ws of workspaces) await ws.ok(['init', '-input=false', '-no-color']);
    // Both plans are made while the name is free; the saved plans are then applied at once, so
    // only the Hosts' commits (and the provider's create keys) decide who owns the name.
    for (const ws of workspaces) await ws.ok(['plan', '-out=tfplan', '-input=false', '-no-color']);
    const suffix = `/RangeSequence/${name}`;
    barrier.hold([suffix, suffix]);
    const applies: TofuRun[] = await Promise.all(workspaces.map((ws) => ws.run(['apply', '-input=false', '-no-color', 'tfplan'])));
    if (!barrier.release()[0]) violation(`tofu round ${round}: the two creates never met at the barrier (one apply sent no create)`);
    count(report, 'races:tofu');
    const host = await send(a, readRequest(refOf('range-sequence'), name));
    if (host.status !== 200) {
      violation(`tofu round ${round}: neither apply created ${name} (${host.status}); stderr: ${applies.map((r) => r.stderr.slice(-300)).join(' | ')}`);
      return;
    }
    const owners: string[] = [];
    for (const [i, ws] of workspaces.entries()) {
      const pulled = await ws.run(['state', 'pull']);
      const uid = stateUid(pulled.stdout);
      if (uid !== undefined) owners.push(uid);
      if (uid !== undefined && applies[i]!.code !== 0) violation(`tofu round ${round}: state ${i} holds ${uid} although its apply failed`);
    }
    if (owners.length !== 1) violation(`tofu round ${round}: ${owners.length} states own ${name} (uids ${owners.join(', ')}); expected exactly one owner`);
    else if (owners[0] !== uidOf(host)) violation(`tofu round ${round}: the owning state says uid ${owners[0]}, the Host ${uidOf(host)}`);
    const loser = applies.findIndex((r) => r.code !== 0);
    if (loser >= 0) report.notes.push(`tofu round ${round}: the losing apply said: ${applies[loser]!.stderr.replace(/\s+/g, ' ').slice(0, 400)}`);
    if (owners.length === 1 && loser >= 0) {
      count(report, 'tofu:one-owner');
      if (!/generation_conflict|already (exists|taken)|name is taken/i.test(applies[loser]!.stderr))
        violation(`tofu round ${round}: the losing apply did not say the name is taken: ${applies[loser]!.stderr.slice(-400)}`);
    }
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    for (const ws of workspaces) rmSync(path.dirname(ws.dir), { recursive: true, force: true });
  }
}

function stateUid(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  const state = JSON.parse(text) as { resources?: { mode: string; instances: { attributes: { uid?: string } }[] }[] };
  return state.resources?.find((r) => r.mode === 'managed')?.instances[0]?.attributes.uid;
}
