// Rules an apply to an existing resource must pass besides its fences (wire reference §7.2):
// revision-role resources are immutable, a spec change needs the update capability, and a
// Definition's immutableFields may not change. All refusals are invalid_argument: the client
// must plan a replacement instead.
import { canonicalJson } from '../../common/digest.js';
import { hasCapability, type InstalledForm } from '../catalog.js';
import { invalidArgument } from '../errors.js';
import { resolvePointer } from '../../common/json-pointer.js';
import type { JsonObject, JsonValue } from '../../common/json-value.js';
import type { StoredResource } from '../store/store.js';
import { SPEC_POINTER } from './admission.js';

export function assertUpdatePermitted(form: InstalledForm, current: StoredResource, spec: JsonObject, specDigest: string): void {
  // Ambiguity A17: even a spec-identical apply to a revision is refused.
  if (form.definition.role === 'revision') {
    throw invalidArgument(`${form.formRef.kind} has the revision role: an existing revision is never applied again; create a new one under another name`);
  }
  if (specDigest === current.specDigest) return;
  if (!hasCapability(form, 'update')) {
    throw invalidArgument(`${form.formRef.kind} declares no update capability: changing the spec needs a replacement (delete, then create)`, SPEC_POINTER);
  }
  for (const pointer of form.definition.immutableFields) {
    if (!sameValue(resolvePointer(current.spec, pointer), resolvePointer(spec, pointer))) {
      throw invalidArgument(`${SPEC_POINTER}${pointer} is immutable for ${form.formRef.kind}: changing it needs a replacement`, SPEC_POINTER + pointer);
    }
  }
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
