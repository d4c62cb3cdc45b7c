// Reads the closed request envelopes of validate, prepare and apply (wire reference §8.1) into
// typed values. Unknown members anywhere in the envelope are refused with the member's pointer;
// the spec itself is judged later, against the exact Definition.
import { expectMembers, expectObject, expectString, optionalString, type StringGrammar } from '../closed-document.js';
import { invalidArgument } from '../errors.js';
import { DIGEST_GRAMMAR, FORM_GROUP_GRAMMAR, FORM_KIND_GRAMMAR, readFormRef, type FormRef } from '../form-ref.js';
import { isCounter, isResourceName, isSpaceId, isUid } from '../grammar.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../common/json-value.js';

export interface ResourceRequest {
  readonly formRef: FormRef;
  /** Audit evidence only; accepted, checked for grammar, never compared. */
  readonly packageDigest: string | undefined;
  readonly name: string;
  readonly space: string;
  readonly spec: JsonObject;
}

export interface ApplyRequest extends ResourceRequest {
  readonly prepareDigest: string;
  /** Optional echo of the prepare answer; must equal the digest of the spec being applied. */
  readonly reviewSpecDigest: string | undefined;
  readonly expectedUid: string | undefined;
  readonly expectedGeneration: string | undefined;
}

const CORE_MEMBERS = ['apiVersion', 'kind', 'form', 'metadata', 'spec'] as const;
const NAME_GRAMMAR: StringGrammar = { test: isResourceName, describe: 'a DNS label (^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$)' };
const SPACE_GRAMMAR: StringGrammar = {
  test: isSpaceId,
  describe: 'a SpaceID (1-255 code points, no slash, no control character, no leading or trailing whitespace)',
};
const UID_GRAMMAR: StringGrammar = { test: isUid, describe: 'a uid (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$)' };
const COUNTER_GRAMMAR: StringGrammar = { test: isCounter, describe: 'a canonical positive decimal string' };

/** `resourceRequest`: the body of validate and prepare. */
export function readResourceRequest(body: JsonValue | undefined): ResourceRequest {
  const document = expectObject(body, '');
  expectMembers(document, '', CORE_MEMBERS);
  return readCore(document);
}

/** `applyRequest`: resourceCore + review (+ expectedUid, expectedGeneration). */
export function readApplyRequest(body: JsonValue | undefined): ApplyRequest {
  const document = expectObject(body, '');
  expectMembers(document, '', [...CORE_MEMBERS, 'review'], ['expectedUid', 'expectedGeneration']);
  const core = readCore(document);
  const review = expectObject(document.review, '/review');
  expectMembers(review, '/review', ['prepareDigest'], ['specDigest']);
  return {
    ...core,
    prepareDigest: expectString(review, 'prepareDigest', '/review', DIGEST_GRAMMAR),
    reviewSpecDigest: optionalString(review, 'specDigest', '/review', DIGEST_GRAMMAR),
    expectedUid: optionalString(document, 'expectedUid', '', UID_GRAMMAR),
    expectedGeneration: optionalString(document, 'expectedGeneration', '', COUNTER_GRAMMAR),
  };
}

export interface ImportRequest extends ResourceRequest {
  /** The Host-native identity being adopted; never echoed. */
  readonly nativeId: string;
  /** metadata.generation, which (ambiguity A9) must equal the generation header when both are sent. */
  readonly metadataGeneration: string | undefined;
}

const NATIVE_ID_GRAMMAR: StringGrammar = { test: (value) => value.length >= 1 && value.length <= 4096, describe: 'a string of 1-4096 characters' };

/** `importRequest`: resourceCore + nativeId. */
export function readImportRequest(body: JsonValue | undefined): ImportRequest {
  const document = expectObject(body, '');
  expectMembers(document, '', [...CORE_MEMBERS, 'nativeId']);
  const core = readCore(document);
  const metadata = expectObject(document.metadata, '/metadata');
  return {
    ...core,
    nativeId: expectString(document, 'nativeId', '', NATIVE_ID_GRAMMAR),
    metadataGeneration: optionalString(metadata, 'generation', '/metadata', COUNTER_GRAMMAR),
  };
}

/** The space a body names, when it names a valid one; used to scope idempotency records. */
export function requestedSpace(body: JsonValue | undefined): string | undefined {
  if (!isJsonObject(body) || !isJsonObject(body.metadata)) return undefined;
  const space = body.metadata.space;
  return typeof space === 'string' && isSpaceId(space) ? space : undefined;
}

function readCore(document: JsonObject): ResourceRequest {
  const apiVersion = expectString(document, 'apiVersion', '', FORM_GROUP_GRAMMAR);
  const kind = expectString(document, 'kind', '', FORM_KIND_GRAMMAR);
  const form = expectObject(document.form, '/form');
  expectMembers(form, '/form', ['formRef'], ['packageDigest']);
  const formRef = readFormRef(form.formRef, '/form/formRef');
  const packageDigest = optionalString(form, 'packageDigest', '/form', DIGEST_GRAMMAR);
  // The envelope identity restates the FormRef's; a disagreement is refused before any fence.
  if (apiVersion !== formRef.apiVersion) {
    throw invalidArgument('/apiVersion must equal /form/formRef/apiVersion', '/apiVersion', {
      otherPointer: '/form/formRef/apiVersion',
    });
  }
  if (kind !== formRef.kind) {
    throw invalidArgument('/kind must equal /form/formRef/kind', '/kind', { otherPointer: '/form/formRef/kind' });
  }
  const metadata = expectObject(document.metadata, '/metadata');
  // uid, generation and revision are allowed on requests but carry no meaning there: the fences
  // are the If-None-Match / generation / If-Match headers and the expectedUid member.
  expectMembers(metadata, '/metadata', ['name', 'space'], ['uid', 'generation', 'revision']);
  optionalString(metadata, 'uid', '/metadata', UID_GRAMMAR);
  optionalString(metadata, 'generation', '/metadata', COUNTER_GRAMMAR);
  optionalString(metadata, 'revision', '/metadata', COUNTER_GRAMMAR);
  return {
    formRef,
    packageDigest,
    name: expectString(metadata, 'name', '/metadata', NAME_GRAMMAR),
    space: expectString(metadata, 'space', '/metadata', SPACE_GRAMMAR),
    spec: expectObject(document.spec, '/spec'),
  };
}
