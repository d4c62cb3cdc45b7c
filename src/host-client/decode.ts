// Strict readers for Host responses. Every envelope in v1 is closed: an unknown member, a
// `null` where a value belongs, or a non-canonical counter makes the whole response
// protocol-invalid (wire reference §2.4, §8.2, §9). Each reader throws ProtocolViolationError
// naming the route and the member at fault.
import { ProtocolViolationError } from './errors.js';
import type { Condition, FormRef, JsonObject, ResourceResponse } from './wire-types.js';

export const NAME_PATTERN = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
export const UID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const COUNTER_PATTERN = /^[1-9][0-9]{0,18}$/;
export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const MAX_COUNTER = 9223372036854775807n;

export class Reader {
  constructor(readonly route: string) {}

  fail(detail: string): never {
    throw new ProtocolViolationError(this.route, detail);
  }

  object(value: unknown, where: string, required: readonly string[], optional: readonly string[] = []): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(`${where} must be an object`);
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (!required.includes(key) && !optional.includes(key)) this.fail(`${where} has an unknown member ${JSON.stringify(key)}`);
      if (obj[key] === null) this.fail(`${where}.${key} is null`);
    }
    for (const key of required) if (!(key in obj)) this.fail(`${where} lacks the required member ${JSON.stringify(key)}`);
    return obj;
  }

  string(value: unknown, where: string, pattern?: RegExp): string {
    if (typeof value !== 'string' || value.length === 0) this.fail(`${where} must be a non-empty string`);
    if (pattern && !pattern.test(value)) this.fail(`${where} ${JSON.stringify(value)} does not match ${pattern}`);
    return value;
  }

  boolean(value: unknown, where: string): boolean {
    if (typeof value !== 'boolean') this.fail(`${where} must be a boolean`);
    return value;
  }

  counter(value: unknown, where: string): string {
    const text = this.string(value, where, COUNTER_PATTERN);
    if (BigInt(text) > MAX_COUNTER) this.fail(`${where} exceeds the counter range`);
    return text;
  }

  formRef(value: unknown, where: string): FormRef {
    const o = this.object(value, where, ['apiVersion', 'kind', 'definitionVersion', 'schemaDigest']);
    return {
      apiVersion: this.string(o.apiVersion, `${where}.apiVersion`),
      kind: this.string(o.kind, `${where}.kind`),
      definitionVersion: this.string(o.definitionVersion, `${where}.definitionVersion`),
      schemaDigest: this.string(o.schemaDigest, `${where}.schemaDigest`, DIGEST_PATTERN),
    };
  }

  jsonObject(value: unknown, where: string): JsonObject {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(`${where} must be an object`);
    return value as JsonObject;
  }
}

// The v1 condition matrix (wire reference §9): which reasons each type may carry.
const CONDITION_REASONS: Record<string, readonly string[]> = {
  Ready: ['Available', 'Provisioning', 'UnsupportedCapability', 'ExternalChange', 'DependencyMissing'],
  Reconciling: ['Provisioning'],
  Degraded: ['ExternalChange', 'DependencyMissing'],
  Drifted: ['ExternalChange'],
  Blocked: ['UnsupportedCapability', 'DependencyMissing'],
  Deleting: ['Provisioning'],
};
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export function readConditions(r: Reader, value: unknown, where: string): Condition[] {
  if (!Array.isArray(value) || value.length > 16) r.fail(`${where} must be an array of at most 16 conditions`);
  const seen = new Set<string>();
  const out = value.map((c, i) => {
    const w = `${where}[${i}]`;
    const o = r.object(c, w, ['type', 'status', 'reason', 'lastTransitionTime'], ['message', 'hostReason']);
    const type = r.string(o.type, `${w}.type`);
    const allowed = CONDITION_REASONS[type];
    if (!allowed) r.fail(`${w}.type ${JSON.stringify(type)} is not a v1 condition type`);
    if (seen.has(type)) r.fail(`${where} repeats the condition type ${type}`);
    seen.add(type);
    const status = r.string(o.status, `${w}.status`);
    if (status !== 'True' && status !== 'False' && status !== 'Unknown') r.fail(`${w}.status must be True, False or Unknown`);
    const reason = r.string(o.reason, `${w}.reason`);
    if (!allowed.includes(reason)) r.fail(`${w}.reason ${reason} is not allowed for ${type}`);
    const condition: Condition = {
      type,
      status,
      reason,
      lastTransitionTime: r.string(o.lastTransitionTime, `${w}.lastTransitionTime`, RFC3339),
      ...(o.message !== undefined ? { message: typeof o.message === 'string' ? o.message : r.fail(`${w}.message must be a string`) } : {}),
      ...(o.hostReason !== undefined ? { hostReason: r.string(o.hostReason, `${w}.hostReason`) } : {}),
    };
    return condition;
  });
  if (!seen.has('Ready')) r.fail(`${where} has no Ready condition`);
  return out;
}

