// The steps every request that carries a desired spec goes through before any stored state is
// consulted: resolve the exact FormRef, materialize and validate the spec, and (for prepare and
// apply, never validate) check the Host can serve its standard-service slots.
import { hasCapability, type FormCatalog, type InstalledForm } from '../catalog.js';
import { HostError } from '../errors.js';
import { describeFormRef, type FormRef } from '../form-ref.js';
import type { LifecycleCapability } from '../form-definition.js';
import type { JsonObject } from '../../common/json-value.js';
import type { DesiredSpecCheck } from '../spec-validation.js';
import { assertSlotsSatisfiable, collectSlots } from '../standard-services.js';

/** Where the spec sits in a request body; spec problem pointers are prefixed with it. */
export const SPEC_POINTER = '/spec';

/** The installed Form at exactly `ref`; all four members must match (no fallback of any kind). */
export function resolveForm(catalog: FormCatalog, ref: FormRef): InstalledForm {
  const form = catalog.exact(ref);
  if (form === undefined) {
    throw new HostError('form_unknown', `no Form Definition is installed at exactly ${describeFormRef(ref)}`);
  }
  return form;
}

/** Materializes and validates; refuses the first problem with `invalid_argument`, listing all of them. */
export function admitSpec(form: InstalledForm, spec: JsonObject): DesiredSpecCheck {
  const check = form.desiredSpec.check(spec);
  const [first] = check.problems;
  if (first !== undefined) {
    const problems = check.problems.map((problem) => ({ pointer: SPEC_POINTER + problem.pointer, message: problem.message }));
    throw new HostError('invalid_argument', `${SPEC_POINTER}${first.pointer} ${first.message}`, {
      details: { pointer: SPEC_POINTER + first.pointer, problems },
    });
  }
  return check;
}

/** Required standard-service slots must be satisfiable (wire reference §19). */
export function assertStandardServices(form: InstalledForm, spec: JsonObject, satisfiable: ReadonlySet<string>): void {
  assertSlotsSatisfiable(collectSlots(form.standardServiceSlotArrays, spec), satisfiable, SPEC_POINTER);
}

/** A lifecycle operation the Definition does not declare is one this Host cannot serve. */
export function requireCapability(form: InstalledForm, capability: LifecycleCapability): void {
  if (!hasCapability(form, capability)) {
    throw new HostError('unsupported_capability', `${describeFormRef(form.formRef)} does not declare the "${capability}" lifecycle capability`);
  }
}
