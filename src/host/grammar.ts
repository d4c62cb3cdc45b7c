// Identifier grammars of Host API v1 (wire reference §2.3). One place, so the router, the
// envelope readers and the package loader all refuse exactly the same strings.
import { DIGEST_PATTERN } from '../common/digest.js';

const GROUP_PATTERN =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const KIND_PATTERN = /^[A-Z][A-Za-z0-9]{0,63}$/;
const NAME_PATTERN = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const UID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// SemVer 2.0 without build metadata: installed definition versions never carry any (§2.3).
const DEFINITION_VERSION_PATTERN =
  /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9][0-9]*|[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*))*))?$/;
const COUNTER_PATTERN = /^[1-9][0-9]{0,18}$/;
const COUNTER_MAXIMUM = 9223372036854775807n;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const STANDARD_SERVICE_PROTOCOL_PATTERN =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?){2,}$/;
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
