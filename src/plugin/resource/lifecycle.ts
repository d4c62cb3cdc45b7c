// The resource lifecycle of a Form-backed type: plan through the Host's prepare, apply
// through its fenced apply, refresh by exact read, delete with the generation fence, import
// by name. Each function takes decoded values and returns values plus diagnostics; the gRPC
// layer owns the wire.
import { canonicalJson, jcsDigest } from '../../common/digest.js';
import { materializeDefaults } from '../../common/json-schema-defaults.js';
import { AcceptedOutcomeUnknownError, formatFormRef, HostApiError, resourceRequest, type HostClient, type JsonObject, type PrepareResult, type ResourceAddress, type ResourceRequest, type ResourceResponse } from '../../host-client/index.js';
import { errorDiag, warningDiag, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { hostFailureDiagnostic, pointerToPath, type ResourceContext } from '../diag/host-diagnostics.js';
import { SpecConversionError, toSpec, type ValueMapping } from '../schema/form-mapping.js';
import { isObjectValue, isUnknown, isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { stateId, type FormResourceType } from './form-resource-type.js';
import type { CreateJournal, IgnoredEntry } from './create-journal.js';
import { journaledCreate, resumeInterruptedCreate } from './journaled-create.js';
import { decodePrivate, type PlannedPrivate } from './private-data.js';
import { operationTimeout } from './timeouts.js';

export interface HostAccess {
  /** Undefined when the provider configuration is not known yet (e.g. during validate). */
  readonly client: HostClient | undefined;
  readonly defaultSpace: string | undefined;
  /** True while the provider configuration itself still has unknown values. */
  readonly configUnknown: boolean;
  /** Creates sent but maybe not recorded in state (see create-journal.ts). */
  readonly journal: CreateJournal;
  /** The exact availability probe; undefined when the Form can be used for `operation`. */
  checkForm(rt: FormResourceType, space: string, operation: 'create' | 'update'): Promise<Diagnostic | undefined>;
}

export interface PlanResult {
  readonly planned: TfObject | null;
  readonly requiresReplace: AttributePath[];
  readonly private?: PlannedPrivate;
  readonly diagnostics: Diagnostic[];
}

export interface StateResult {
  readonly state: TfObject | null;
  readonly diagnostics: Diagnostic[];
}

/** How long a delete waits for dependents that are going away in the same run. */
const DEPENDENCY_WAIT_MS = 10_000;

const COMPUTED_ON_CHANGE = ['generation', 'revision', 'conditions', 'ready', 'outputs_json', 'pending_operation'] as const;

export async function planResource(rt: FormResourceType, host: HostAccess, prior: TfObject | null, proposed: TfObject | null, config: TfObject | null): Promise<PlanResult> {
  if (proposed === null || config === null) return { planned: null, requiresReplace: [], diagnostics: [] };
  const planned: Record<string, TfValue> = { ...proposed };
  const diagnostics: Diagnostic[] = [];
  if ((config.space ?? null) === null) {
    if (prior) planned.space = prior.space ?? null;
    else if (host.defaultSpace) planned.space = host.defaultSpace;
    else if (host.configUnknown) planned.space = UNKNOWN;
    else {
      return fail(errorDiag('Missing space', `Set \`space\` on ${rt.typeName} or in the provider configuration (or TAKOFORM_SPACE).`, ['space']));
    }
  }
  planned.form_ref = rt.formRefValue();

  const requiresReplace: AttributePath[] = [];
  if (prior) {
    if (!sameValue(prior.name ?? null, planned.name ?? null)) requiresReplace.push(['name']);
    if (!sameValue(prior.space ?? null, planned.space ?? null)) requiresReplace.push(['space']);
  }

  // The desired spec as the configuration means it: unset properties are left for the Host
  // to default, so removing a line resets it to the default, as users expect.
  const configured: Record<string, TfValue> = {};
  for (const f of rt.fields) configured[f.attribute] = config[f.attribute] ?? null;
  const known = isWhollyKnown(objectValue(Object.entries(configured))) && isWhollyKnown(planned.name ?? null) && isWhollyKnown(planned.space ?? null);
  if (!known) {
    // Values decided later in this run: plan what depends on them as unknown; apply prepares.
    for (const f of rt.fields) if (f.hostFilled && configured[f.attribute] === null) planned[f.attribute] = UNKNOWN;
    if (prior) collectReplace(rt, prior, planned, requiresReplace);
    markComputedUnknown(planned, !prior || requiresReplace.length > 0);
    return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics };
  }

  let spec: JsonObject;
  try {
    spec = toSpec(rt.fields, configured);
  } catch (e) {
    if (e instanceof SpecConversionError) {
      return fail(errorDiag('Invalid value', `${rt.typeName} "${planned.name as string}": ${e.message}. Form ${formatFormRef(rt.form.formRef)}.`, e.path));
    }
    throw e;
  }
  const local = materializeDefaults(rt.form.desiredSchema, spec);
  const name = planned.name as string;
  const space = planned.space as string;

  let priorSpec: JsonObject | undefined;
  if (prior) {
    priorSpec = toSpec(rt.fields, prior);
    collectReplace(rt, prior, { ...planned, ...rt.desiredValues(local) }, requiresReplace);
    // Nothing to do: the configuration still means the state we have. No Host call.
    if (requiresReplace.length === 0 && canonicalJson(local) === canonicalJson(priorSpec)) return { planned: withTimeouts(prior, proposed.timeouts), requiresReplace: [], diagnostics };
    if (requiresReplace.length > 0) {
      // A replacement: the new object is prepared when core plans it (prior = null).
      Object.assign(planned, rt.desiredValues(local));
      markComputedUnknown(planned, true);
      return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics };
    }
  }

  const client = host.client;
  if (!client) {
    // Provider configuration unknown at plan time: plan from the schema's defaults.
    Object.assign(planned, rt.desiredValues(local));
    markComputedUnknown(planned, !prior);
    return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics };
  }

  const unavailable = await host.checkForm(rt, space, prior ? 'update' : 'create');
  if (unavailable) return fail(unavailable);
  const ctx = context(rt, name, space, prior);
  let prepared: PrepareResult;
  try {
    prepared = await client.resources.prepare(resourceRequest(rt.form.formRef, space, name, spec), prior ? (prior.generation as string) : undefined);
  } catch (e) {
    if (e instanceof HostApiError && e.code === 'resource_not_found' && refersToRelation(rt, e.pointer)) {
      // The target is named but not on the Host yet: typically created earlier in this same
      // run (core orders it first). Plan from the schema; apply prepares again and refuses
      // then if the target still does not exist.
      Object.assign(planned, rt.desiredValues(local));
      markComputedUnknown(planned, !prior);
      return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics };
    }
    if (!prior && e instanceof HostApiError && (e.code === 'invalid_argument' || e.code === 'generation_conflict')) {
      // A create whose name is still held: either the old object of a replacement (deleted
      // before this create is applied) or a real conflict, which apply will report.
      const existing = await client.resources.read({ formRef: rt.form.formRef, space, name }).catch(() => undefined);
      if (existing) {
        Object.assign(planned, rt.desiredValues(local));
        markComputedUnknown(planned, true);
        return { planned: objectValue(Object.entries(planned)), requiresReplace, diagnostics };
      }
    }
    return fail(hostFailureDiagnostic('prepare', e, ctx));
  }
  Object.assign(planned, rt.desiredValues(prepared.spec));
  if (prior && priorSpec && canonicalJson(prepared.spec) === canonicalJson(priorSpec)) return { planned: withTimeouts(prior, proposed.timeouts), requiresReplace: [], diagnostics };
  markComputedUnknown(planned, !prior);
  return {
    planned: objectValue(Object.entries(planned)),
    requiresReplace,
    private: { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest },
    diagnostics,
  };
}

