// Planning a change of one resource of any kind: what the plan shows is what the Host will
// store, because a fully known configuration is prepared by the Host (defaults included) and
// the Host's review binding goes to apply in planned private data. Unknown values (decided
// later in this run) plan what depends on them as unknown; apply prepares then.
// A refusal that depends on other resources as they are now (which this run may change) is a
// warning, not an error, and one that says a field is immutable plans a replacement
// (diag/refusal-class.ts; docs/resources.md, "What a plan checks against the Host").
import { canonicalJson } from '../../../common/digest.js';
import { resolvePointer } from '../../../common/json-pointer.js';
import { formatFormRef, HostApiError, resourceRequest, type JsonObject, type ResourceResponse } from '../../../host-client/index.js';
import { errorDiag, hclPath, warningDiag, type AttributePath, type Diagnostic } from '../../diag/diagnostics.js';
import { crossResourceWarning, hostFailureDiagnostic, requestPointerPath, type ResourceContext } from '../../diag/host-diagnostics.js';
import { classifyRefusal } from '../../diag/refusal-class.js';
import { SpecConversionError } from '../../schema/form-mapping.js';
import { isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../../values/tf-value.js';
import { COMPUTED_ON_CHANGE, COMPUTED_ON_CREATE, readEnvelope } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import { diagnosticContext, sameValue } from './common.js';
import type { HostAccess } from './host-access.js';
import { pinnedReplacementWarnings, resourceKey } from './pinned-replacements.js';
import { prepareKey, type PreparedEntry } from './prepared-bindings.js';
import type { ResourcePrivate } from './resource-private.js';

export interface PlanResult {
  readonly planned: TfObject | null;
  readonly requiresReplace: AttributePath[];
  readonly private: ResourcePrivate;
  readonly diagnostics: Diagnostic[];
}

export async function planChange(
  kind: ResourceKind,
  host: HostAccess,
  prior: TfObject | null,
  proposed: TfObject | null,
  config: TfObject | null,
  priorPrivate: ResourcePrivate,
  /** The first plan's planned private data, when core hands it to the re-plan (Terraform ≥ 1.16). */
  handedOver: ResourcePrivate = {},
): Promise<PlanResult> {
  const before = prior ? readEnvelope(prior) : undefined;
  const priorKey = prior && before ? resourceKey(kind.formRef(prior).kind, before.space, before.name) : undefined;
  if (priorKey) host.plannedPriors.add(priorKey);
  const result = await planOne(kind, host, prior, proposed, config, priorPrivate, handedOver);
  if (!prior || !priorKey || !config || !result.planned) return result;
  if (result.requiresReplace.length > 0) {
    // Recorded for what refers to it, which core plans after it (pinned-replacements.ts).
    host.plannedReplacements.set(priorKey, kind.typeName);
    return result;
  }
  if (host.plannedReplacements.size === 0) return result;
  // What the Host pins now (the stored spec) and what this plan will pin (the configuration):
  // re-pointing a reference to the replacement does not unpin the old target before its delete.
  const specs: JsonObject[] = [];
  for (const spec of [() => kind.hostSpecOf(prior), () => (kind.specKnown(config) ? kind.desiredSpec(config) : undefined)]) {
    try {
      const s = spec();
      if (s) specs.push(s);
    } catch {
      // a conversion error is reported by the plan itself; an unreadable state by refresh
    }
  }
  const planned = readEnvelope(result.planned);
  const ctx = diagnosticContext(kind, kind.formRef(result.planned), planned.name, planned.space, prior);
  const warnings = pinnedReplacementWarnings(specs, ctx, host.plannedReplacements, () => host.replaceTriggeredTypes());
  return warnings.length ? { ...result, diagnostics: [...result.diagnostics, ...warnings] } : result;
}

async function planOne(
  kind: ResourceKind,
  host: HostAccess,
  prior: TfObject | null,
  proposed: TfObject | null,
  config: TfObject | null,
  priorPrivate: ResourcePrivate,
  handedOver: ResourcePrivate,
): Promise<PlanResult> {
  if (proposed === null || config === null) return { planned: null, requiresReplace: [], private: {}, diagnostics: [] };
  const planned: Record<string, TfValue> = { ...proposed };
  if ((config.space ?? null) === null) {
    if (prior) planned.space = prior.space ?? null;
    else if (host.defaultSpace) planned.space = host.defaultSpace;
    else if (host.configUnknown) planned.space = UNKNOWN;
    else return fail(errorDiag('Missing space', `Set \`space\` on ${kind.typeName} or in the provider configuration (or TAKOFORM_SPACE).`, ['space']));
  }

  const requiresReplace: AttributePath[] = [];
  const collectReplace = (values: Record<string, TfValue>) => {
    if (!prior) return;
    for (const attr of ['name', 'space'])
      if (!sameValue(prior[attr] ?? null, values[attr] ?? null) && !has(requiresReplace, attr)) requiresReplace.push([attr]);
    for (const path of kind.replacePaths(prior, objectValue(Object.entries(values)))) if (!has(requiresReplace, String(path[0]))) requiresReplace.push(path);
  };

  const known = kind.specKnown(config) && isWhollyKnown(planned.name ?? null) && isWhollyKnown(planned.space ?? null);
  if (!known) {
    // A create whose spec is not known yet is still a create of this name in this run: what
    // refers to it must not be told its target is missing.
    if (!prior) rememberPlannedCreate(host, kind.formRef(objectValue(Object.entries(planned))).kind, planned.space, planned.name);
    kind.completePlanned(planned, 'unknown', config, 'local');
    collectReplace(planned);
    markComputedUnknown(kind, planned, !prior || requiresReplace.length > 0);
    kind.completePlanned(planned, 'unknown', config, 'local');
    return done(planned, requiresReplace, carried(priorPrivate));
  }

  let spec: JsonObject;
  try {
    spec = kind.desiredSpec(config);
  } catch (e) {
    if (e instanceof SpecConversionError) {
      return fail(
        errorDiag('Invalid value', `${kind.typeName} "${planned.name as string}": ${e.message}. Form ${formatFormRef(kind.formRef(config))}.`, e.path),
      );
    }
    throw e;
  }
  const formRef = kind.formRef(objectValue(Object.entries(planned)));
  const local = kind.withDefaults(spec, formRef);
  const name = planned.name as string;
  const space = planned.space as string;
  // Core plans a target before what refers to it, in this same provider process: remember
  // what this run creates so that a reference to it is not reported as missing.
  if (!prior) rememberPlannedCreate(host, formRef.kind, space, name);

  if (prior) {
    const withLocal = { ...planned };
    kind.completePlanned(withLocal, local, config, 'local');
    collectReplace(withLocal);
    // Nothing to do: the configuration still means the state we have. No Host call.
    if (requiresReplace.length === 0 && kind.unchanged(prior, config, local, priorPrivate)) {
      return { planned: kind.stateFromPrior(prior, proposed), requiresReplace: [], private: priorPrivate, diagnostics: [] };
    }
    if (requiresReplace.length > 0) {
      // A replacement: the new object is prepared when core plans it (prior = null).
      markComputedUnknown(kind, planned, true);
      kind.completePlanned(planned, local, config, 'local');
      return done(planned, requiresReplace, {});
    }
  }

  const client = host.client;
  if (!client) {
    // Provider configuration unknown at plan time: plan from the schema's defaults.
    markComputedUnknown(kind, planned, !prior);
    kind.completePlanned(planned, local, config, 'local');
    return done(planned, requiresReplace, carried(priorPrivate));
  }

  // The apply-time re-plan of a change this directory planned moments ago: the plan's own
  // prepare answer, bound to this exact spec, address and incarnation, stands in for a new one
  // (the Host still checks the binding when apply spends it).
  const envelope = prior ? readEnvelope(prior) : undefined;
  const incarnation = envelope ? { uid: envelope.uid, generation: envelope.generation } : undefined;
  const key = prepareKey(host.preparedBindings.endpoint, { formRef, space, name, spec, prior: incarnation });
  let prepared: PreparedEntry | undefined = host.preparedBindings.find(key, handedOver.prepared);
  if (!prepared) {
    const unavailable = await host.checkForm(kind.typeName, formRef, space, prior ? 'update' : 'create');
    if (unavailable) return fail(unavailable);
    try {
      prepared = host.preparedBindings.remember(key, await client.resources.prepare(resourceRequest(formRef, space, name, spec), incarnation?.generation));
    } catch (e) {
      if (!prior && e instanceof HostApiError && (e.code === 'invalid_argument' || e.code === 'generation_conflict')) {
        // A create whose name is still held: the old object of a replacement (deleted before
        // this create is applied), an interrupted create of ours that apply resumes, or someone
        // else's, which apply refuses with "Resource already exists on the Host".
        const existing = await client.resources.read({ formRef, space, name }).catch(() => undefined);
        if (existing) {
          markComputedUnknown(kind, planned, true);
          kind.completePlanned(planned, local, config, 'local');
          const key = resourceKey(formRef.kind, space, name);
          // plannedPriors also holds every replacement's old object (planned from its prior first).
          const ours = host.plannedPriors.has(key) || host.journal.mayResume(formRef, space, name);
          return { ...done(planned, requiresReplace, {}), diagnostics: ours ? [] : [nameTakenWarning(kind.typeName, existing, space, name)] };
        }
      }
      if (e instanceof HostApiError) {
        const ctx = diagnosticContext(kind, formRef, name, space, prior);
        const cls = classifyRefusal({ code: e.code, message: e.hostMessage, atRelation: kind.refersToRelation(e.pointer), update: prior !== null });
        if (cls.kind === 'cross-resource') {
          // Judged against the other resources as they are now, which this run may change: the
          // plan goes on from the configuration (no binding, so apply prepares and checks again).
          const warnings = cls.rule === 'missing relation target' ? missingTargetNote(e, spec, space, host, ctx) : [crossResourceWarning(e, cls, ctx)];
          markComputedUnknown(kind, planned, !prior);
          kind.completePlanned(planned, local, config, 'local');
          return { ...done(planned, requiresReplace, carried(priorPrivate)), diagnostics: warnings };
        }
        if (cls.kind === 'replacement' && prior) {
          // The Host says the field is immutable and the catalog did not: plan what the Host
          // insists on, a replacement, rather than an update that apply could never make.
          const path = e.pointer ? requestPointerPath(e.pointer, ctx) : undefined;
          const top = path && typeof path[0] === 'string' ? [path[0]] : undefined;
          if (top) {
            markComputedUnknown(kind, planned, true);
            kind.completePlanned(planned, local, config, 'local');
            return { ...done(planned, [...requiresReplace, top], {}), diagnostics: [immutableWarning(e, ctx, top)] };
          }
        }
      }
      return fail(hostFailureDiagnostic('prepare', e, diagnosticContext(kind, formRef, name, space, prior)));
    }
  }
  if (prior && canonicalJson(prepared.spec) === canonicalJson(kind.hostSpecOf(prior)) && kind.unchanged(prior, config, prepared.spec, priorPrivate)) {
    return { planned: kind.stateFromPrior(prior, proposed), requiresReplace: [], private: priorPrivate, diagnostics: [] };
  }
  markComputedUnknown(kind, planned, !prior);
  kind.completePlanned(planned, prepared.spec, config, 'host');
  return done(planned, requiresReplace, {
    ...carried(priorPrivate),
    binding: { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest },
    prepared,
  });
}

function has(paths: readonly AttributePath[], attribute: string): boolean {
  return paths.some((p) => p[0] === attribute);
}

/** What a plan keeps of the prior private data: the drift reference, never an old binding. */
function carried(p: ResourcePrivate): ResourcePrivate {
  return p.applied !== undefined ? { applied: p.applied } : {};
}

function done(planned: Record<string, TfValue>, requiresReplace: AttributePath[], priv: ResourcePrivate): PlanResult {
  return { planned: objectValue(Object.entries(planned)), requiresReplace, private: priv, diagnostics: [] };
}

function fail(diagnostic: Diagnostic): PlanResult {
  return { planned: null, requiresReplace: [], private: {}, diagnostics: [diagnostic] };
}

/**
 * Marks what the change may move as unknown; called before the kind fills in what it knows.
 * What provably stays is kept: a Host omits `status.outputs` exactly when the Form's
 * Definition declares no outputSchema (Host API v1 §8.2), and an update keeps the exact Form,
 * so an object that had no outputs (`{}`, read from the Host, not a pending placeholder) has
 * none after an in-place update either.
 */
function markComputedUnknown(kind: ResourceKind, planned: Record<string, TfValue>, newObject: boolean): void {
  const noOutputs = !newObject && planned.outputs_json === '{}' && (planned.pending_operation ?? null) === null;
  for (const a of COMPUTED_ON_CHANGE) planned[a] = UNKNOWN;
  if (noOutputs) planned.outputs_json = '{}';
  for (const a of kind.computedOnChange) if (a in planned) planned[a] = UNKNOWN;
  // A create still running on the Host when its state was recorded has no uid yet: the change
  // learns it at apply (pending.ts, settlePending), as a create does.
  if (newObject || planned.uid === '') for (const a of COMPUTED_ON_CREATE) planned[a] = UNKNOWN;
}

/**
 * A create of a name the Host already has, which is neither the old object of a replacement
 * in this run nor an interrupted create of ours: apply will refuse it unless something deletes
 * it first. A warning, not an error: this run may delete it (the plan cannot see deletes).
 */
function nameTakenWarning(typeName: string, existing: ResourceResponse, space: string, name: string): Diagnostic {
  return warningDiag(
    'Name already taken on the Host',
    `${typeName} "${name}" in space "${space}" is already on the Host (uid ${existing.metadata.uid}, generation ${existing.metadata.generation}), and this plan creates it as a new resource. ` +
      'Unless this run deletes it first, apply will refuse the create ("Resource already exists on the Host") and stop there; nothing is overwritten. ' +
      `If another state, workspace or block manages it, give this block another name; to manage it here, import it (an \`import\` block with id = "${space}/${name}"). ` +
      'If this run deletes it (a block renamed without a `moved` block), add the `moved` block instead: a delete and a create of one name are not ordered.',
    ['name'],
  );
}

/** Records a planned create by kind, space and name, when all three are known. */
function rememberPlannedCreate(host: HostAccess, formKind: TfValue, space: TfValue | undefined, name: TfValue | undefined): void {
  if (typeof formKind === 'string' && typeof space === 'string' && typeof name === 'string') host.plannedCreates.add(resourceKey(formKind, space, name));
}

/** The value at a Host pointer into the request document (`/spec/...`), if it is there. */
function atPointer(spec: JsonObject, pointer: string | undefined): unknown {
  return pointer?.startsWith('/spec/') ? resolvePointer(spec, pointer.slice('/spec'.length)) : undefined;
}

/**
 * A reference whose target is not on the Host: nothing to say when this run plans to create
 * it (core planned it first); otherwise a note, since apply will refuse unless something
 * outside this configuration creates it in the meantime.
 */
function missingTargetNote(e: HostApiError, spec: JsonObject, space: string, host: HostAccess, ctx: ResourceContext): Diagnostic[] {
  const ref = atPointer(spec, e.pointer);
  const target = ref !== null && typeof ref === 'object' ? (ref as Record<string, unknown>) : undefined;
  const targetName = typeof target?.name === 'string' ? target.name : undefined;
  const targetKind = typeof target?.kind === 'string' ? target.kind : undefined;
  if (targetName && targetKind && host.plannedCreates.has(resourceKey(targetKind, space, targetName))) return [];
  const path = e.pointer ? requestPointerPath(e.pointer, ctx) : undefined;
  const what = targetName ? `${targetKind ?? 'resource'} "${targetName}"` : 'the resource it refers to';
  return [
    warningDiag(
      'Reference to a resource that does not exist',
      `${ctx.typeName} "${ctx.name}"${path ? ` refers at ${hclPath(path)}` : ''} to ${what} in space "${space}", which the Host does not have, and nothing in this run is planned to create it. ` +
        'The plan goes on; apply will refuse with resource_not_found unless it exists by then. Create it first (a resource block, referenced as `<type>.<name>.name` so it is ordered before this one) or fix the reference.' +
        `\n\nHost code: ${e.code}, request ${e.requestId}${e.pointer ? `\nField: ${e.pointer}` : ''}`,
      path,
    ),
  ];
}

/** The Host refused an update because a field is immutable, which the catalog did not know. */
function immutableWarning(e: HostApiError, ctx: ResourceContext, path: AttributePath): Diagnostic {
  return warningDiag(
    'Planned as a replacement: the Host says this field is immutable',
    `The Host refuses to update ${ctx.typeName} "${ctx.name}" in place: ${e.hostMessage}. The catalog (.takoform.lock.json) does not list this field in the Form's immutableFields, ` +
      `probably because it was locked without the Form's package, so the plan replaces the resource (delete, then create) for the change to ${hclPath(path)}. ` +
      'To have this known offline, lock again with the package: `terraform-provider-takoform catalog lock --endpoint ... --package <dir of the Form Package>`.' +
      `\n\nForm: ${formatFormRef(ctx.formRef)}\nHost code: ${e.code}, request ${e.requestId}`,
    path,
  );
}