/** Reads a resourceResponse and checks it describes exactly the addressed resource. */
export function readResource(r: Reader, value: unknown, expect: { formRef: FormRef; space: string; name: string }, where = 'resource'): ResourceResponse {
  const o = r.object(value, where, ['apiVersion', 'kind', 'form', 'metadata', 'spec', 'status']);
  const form = r.object(o.form, `${where}.form`, ['formRef'], ['packageDigest']);
  const formRef = r.formRef(form.formRef, `${where}.form.formRef`);
  const m = r.object(o.metadata, `${where}.metadata`, ['name', 'space', 'uid', 'generation', 'revision']);
  const s = r.object(o.status, `${where}.status`, ['observedGeneration', 'conditions'], ['outputs']);
  const resource: ResourceResponse = {
    apiVersion: r.string(o.apiVersion, `${where}.apiVersion`),
    kind: r.string(o.kind, `${where}.kind`),
    form: {
      formRef,
      ...(form.packageDigest !== undefined ? { packageDigest: r.string(form.packageDigest, `${where}.form.packageDigest`, DIGEST_PATTERN) } : {}),
    },
    metadata: {
      name: r.string(m.name, `${where}.metadata.name`, NAME_PATTERN),
      space: r.string(m.space, `${where}.metadata.space`),
      uid: r.string(m.uid, `${where}.metadata.uid`, UID_PATTERN),
      generation: r.counter(m.generation, `${where}.metadata.generation`),
      revision: r.counter(m.revision, `${where}.metadata.revision`),
    },
    spec: r.jsonObject(o.spec, `${where}.spec`),
    status: {
      observedGeneration: r.counter(s.observedGeneration, `${where}.status.observedGeneration`),
      conditions: readConditions(r, s.conditions, `${where}.status.conditions`),
      ...(s.outputs !== undefined ? { outputs: r.jsonObject(s.outputs, `${where}.status.outputs`) } : {}),
    },
  };
  const ref = resource.form.formRef;
  const e = expect.formRef;
  if (ref.apiVersion !== e.apiVersion || ref.kind !== e.kind || ref.definitionVersion !== e.definitionVersion || ref.schemaDigest !== e.schemaDigest) {
    r.fail(`${where} is recorded under another exact FormRef (${ref.apiVersion}/${ref.kind}@${ref.definitionVersion} ${ref.schemaDigest})`);
  }
  if (resource.apiVersion !== e.apiVersion || resource.kind !== e.kind) r.fail(`${where} apiVersion/kind differ from the FormRef`);
  if (resource.metadata.name !== expect.name || resource.metadata.space !== expect.space)
    r.fail(`${where} names another resource (${resource.metadata.space}/${resource.metadata.name})`);
  return resource;
}

export const OPERATION_ID_PATTERN = /^op_[A-Za-z0-9][A-Za-z0-9._-]{0,124}$/;

export interface OperationDocument {
  readonly id: string;
  readonly done: boolean;
  readonly target?: { readonly uid?: string; readonly manifestDigest?: string };
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: string; readonly message: string; readonly requestId: string; readonly hostCode?: string };
}

/** Reads an Operation document (bare, or the inner object of an operationEnvelope). */
export function readOperation(r: Reader, value: unknown, where = 'operation'): OperationDocument {
  const o = r.object(value, where, ['apiVersion', 'kind', 'id', 'done'], ['target', 'metadata', 'result', 'error']);
  if (o.apiVersion !== 'operations.takoform.com/v1alpha1' || o.kind !== 'Operation') r.fail(`${where} must be an operations.takoform.com/v1alpha1 Operation`);
  const id = r.string(o.id, `${where}.id`, OPERATION_ID_PATTERN);
  const done = r.boolean(o.done, `${where}.done`);
  if (!done && (o.result !== undefined || o.error !== undefined)) r.fail(`${where} is pending but carries a result or error`);
  if (done && (o.result === undefined) === (o.error === undefined)) r.fail(`${where} is done and must carry exactly one of result and error`);
  let target: OperationDocument['target'];
  if (o.target !== undefined) {
    const t = r.object(o.target, `${where}.target`, [], ['uid', 'manifestDigest']);
    target = {
      ...(t.uid !== undefined ? { uid: r.string(t.uid, `${where}.target.uid`, UID_PATTERN) } : {}),
      ...(t.manifestDigest !== undefined ? { manifestDigest: r.string(t.manifestDigest, `${where}.target.manifestDigest`, DIGEST_PATTERN) } : {}),
    };
  }
  if (o.metadata !== undefined) {
    const m = r.object(o.metadata, `${where}.metadata`, [], ['phase', 'progress']);
    if (m.phase !== undefined) r.string(m.phase, `${where}.metadata.phase`, /^[A-Z][A-Za-z0-9]{0,63}$/);
    if (m.progress !== undefined && !(Number.isInteger(m.progress) && (m.progress as number) >= 0 && (m.progress as number) <= 100))
      r.fail(`${where}.metadata.progress must be 0..100`);
  }
  let error: OperationDocument['error'];
  if (o.error !== undefined) {
    const e = r.object(o.error, `${where}.error`, ['code', 'message', 'requestId', 'retryable'], ['hostCode']);
    if (e.retryable !== false) r.fail(`${where}.error.retryable must be false in a terminal Operation`);
    error = {
      code: r.string(e.code, `${where}.error.code`),
      message: r.string(e.message, `${where}.error.message`),
      requestId: r.string(e.requestId, `${where}.error.requestId`),
      ...(e.hostCode !== undefined ? { hostCode: r.string(e.hostCode, `${where}.error.hostCode`) } : {}),
    };
  }
  return {
    id,
    done,
    ...(target ? { target } : {}),
    ...(o.result !== undefined ? { result: r.object(o.result, `${where}.result`, [], Object.keys(o.result as object)) } : {}),
    ...(error ? { error } : {}),
  };
}