/** True when a Host pointer (/spec/target, /spec/members/0) lands on a reference attribute. */
function refersToRelation(rt: FormResourceType, pointer: string | undefined): boolean {
  if (!pointer) return false;
  const path = pointerToPath(pointer, rt.fields);
  if (!path || typeof path[0] !== 'string') return false;
  let fields = rt.fields;
  let mapping: ValueMapping | undefined;
  for (const step of path) {
    if (typeof step === 'string') {
      mapping = fields.find((f) => f.attribute === step)?.mapping;
    } else if (mapping && mapping.kind === 'list') {
      mapping = mapping.element;
    }
    if (!mapping) return false;
    if (mapping.kind === 'object') fields = mapping.fields;
  }
  return mapping?.kind === 'reference' || (mapping?.kind === 'list' && mapping.element.kind === 'reference');
}

function fail(diagnostic: Diagnostic): PlanResult {
  return { planned: null, requiresReplace: [], diagnostics: [diagnostic] };
}

export async function applyResource(
  rt: FormResourceType,
  host: HostAccess,
  prior: TfObject | null,
  planned: TfObject | null,
  plannedPrivate: Uint8Array | undefined,
): Promise<StateResult> {
  const client = host.client;
  const subject = planned ?? prior!;
  const ctx = context(rt, subject.name as string, subject.space as string, prior);
  if (!client) return { state: prior, diagnostics: [errorDiag('Provider not configured', 'The takoform provider needs `endpoint` and `token` to apply changes.')] };

  if (planned === null) {
    // Delete, fenced by the generation we last saw; "already gone" is success.
    // A dependent being deleted in the same run (but not ordered before us, e.g. because it
    // names us by a literal instead of a reference) frees us shortly: wait a little for it.
    const waitUntil = Date.now() + DEPENDENCY_WAIT_MS;
    for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
      try {
        await client.resources.delete(
          address(rt, prior!),
          { expectedGeneration: prior!.generation as string, uid: prior!.uid as string },
          { operationTimeoutMs: operationTimeout(prior!.timeouts, 'delete') },
        );
        host.journal.forgetName(rt.form.formRef, prior!.space as string, prior!.name as string);
        return { state: null, diagnostics: [] };
      } catch (e) {
        if (e instanceof HostApiError && e.code === 'dependency_in_use' && Date.now() + delay < waitUntil) {
          await new Promise((r) => setTimeout(r, delay));
          continue;
        }
        if (e instanceof AcceptedOutcomeUnknownError) {
          // Keep the object (with the Operation to follow) so the next run sees the outcome.
          return { state: objectValue([...Object.entries(prior!), ['pending_operation', e.operationId]]), diagnostics: [hostFailureDiagnostic('delete', e, ctx)] };
        }
        return { state: prior, diagnostics: [hostFailureDiagnostic('delete', e, ctx)] };
      }
    }
  }

  const spec = toSpec(rt.fields, planned);
  const name = planned.name as string;
  const space = planned.space as string;
  if (prior && prior.name === name && prior.space === space && canonicalJson(spec) === canonicalJson(toSpec(rt.fields, prior))) {
    // Only provider-side settings (timeouts) changed: nothing to send to the Host.
    return { state: withTimeouts(prior, planned.timeouts), diagnostics: [] };
  }
  const request = resourceRequest(rt.form.formRef, space, name, spec);
  const timeoutMs = operationTimeout(planned.timeouts, prior ? 'update' : 'create');
  const journalWarnings: Diagnostic[] = [];
  if (!prior) {
    // A create of this name and spec that an earlier run here sent but never recorded: resume it.
    try {
      const outcome = await resumeInterruptedCreate(client, host.journal, request, { operationTimeoutMs: timeoutMs });
      journalWarnings.push(...ignoredEntryWarnings(rt.typeName, name, outcome.ignored));
      if (outcome.resumed) {
        const { result, resumed } = outcome.resumed;
        const diagnostics = [...journalWarnings, ...readinessWarnings(rt, result.resource)];
        if (resumed) diagnostics.unshift(resumedWarning(rt.typeName, name, result.resource.metadata.uid));
        return { state: withTimeouts(rt.stateFromResource(result.resource), planned.timeouts), diagnostics };
      }
    } catch (e) {
      if (e instanceof AcceptedOutcomeUnknownError) return pendingState(rt, prior, planned, e);
      return { state: prior, diagnostics: [...journalWarnings, hostFailureDiagnostic('apply', e, ctx)] };
    }
  }
  let review = decodePrivate(plannedPrivate);
  if (!review || review.specDigest !== jcsDigest(spec)) {
    // No binding from plan (unknown values then): prepare now, and insist that the Host
    // materializes exactly what the plan showed.
    try {
      const prepared = await client.resources.prepare(request, prior ? (prior.generation as string) : undefined);
      if (canonicalJson(prepared.spec) !== canonicalJson(spec)) {
        return {
          state: prior,
          diagnostics: [errorDiag('Changed on the Host since plan', `The Host would now apply a different spec to ${rt.typeName} "${name}" than the plan showed. Run plan again.`)],
        };
      }
      review = { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest };
    } catch (e) {
      return { state: prior, diagnostics: [...journalWarnings, (await createConflictDiagnostic(client, rt.typeName, request, prior, e)) ?? hostFailureDiagnostic('prepare', e, ctx)] };
    }
  }

  let resource: ResourceResponse;
  try {
    const result = prior
      ? await client.resources.apply(request, review, { kind: 'update', expectedGeneration: prior.generation as string, expectedUid: prior.uid as string }, { operationTimeoutMs: timeoutMs })
      : await journaledCreate(client, host.journal, request, review, { operationTimeoutMs: timeoutMs });
    resource = result.resource;
  } catch (e) {
    if (e instanceof AcceptedOutcomeUnknownError) return pendingState(rt, prior, planned, e);
    return { state: prior, diagnostics: [...journalWarnings, (await createConflictDiagnostic(client, rt.typeName, request, prior, e)) ?? hostFailureDiagnostic('apply', e, ctx)] };
  }
  return { state: withTimeouts(rt.stateFromResource(resource), planned.timeouts), diagnostics: [...journalWarnings, ...readinessWarnings(rt, resource)] };
}

