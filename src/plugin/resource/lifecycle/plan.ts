// Planning a change of one resource of any kind: what the plan shows is what the Host will
// store, because a fully known configuration is prepared by the Host (defaults included) and
// the Host's review binding goes to apply in planned private data. Unknown values (decided
// later in this run) plan what depends on them as unknown; apply prepares then.
import { canonicalJson } from '../../../common/digest.js';
import { formatFormRef, HostApiError, resourceRequest, type JsonObject, type PrepareResult } from '../../../host-client/index.js';
import { errorDiag, type AttributePath, type Diagnostic } from '../../diag/diagnostics.js';
import { hostFailureDiagnostic } from '../../diag/host-diagnostics.js';
import { SpecConversionError } from '../../schema/form-mapping.js';
import { isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../../values/tf-value.js';
import { COMPUTED_ON_CHANGE, COMPUTED_ON_CREATE } from '../envelope.js';
import type { ResourceKind } from '../resource-kind.js';
import { diagnosticContext, sameValue } from './common.js';
import type { HostAccess } from './host-access.js';
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
    for (const attr of ['name', 'space']) if (!sameValue(prior[attr] ?? null, values[attr] ?? null) && !has(requiresReplace, attr)) requiresReplace.push([attr]);
    for (const path of kind.replacePaths(prior, objectValue(Object.entries(values)))) if (!has(requiresReplace, String(path[0]))) requiresReplace.push(path);
  };

  const known = kind.specKnown(config) && isWhollyKnown(planned.name ?? null) && isWhollyKnown(planned.space ?? null);
  if (!known) {
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
      return fail(errorDiag('Invalid value', `${kind.typeName} "${planned.name as string}": ${e.message}. Form ${formatFormRef(kind.formRef(config))}.`, e.path));
    }
    throw e;
  }
  const formRef = kind.formRef(objectValue(Object.entries(planned)));
  const local = kind.withDefaults(spec, formRef);
  const name = planned.name as string;
  const space = planned.space as string;

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

  const unavailable = await host.checkForm(kind.typeName, formRef, space, prior ? 'update' : 'create');
  if (unavailable) return fail(unavailable);
  let prepared: PrepareResult;
  try {
    prepared = await client.resources.prepare(resourceRequest(formRef, space, name, spec), prior ? (prior.generation as string) : undefined);
  } catch (e) {
    if (e instanceof HostApiError && e.code === 'resource_not_found' && kind.refersToRelation(e.pointer)) {
      // The target is named but not on the Host yet: typically created earlier in this same
      // run (core orders it first). Plan from the schema; apply prepares again and refuses
      // then if the target still does not exist.
      markComputedUnknown(kind, planned, !prior);
      kind.completePlanned(planned, local, config, 'local');
      return done(planned, requiresReplace, carried(priorPrivate));
    }
    if (!prior && e instanceof HostApiError && (e.code === 'invalid_argument' || e.code === 'generation_conflict')) {
      // A create whose name is still held: the old object of a replacement (deleted before
      // this create is applied), an interrupted create of ours that apply resumes, or someone
      // else's, which apply refuses with "Resource already exists on the Host".
      const existing = await client.resources.read({ formRef, space, name }).catch(() => undefined);
      if (existing) {
        markComputedUnknown(kind, planned, true);
        kind.completePlanned(planned, local, config, 'local');
        return done(planned, requiresReplace, {});
      }
    }
    return fail(hostFailureDiagnostic('prepare', e, diagnosticContext(kind, formRef, name, space, prior)));
  }
  if (prior && canonicalJson(prepared.spec) === canonicalJson(kind.hostSpecOf(prior)) && kind.unchanged(prior, config, prepared.spec, priorPrivate)) {
    return { planned: kind.stateFromPrior(prior, proposed), requiresReplace: [], private: priorPrivate, diagnostics: [] };
  }
  markComputedUnknown(kind, planned, !prior);
  kind.completePlanned(planned, prepared.spec, config, 'host');
  return done(planned, requiresReplace, { ...carried(priorPrivate), binding: { prepareDigest: prepared.prepareDigest, specDigest: prepared.specDigest } });
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

/** Marks what the change may move as unknown; called before the kind fills in what it knows. */
function markComputedUnknown(kind: ResourceKind, planned: Record<string, TfValue>, newObject: boolean): void {
  for (const a of COMPUTED_ON_CHANGE) planned[a] = UNKNOWN;
  for (const a of kind.computedOnChange) if (a in planned) planned[a] = UNKNOWN;
  if (newObject) for (const a of COMPUTED_ON_CREATE) planned[a] = UNKNOWN;
}
