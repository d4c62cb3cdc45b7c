// The exact FormRef 4-tuple (wire reference §6.1). All four members take part in every lookup,
// stored identity and comparison; there is no partial match anywhere in the Host.
import { expectMembers, expectObject, expectString, type StringGrammar } from './closed-document.js';
import { isDefinitionVersion, isDigest, isFormGroup, isFormKind } from './grammar.js';
import type { JsonObject, JsonValue } from '../common/json-value.js';

export interface FormRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly schemaDigest: string;
}

export const FORM_GROUP_GRAMMAR: StringGrammar = { test: isFormGroup, describe: 'a versionless reverse-DNS Form group' };
export const FORM_KIND_GRAMMAR: StringGrammar = { test: isFormKind, describe: 'a Form kind matching ^[A-Z][A-Za-z0-9]{0,63}$' };
export const DEFINITION_VERSION_GRAMMAR: StringGrammar = {
  test: isDefinitionVersion,
  describe: 'a SemVer 2.0 version without build metadata',
};
export const DIGEST_GRAMMAR: StringGrammar = { test: isDigest, describe: 'a digest sha256:<64 lowercase hex>' };

/** Reads a closed FormRef object; refuses with `invalid_argument` at the offending member. */
export function readFormRef(value: JsonValue | undefined, pointer: string): FormRef {
  const object = expectObject(value, pointer);
  expectMembers(object, pointer, ['apiVersion', 'kind', 'definitionVersion', 'schemaDigest']);
  return {
    apiVersion: expectString(object, 'apiVersion', pointer, FORM_GROUP_GRAMMAR),
    kind: expectString(object, 'kind', pointer, FORM_KIND_GRAMMAR),
    definitionVersion: expectString(object, 'definitionVersion', pointer, DEFINITION_VERSION_GRAMMAR),
    schemaDigest: expectString(object, 'schemaDigest', pointer, DIGEST_GRAMMAR),
  };
}

export function sameFormRef(a: FormRef, b: FormRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.definitionVersion === b.definitionVersion && a.schemaDigest === b.schemaDigest;
}

/** A string key for maps: the 4-tuple, unambiguous because no member may contain a quote. */
export function formRefKey(ref: FormRef): string {
  return JSON.stringify([ref.apiVersion, ref.kind, ref.definitionVersion, ref.schemaDigest]);
}

/** The wire rendering, members in the order every example in the reference uses. */
export function formRefJson(ref: FormRef): JsonObject {
  return {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    definitionVersion: ref.definitionVersion,
    schemaDigest: ref.schemaDigest,
  };
}

export function describeFormRef(ref: FormRef): string {
  return `${ref.apiVersion}/${ref.kind} ${ref.definitionVersion} (${ref.schemaDigest})`;
}
