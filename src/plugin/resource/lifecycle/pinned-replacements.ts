// A resource that refers to a target this run replaces. The Host pins a reference by uid and
// refuses to delete a pinned target (dependency_in_use, Host API v1 §12.4, §17), so a plan
// that replaces the target (delete, then create) and keeps the dependent would stop at the
// delete. Host API v1 has no route that lists a resource's dependents (the only report is the
// refusal of the delete itself), but core plans a target before what refers to it, in this same
// provider process: the target's plan records the replacement, the dependent's plan sees it
// and says so, with the replace_triggered_by recipe. Dependents in other configurations remain
// invisible until apply, whose refusal names them.
import { hclPath, warningDiag, type Diagnostic } from '../../diag/diagnostics.js';
import { requestPointerPath, type ResourceContext } from '../../diag/host-diagnostics.js';
import { appendPointer } from '../../../common/json-pointer.js';
import type { JsonObject, JsonValue } from '../../../host-client/index.js';

/** One reference object `{apiVersion, kind, name}` in a desired spec, with its pointer. */
export interface SpecReference {
  readonly pointer: string;
  readonly kind: string;
  readonly name: string;
}

/** Every reference object in a spec (a relation has no space member: same space as its source). */
export function referencesIn(spec: JsonObject): SpecReference[] {
  const found: SpecReference[] = [];
  const walk = (value: JsonValue, pointer: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, appendPointer(pointer, i)));
    else if (value !== null && typeof value === 'object') {
      if (typeof value.apiVersion === 'string' && typeof value.kind === 'string' && typeof value.name === 'string')
        found.push({ pointer, kind: value.kind, name: value.name });
      else for (const [k, v] of Object.entries(value)) walk(v, appendPointer(pointer, k));
    }
  };
  walk(spec, '/spec');
  return found;
}

/** How this run's plans name a resource (plannedCreates, plannedReplacements): kind, space and name. */
export function resourceKey(kind: string, space: string, name: string): string {
  return `${kind}\u0000${space}\u0000${name}`;
}

/**
 * Warnings for the references (in the stored spec, and in the planned one) of a resource whose
 * own plan keeps it, to targets this run replaces, one per target; `replacedType` maps a replacement key to the target's resource type, and
 * `triggered` holds the types the configuration already names in replace_triggered_by.
 */
export function pinnedReplacementWarnings(
  specs: readonly JsonObject[],
  ctx: ResourceContext,
  replacedType: ReadonlyMap<string, string>,
  triggered: () => ReadonlySet<string>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const ref of specs.flatMap(referencesIn)) {
    const key = resourceKey(ref.kind, ctx.space, ref.name);
    const targetType = replacedType.get(key);
    if (!targetType || seen.has(key) || triggered().has(targetType)) continue;
    seen.add(key);
    const path = requestPointerPath(ref.pointer, ctx);
    out.push(
      warningDiag(
        'Refers to a resource this plan replaces',
        `${ctx.typeName} "${ctx.name}"${path ? ` refers at ${hclPath(path)}` : ''} to ${ref.kind} "${ref.name}", which this plan replaces (delete, then create), while this resource is kept. ` +
          'The Host refuses to delete a resource that another one refers to (dependency_in_use), so the apply would stop at that delete. ' +
          `Replace this resource together with it: in this resource's block add\n\n  lifecycle {\n    replace_triggered_by = [${targetType}.<block name>.uid]\n  }\n\n` +
          `naming the block of ${ref.kind} "${ref.name}". Resources in other configurations that refer to it are not visible at plan time; the apply names them if the Host refuses.`,
        path,
      ),
    );
  }
  return out;
}