export function resumedWarning(typeName: string, name: string, uid: string): Diagnostic {
  return warningDiag(
    'Interrupted create resumed',
    `An earlier run created ${typeName} "${name}" on the Host (uid ${uid}) but stopped before recording it in state. ` +
      'This run sent the same request again and the Host answered it from its idempotency record: the existing resource is now in state, nothing was created twice.',
  );
}

/**
 * A create refused because the name is already taken on the Host by anyone but this very
 * attempt — another block of this configuration, another state, workspace or working
 * directory, or this one after `state rm`: say so plainly, with the import command, instead
 * of the Host's complaint about a fence. Core adds the address of the block that lost.
 */
export async function createConflictDiagnostic(client: HostClient, typeName: string, request: ResourceRequest, prior: TfObject | null, error: unknown): Promise<Diagnostic | undefined> {
  if (prior || !(error instanceof HostApiError) || !(error.code === 'invalid_argument' || error.code === 'generation_conflict')) return undefined;
  const { space, name } = request.metadata;
  const existing = await client.resources.read({ formRef: request.form.formRef, space, name }).catch(() => undefined);
  if (!existing) return undefined;
  return errorDiag(
    'Resource already exists on the Host',
    `${typeName} "${name}" already exists in space "${space}" (uid ${existing.metadata.uid}, generation ${existing.metadata.generation}), and this create did not make it: ` +
      'another resource block of this configuration, another state or workspace, or an earlier run whose state no longer has it holds the name. Nothing was changed. ' +
      `Give this block another name; or, to manage the existing one here, import it: an \`import\` block with id = "${space}/${name}", or the CLI's \`import <address> ${space}/${name}\` ` +
      '(first make sure no other state manages it: two states managing one resource delete it for each other). Host code: ' +
      `${error.code}${error.requestId ? `, request ${error.requestId}` : ''}.`,
  );
}

