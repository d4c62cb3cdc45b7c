// Identifier grammars of Host API v1 (wire reference §2.3). One place, shared by the Host and
// the provider, so the Host's router and envelope readers and the provider's offline
// validation refuse exactly the same strings.
import { DIGEST_PATTERN } from './digest.js';

const GROUP_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const KIND_PATTERN = /^[A-Z][A-Za-z0-9]{0,63}$/;
const NAME_PATTERN = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const UID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// SemVer 2.0 without build metadata: installed definition versions never carry any (§2.3).
const DEFINITION_VERSION_PATTERN =
  /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*))*))?$/;
const COUNTER_PATTERN = /^[1-9][0-9]{0,18}$/;
const COUNTER_MAXIMUM = 9223372036854775807n;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const STANDARD_SERVICE_PROTOCOL_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?){2,}$/;
// SpaceID: no leading/trailing Unicode White_Space or U+FEFF; no slash; no C0/C1 control.
const SPACE_EDGE_CHARACTER = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const SPACE_FORBIDDEN_CHARACTER = /[/\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A versionless reverse-DNS Form group (the FormRef `apiVersion`). */
export function isFormGroup(value: string): boolean {
  return value.length <= 253 && GROUP_PATTERN.test(value);
}

export function isFormKind(value: string): boolean {
  return KIND_PATTERN.test(value);
}

/** `metadata.name`: a DNS label, never trimmed or case-folded. */
export function isResourceName(value: string): boolean {
  return NAME_PATTERN.test(value);
}

export function isUid(value: string): boolean {
  return UID_PATTERN.test(value);
}

export function isDefinitionVersion(value: string): boolean {
  return DEFINITION_VERSION_PATTERN.test(value);
}

export function isDigest(value: string): boolean {
  return DIGEST_PATTERN.test(value);
}

/** A canonical generation/revision string: decimal 1..2^63-1, no sign, no leading zero. */
export function isCounter(value: string): boolean {
  return COUNTER_PATTERN.test(value) && BigInt(value) <= COUNTER_MAXIMUM;
}

export function isIdempotencyKey(value: string): boolean {
  return IDEMPOTENCY_KEY_PATTERN.test(value);
}

export function isStandardServiceProtocol(value: string): boolean {
  return value.length <= 253 && STANDARD_SERVICE_PROTOCOL_PATTERN.test(value);
}

export function isSpaceId(value: string): boolean {
  const codePoints = [...value];
  if (codePoints.length < 1 || codePoints.length > 255) return false;
  if (LONE_SURROGATE.test(value) || SPACE_FORBIDDEN_CHARACTER.test(value)) return false;
  return !SPACE_EDGE_CHARACTER.test(codePoints[0]) && !SPACE_EDGE_CHARACTER.test(codePoints[codePoints.length - 1]);
}

/** Why `value` is not a resource name (a DNS label), in words; undefined when it is one. */
export function resourceNameProblem(value: string): string | undefined {
  if (isResourceName(value)) return undefined;
  const length = [...value].length;
  if (length === 0) return 'it is empty';
  if (length > 63) return `it has ${length} characters; at most 63 are allowed`;
  if (/[A-Z]/.test(value)) return 'it has upper-case letters; names are never case-folded, so use lower case';
  if (/[^a-z0-9-]/.test(value))
    return `it contains ${JSON.stringify([...value].find((c) => !/[a-z0-9-]/.test(c)))}; only lower-case letters a-z, digits and "-" are allowed`;
  if (!/^[a-z]/.test(value)) return 'it must start with a lower-case letter';
  return 'it must end with a lower-case letter or a digit';
}

/** Why `value` is not a SpaceID, in words; undefined when it is one. */
export function spaceIdProblem(value: string): string | undefined {
  if (isSpaceId(value)) return undefined;
  const codePoints = [...value];
  if (codePoints.length === 0) return 'it is empty';
  if (codePoints.length > 255) return `it has ${codePoints.length} code points; at most 255 are allowed`;
  if (LONE_SURROGATE.test(value)) return 'it is not valid UTF-8 (a lone surrogate)';
  if (value.includes('/')) return 'it contains "/"';
  const control = codePoints.find((c) => SPACE_FORBIDDEN_CHARACTER.test(c));
  if (control) return `it contains the control character U+${control.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return 'it starts or ends with white space (SpaceIDs are never trimmed)';
}

// Artifact paths: the `artifactPath` of the byte-verified manifest schema
// (artifact-manifest-v1alpha1), stricter than §14.1's prose: 1-240 characters, segments of
// A-Z a-z 0-9 _ . - that do not start with a dot, joined by "/".
const ARTIFACT_PATH_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*$/;
export const ARTIFACT_PATH_MAXIMUM = 240;

/** A manifest entry path (module name or file path). */
export function isArtifactPath(value: string): boolean {
  return value.length >= 1 && value.length <= ARTIFACT_PATH_MAXIMUM && ARTIFACT_PATH_PATTERN.test(value);
}

/** Why `value` is not an artifact path, in words; undefined when it is one. */
export function artifactPathProblem(value: string): string | undefined {
  if (isArtifactPath(value)) return undefined;
  if (value === '') return 'it is empty';
  if (value.length > ARTIFACT_PATH_MAXIMUM) return `it has ${value.length} characters; at most ${ARTIFACT_PATH_MAXIMUM} are allowed`;
  if (value.startsWith('/')) return 'it is absolute (starts with /)';
  if (value.includes('\\')) return 'it contains a backslash';
  const segments = value.split('/');
  if (segments.some((s) => s === '')) return 'it has an empty segment';
  if (segments.some((s) => s === '.' || s === '..')) return 'it has a . or .. segment';
  if (segments.some((s) => s.startsWith('.'))) return 'a segment starts with a dot';
  const bad = [...value].find((c) => !/[A-Za-z0-9._/-]/.test(c));
  return `it contains ${JSON.stringify(bad)}; only A-Z, a-z, 0-9, "_", ".", "-" and "/" are allowed`;
}
