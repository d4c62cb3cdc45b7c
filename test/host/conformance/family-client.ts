// A tiny fetch-based driver for the conformance suite: prepare + apply, import, read, delete of
// any Form of the external family, addressed by its exact FormRef from the frozen corpus.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API, EXTERNAL_FAMILY, exactQuery, type HostAnswer, type TestHost } from '../support/host-harness.js';

export interface FormRef {
  apiVersion: string;
  kind: string;
  definitionVersion: string;
  schemaDigest: string;
}

/** The exact FormRef of a package folder of the external family. */
export function refOf(packageFolder: string): FormRef {
  const index = JSON.parse(readFileSync(path.join(EXTERNAL_FAMILY, packageFolder, 'package-index.json'), 'utf8')) as { formRef: FormRef };
  return index.formRef;
}

export function ref(kind: string, apiVersion: string): { apiVersion: string; kind: string } {
  return { apiVersion, kind };
}

export class FamilyClient {
  constructor(
    private readonly subject: TestHost,
    private readonly token?: string,
    private readonly space = 'demo',
  ) {}

  body(form: FormRef, name: string, spec: unknown) {
    return { apiVersion: form.apiVersion, kind: form.kind, form: { formRef: form }, metadata: { name, space: this.space }, spec };
  }

  path(form: FormRef, name: string): string {
    return `${API}/resources/${form.apiVersion}/${form.kind}/${name}`;
  }

  prepare(form: FormRef, name: string, spec: unknown, generation?: string): Promise<HostAnswer> {
    return this.subject.call('POST', `${API}/resources/prepare`, {
      token: this.token,
      body: this.body(form, name, spec),
      headers: generation === undefined ? {} : { 'takoform-expected-generation': generation },
    });
  }

  /** prepare + apply; `generation` undefined = create. Returns the apply answer (or the refused prepare). */
  async apply(form: FormRef, name: string, spec: unknown, generation?: string, headers: Record<string, string> = {}): Promise<HostAnswer> {
    const prepared = await this.prepare(form, name, spec, generation);
    if (prepared.status !== 200) return prepared;
    const { resource, review } = prepared.json as { resource: { spec: unknown }; review: { prepareDigest: string } };
    return this.subject.call('PUT', this.path(form, name), {
      token: this.token,
      body: { ...this.body(form, name, resource.spec), review: { prepareDigest: review.prepareDigest } },
      headers: {
        'idempotency-key': `apply-${name}-${Math.random()}`,
        ...(generation === undefined ? { 'if-none-match': '*' } : { 'takoform-expected-generation': generation }),
        ...headers,
      },
    });
  }

  import(form: FormRef, name: string, spec: unknown, nativeId: string, generation?: string): Promise<HostAnswer> {
    return this.subject.call('POST', `${this.path(form, name)}/import`, {
      token: this.token,
      body: { ...this.body(form, name, spec), nativeId },
      headers: {
        'idempotency-key': `import-${name}-${Math.random()}`,
        ...(generation === undefined ? { 'if-none-match': '*' } : { 'takoform-expected-generation': generation }),
      },
    });
  }

  read(form: FormRef, name: string): Promise<HostAnswer> {
    return this.subject.call('GET', `${this.path(form, name)}?${exactQuery(form, this.space)}`, { token: this.token });
  }

  delete(form: FormRef, name: string, generation: string): Promise<HostAnswer> {
    return this.subject.call('DELETE', `${this.path(form, name)}?${exactQuery(form, this.space)}`, {
      token: this.token,
      headers: { 'idempotency-key': `delete-${name}-${Math.random()}`, 'takoform-expected-generation': generation },
    });
  }
}

export interface WireResource {
  metadata: { uid: string; generation: string; revision: string };
  spec: Record<string, unknown>;
  status: {
    observedGeneration: string;
    conditions: { type: string; status: string; reason: string; hostReason?: string }[];
    outputs?: Record<string, unknown>;
  };
}

export function resourceOf(answer: HostAnswer): WireResource {
  return answer.json as WireResource;
}

export function readyOf(answer: HostAnswer): { status: string; reason: string } | undefined {
  return resourceOf(answer).status.conditions.find((condition) => condition.type === 'Ready');
}

export function target(apiVersion: string, kind: string, name: string) {
  return { apiVersion, kind, name };
}