/** Warnings for journal entries that were found but not trusted. */
export function ignoredEntryWarnings(typeName: string, name: string, ignored: readonly IgnoredEntry[]): Diagnostic[] {
  return ignored.map((entry) =>
    warningDiag(
      'Create journal entry ignored',
      `A journaled create of ${typeName} "${name}" (${entry.what}) was not resumed because ${entry.reason}. It was removed; this run creates the resource as usual.`,
    ),
  );
}

/**
 * The Host accepted the change (HTTP 202) but its end was not seen within the timeout.
 * Record what was asked for and the Operation to follow, with a warning, so that the state
 * never loses a resource the Host may be creating; the next refresh follows the Operation.
 */
function pendingState(rt: FormResourceType, prior: TfObject | null, planned: TfObject, e: AcceptedOutcomeUnknownError): StateResult {
  const known = (v: TfValue | undefined, fallback: TfValue): TfValue => (v === undefined || v === null || isUnknown(v) ? fallback : v);
  const uid = e.uid ?? (prior?.uid as string | undefined) ?? '';
  const ref = rt.form.formRef;
  const state = objectValue(
    Object.entries(planned).map(([k, v]): [string, TfValue] => {
      switch (k) {
        case 'id':
          return [k, uid ? stateId(planned.space as string, ref.apiVersion, ref.kind, uid) : known(prior?.id, '')];
        case 'uid':
          return [k, uid];
        case 'generation':
        case 'revision':
          return [k, known(prior?.[k], '')];
        case 'conditions':
          return [k, known(prior?.conditions, [])];
        case 'ready':
          return [k, false];
        case 'outputs_json':
          return [k, known(prior?.outputs_json, '{}')];
        case 'outputs':
          return [k, known(prior?.outputs, null)];
        case 'pending_operation':
          return [k, e.operationId];
        default:
          return [k, v];
      }
    }),
  );
  return {
    state,
    diagnostics: [
      warningDiag(
        'Host still working on the change',
        `The Host accepted the change to ${rt.typeName} "${planned.name as string}" as operation ${e.operationId}${uid ? ` (uid ${uid})` : ''}, but it had not finished when the wait ended: ${e.causeMessage}. ` +
          'The state records the operation; the next plan or refresh follows it and shows the result. Raise the `timeouts` block to wait longer.',
      ),
    ],
  };
}

