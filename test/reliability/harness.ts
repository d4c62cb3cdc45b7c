// The shared set-up of the soak and kill scenarios: a real reference Host behind the fault
// proxy, a real tofu workspace whose configuration is rendered from a small desired model
// (half of it through the typed types, half through the generic takoform_resource),
// and the invariants checked after every cycle: the Host holds exactly what the state holds
// (same names, same uids), the state holds what the configuration asks for, and at most two
// re-runs of `tofu apply` bring the plan to "No changes".
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalEntries } from '../support/create-journal-files.js';
import { FaultProxy } from '../support/fault-proxy.js';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { GENERIC_FORMS, REPO_ROOT, TOFU } from '../support/paths.js';
import { createWorkspace, type TofuRun, type TofuWorkspace } from '../support/tofu.js';

export const SPACE = 'soak';
const GENERIC_TYPE_NAME = 'takoform_resource';
const CATALOG = path.join(REPO_ROOT, 'examples/platform/.takoform.lock.json');

/** The two Forms the scenarios use: a plain resource and an attachment that names it. */
export const FORMS = {
  sequence: { typeName: 'takoform_range_sequence', package: 'range-sequence' },
  reservation: { typeName: 'takoform_counter_reservation', package: 'counter-reservation' },
} as const;
export type FormKey = keyof typeof FORMS;

/** What the configuration asks for: sequences by name, reservations by name → target name. */
export interface DesiredModel {
  readonly sequences: Map<string, { lower: number; upper: number }>;
  readonly reservations: Map<string, { target: string }>;
}

export const SEQUENCE_NAMES = ['seq-0', 'seq-1', 'seq-2', 'seq-3', 'seq-4', 'seq-5'];
export const RESERVATION_NAMES = ['res-0', 'res-1', 'res-2'];

export function emptyModel(): DesiredModel {
  return { sequences: new Map(), reservations: new Map() };
}

/**
 * Which resources the configuration writes with the generic `takoform_resource` instead of
 * the typed type: every odd-numbered one, so that faults, kills and restarts hit both kinds,
 * and reservations of either kind name targets of either kind.
 */
export function isGeneric(name: string): boolean {
  return Number(name.split('-')[1]) % 2 === 1;
}

/** The Terraform address of a model resource. */
export function addressOf(form: FormKey, name: string): string {
  return `${isGeneric(name) ? GENERIC_TYPE_NAME : FORMS[form].typeName}.${name}`;
}

function genericHeader(ref: FormRefLike): string {
  return `  api_version        = "${ref.apiVersion}"\n  kind               = "${ref.kind}"\n  definition_version = "${ref.definitionVersion}"\n  schema_digest      = "${ref.schemaDigest}"\n`;
}

export function renderConfig(model: DesiredModel): string {
  const refs = readRefs();
  let hcl = PROVIDER_BLOCK;
  for (const [name, v] of [...model.sequences].sort()) {
    hcl += isGeneric(name)
      ? `resource "${GENERIC_TYPE_NAME}" "${name}" {\n${genericHeader(refs.sequence)}  name               = "${name}"\n  spec               = { lower = ${v.lower}, upper = ${v.upper} }\n}\n`
      : `resource "takoform_range_sequence" "${name}" {\n  name  = "${name}"\n  lower = ${v.lower}\n  upper = ${v.upper}\n}\n`;
  }
  for (const [name, v] of [...model.reservations].sort()) {
    // A reference, so core orders the reservation after (and its destroy before) its target.
    const target = `${addressOf('sequence', v.target)}.name`;
    hcl += isGeneric(name)
      ? `resource "${GENERIC_TYPE_NAME}" "${name}" {\n${genericHeader(refs.reservation)}  name               = "${name}"\n  spec               = { target = { apiVersion = "${refs.sequence.apiVersion}", kind = "${refs.sequence.kind}", name = ${target} } }\n}\n`
      : `resource "takoform_counter_reservation" "${name}" {\n  name   = "${name}"\n  target = ${target}\n}\n`;
  }
  return hcl;
}

/** (form, name) → uid of what exists. */
export type Inventory = Map<string, string>;
const key = (form: FormKey, name: string) => `${form}/${name}`;

export interface SoakRig {
  readonly proxy: FaultProxy;
  readonly workspace: TofuWorkspace;
  readonly hostApi: HostApi;
  host: HostProcess;
  /** Starts `tofu` without waiting (for kill tests). */
  spawnTofu(args: string[]): ChildProcess;
  /** Stops the Host hard and starts it again on the same database (new port behind the proxy). */
  restartHost(downMs: number): Promise<void>;
  writeConfig(model: DesiredModel): void;
  hostInventory(): Promise<Inventory>;
  stateInventory(): Inventory;
  /** (form, name) of every create the provider's journal holds as pending in this workspace. */
  journalInventory(): Set<string>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Forms (by kind) whose applies and deletes answer 202 with an Operation to poll. */
  readonly asyncKinds?: readonly string[];
}