export async function readResource(rt: FormResourceType, host: HostAccess, current: TfObject): Promise<StateResult> {
  const client = host.client;
  if (!client) return { state: current, diagnostics: [] };
  const ctx = context(rt, current.name as string, current.space as string, current);
  if (typeof current.pending_operation === 'string') {
    // Follow the Operation first: while it runs, the state stays as recorded.
    try {
      const { operation } = await client.operations.get(current.pending_operation);
      if (!operation.done) return { state: current, diagnostics: [] };
    } catch (e) {
      if (!(e instanceof HostApiError && e.code === 'operation_not_found')) return { state: current, diagnostics: [hostFailureDiagnostic('follow the operation of', e, ctx)] };
    }
  }
  let resource: ResourceResponse | undefined;
  try {
    resource = await client.resources.read(address(rt, current));
  } catch (e) {
    return { state: current, diagnostics: [hostFailureDiagnostic('read', e, ctx)] };
  }
  if (!resource) {
    // Gone (deleted out of band, or by a run killed before it recorded the delete).
    host.journal.forgetName(rt.form.formRef, current.space as string, current.name as string);
    return { state: null, diagnostics: [] }; // core plans a create
  }
  if (typeof current.uid === 'string' && current.uid !== '' && resource.metadata.uid !== current.uid) {
    return {
      state: current,
      diagnostics: [
        errorDiag(
          'Resource was replaced outside this configuration',
          `${rt.typeName} "${current.name as string}" in space "${current.space as string}" is now a different incarnation on the Host (uid ${resource.metadata.uid}; state tracks ${current.uid as string}). ` +
            'The one this state managed was deleted and the name re-created by someone else. State was kept unchanged. ' +
            'To manage the new one, remove this resource from state (`tofu state rm`) and import it; to discard it, delete it on the Host.',
        ),
      ],
    };
  }
  // The state holds this resource: a journaled create of the name has nothing left to resume.
  host.journal.forgetName(rt.form.formRef, current.space as string, current.name as string);
  return { state: withTimeouts(rt.stateFromResource(resource), current.timeouts), diagnostics: [] };
}

/** `timeouts` is configuration, not Host state: carry it over from the plan or prior state. */
function withTimeouts(state: TfObject, timeouts: TfValue | undefined): TfObject {
  return objectValue([...Object.entries(state), ['timeouts', timeouts ?? null]]);
}

export async function importResource(rt: FormResourceType, host: HostAccess, id: string): Promise<StateResult> {
  const client = host.client;
  if (!client) return { state: null, diagnostics: [errorDiag('Provider not configured', 'Importing needs the provider `endpoint` and `token`.')] };
  const slash = id.lastIndexOf('/');
  const space = slash >= 0 ? id.slice(0, slash) : host.defaultSpace;
  const name = slash >= 0 ? id.slice(slash + 1) : id;
  if (!space || !name) {
    return { state: null, diagnostics: [errorDiag('Invalid import ID', `Use "SPACE/NAME" (or "NAME" with the provider space set); got ${JSON.stringify(id)}.`)] };
  }
  const ctx: ResourceContext = { typeName: rt.typeName, name, space, formRef: rt.form.formRef, fields: rt.fields };
  try {
    const resource = await client.resources.read({ formRef: rt.form.formRef, space, name });
    if (!resource) {
      return { state: null, diagnostics: [errorDiag('Cannot import non-existent resource', `The Host has no ${rt.form.formRef.kind} "${name}" in space "${space}" under this exact Form.`)] };
    }
    return { state: rt.stateFromResource(resource), diagnostics: [] };
  } catch (e) {
    return { state: null, diagnostics: [hostFailureDiagnostic('import', e, ctx)] };
  }
}

function address(rt: FormResourceType, state: TfObject): ResourceAddress {
  return { formRef: rt.form.formRef, space: state.space as string, name: state.name as string };
}

function context(rt: FormResourceType, name: string, space: string, prior: TfObject | null): ResourceContext {
  return {
    typeName: rt.typeName,
    name,
    space,
    formRef: rt.form.formRef,
    fields: rt.fields,
    ...(prior && typeof prior.uid === 'string' ? { uid: prior.uid } : {}),
    ...(prior && typeof prior.generation === 'string' ? { generation: prior.generation } : {}),
  };
}

function markComputedUnknown(planned: Record<string, TfValue>, newObject: boolean): void {
  for (const a of COMPUTED_ON_CHANGE) planned[a] = UNKNOWN;
  if ('outputs' in planned) planned.outputs = UNKNOWN;
  if (newObject) {
    planned.id = UNKNOWN;
    planned.uid = UNKNOWN;
  }
}

function collectReplace(rt: FormResourceType, prior: TfObject, planned: Record<string, TfValue>, out: AttributePath[]): void {
  for (const attr of rt.replaceAttributes) {
    if (!sameValue(prior[attr] ?? null, planned[attr] ?? null) && !out.some((p) => p[0] === attr)) out.push([attr]);
  }
}

function readinessWarnings(rt: FormResourceType, resource: ResourceResponse): Diagnostic[] {
  const ready = resource.status.conditions.find((c) => c.type === 'Ready');
  if (!ready || ready.status === 'True') return [];
  return [
    warningDiag(
      'Resource is not Ready',
      `${rt.typeName} "${resource.metadata.name}" was applied, but the Host reports Ready=${ready.status} (${ready.reason})${ready.message ? `: ${ready.message}` : ''}.`,
    ),
  ];
}

/** Structural equality of two known values (numbers by decimal value). */
export function sameValue(a: TfValue, b: TfValue): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]!));
  }
  if ('equals' in a && typeof a.equals === 'function' && 'equals' in b) return (a as { equals(o: unknown): boolean }).equals(b);
  if (isObjectValue(a) && isObjectValue(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && sameValue(a[k]!, b[k]!));
  }
  return false;
}