export async function startRig(options: RigOptions = {}): Promise<SoakRig> {
  const packages = Object.values(FORMS).map((f) => path.join(GENERIC_FORMS, f.package));
  const extra = (options.asyncKinds ?? []).flatMap((k) => ['--async-form', k]);
  let host = await startHostProcess(packages, undefined, extra);
  const proxy = await FaultProxy.start(host.url);
  const workspace = createWorkspace(
    { 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': readFileSync(CATALOG, 'utf8') },
    { url: proxy.url, token: host.token },
    SPACE,
  );
  const init = await workspace.run(['init', '-input=false']);
  if (init.code !== 0) throw new Error(`tofu init failed:\n${init.stdout}\n${init.stderr}`);
  const refs = readRefs();
  const formOfKind = (kind: string | undefined) => (Object.keys(FORMS) as FormKey[]).find((f) => refs[f].kind === kind);
  const rig: SoakRig = {
    proxy,
    workspace,
    host,
    get hostApi() {
      return new HostApi(rig.host.url, rig.host.token, SPACE);
    },
    spawnTofu(args) {
      return spawn(TOFU, args, { cwd: workspace.dir, env: workspace.env, stdio: ['ignore', 'pipe', 'pipe'] });
    },
    async restartHost(downMs) {
      const dir = rig.host.dir;
      rig.host.child.kill('SIGKILL');
      await new Promise((r) => (rig.host.child.exitCode !== null || rig.host.child.signalCode !== null ? r(undefined) : rig.host.child.once('exit', r)));
      await new Promise((r) => setTimeout(r, downMs));
      rig.host = await startHostProcess(packages, dir, extra);
      proxy.setUpstream(rig.host.url);
    },
    writeConfig(model) {
      writeFileSync(path.join(workspace.dir, 'main.tf'), renderConfig(model));
    },
    async hostInventory() {
      const out: Inventory = new Map();
      const api = rig.hostApi;
      const probe = async (form: FormKey, name: string) => {
        const r = await api.read(refs[form], name);
        if (r.status === 200) out.set(key(form, name), r.body.metadata.uid as string);
        else if (r.status !== 404) throw new Error(`Host read of ${form} ${name} answered ${r.status}: ${JSON.stringify(r.body)}`);
      };
      await Promise.all([...SEQUENCE_NAMES.map((n) => probe('sequence', n)), ...RESERVATION_NAMES.map((n) => probe('reservation', n))]);
      return out;
    },
    stateInventory() {
      const out: Inventory = new Map();
      const file = path.join(workspace.dir, 'terraform.tfstate');
      if (!existsSync(file)) return out;
      const text = readFileSync(file, 'utf8');
      if (text.trim() === '') return out;
      const state = JSON.parse(text) as {
        resources?: Array<{ type: string; mode: string; instances: Array<{ attributes: { name: string; uid: string; kind?: string } }> }>;
      };
      for (const r of state.resources ?? []) {
        if (r.mode !== 'managed') continue;
        const form =
          r.type === GENERIC_TYPE_NAME
            ? formOfKind(r.instances[0]?.attributes.kind)
            : (Object.keys(FORMS) as FormKey[]).find((f) => FORMS[f].typeName === r.type);
        if (!form) continue;
        for (const i of r.instances) out.set(key(form, i.attributes.name), i.attributes.uid);
      }
      return out;
    },
    journalInventory() {
      const out = new Set<string>();
      // A torn entry (the kill) is left out: it was never sent, so it stands for nothing on the Host.
      for (const entry of journalEntries(workspace.dir) as { name?: string; formRef?: { kind?: string } }[]) {
        const form = formOfKind(entry.formRef?.kind);
        if (form && entry.name) out.add(key(form, entry.name));
      }
      return out;
    },
    async close() {
      await proxy.close();
      await rig.host.stop();
    },
  };
  return rig;
}

let cachedRefs: Record<FormKey, FormRefLike> | undefined;
function readRefs(): Record<FormKey, FormRefLike> {
  if (cachedRefs) return cachedRefs;
  const catalog = JSON.parse(readFileSync(CATALOG, 'utf8')) as { forms: Array<{ typeName: string; formRef: FormRefLike }> };
  const ref = (f: FormKey) => catalog.forms.find((x) => x.typeName === FORMS[f].typeName)!.formRef;
  cachedRefs = { sequence: ref('sequence'), reservation: ref('reservation') };
  return cachedRefs;
}

export function modelInventoryKeys(model: DesiredModel): Set<string> {
  return new Set([...[...model.sequences.keys()].map((n) => key('sequence', n)), ...[...model.reservations.keys()].map((n) => key('reservation', n))]);
}

export interface Convergence {
  /** How many `tofu apply` re-runs it took (0: the plan was already clean). */
  readonly reruns: number;
  readonly converged: boolean;
  /** Output of the recovery runs, for counting warnings and explaining failures. */
  readonly output: string;
}

/** Plan; while not clean, apply (at most twice) and plan again. No faults are active. */
export async function converge(ws: TofuWorkspace): Promise<Convergence> {
  let output = '';
  for (let reruns = 0; ; reruns++) {
    const plan = await ws.run(['plan', '-input=false', '-detailed-exitcode', '-no-color']);
    output += plan.stdout + plan.stderr;
    if (plan.code === 0) return { reruns, converged: true, output };
    if (reruns === 2) return { reruns, converged: false, output };
    const apply: TofuRun = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    output += apply.stdout + apply.stderr;
  }
}

/** The invariants after a cycle, as sentences (empty when all hold). */
export function checkInvariants(label: string, model: DesiredModel, host: Inventory, state: Inventory): string[] {
  const problems: string[] = [];
  for (const [k, uid] of host) {
    if (!state.has(k)) problems.push(`${label}: ${k} exists on the Host (uid ${uid}) but not in state (orphan)`);
    else if (state.get(k) !== uid) problems.push(`${label}: ${k} has uid ${state.get(k)} in state but ${uid} on the Host`);
  }
  for (const [k, uid] of state) if (!host.has(k)) problems.push(`${label}: ${k} is in state (uid ${uid}) but not on the Host (lost)`);
  const wanted = modelInventoryKeys(model);
  for (const k of wanted) if (!state.has(k)) problems.push(`${label}: ${k} is configured but not in state after convergence`);
  for (const k of state.keys()) if (!wanted.has(k)) problems.push(`${label}: ${k} is in state but no longer configured after convergence`);
  return problems;
}

export function tail(text: string, lines = 30): string {
  return text.split('\n').slice(-lines).join('\n');
}
