// HostClient: the typed Host API v1 surface the provider (and anyone else) uses. It owns
// discovery, URL building (one path segment per group/kind/name, exactly the three query
// keys on resource routes), fences as explicit inputs, deterministic idempotency keys, and
// verification of every answer against what was asked.
import { canonicalJson, jcsDigest } from '../common/digest.js';
import { ConfigurationError, HostApiError, ProtocolViolationError } from './errors.js';
import { DIGEST_PATTERN, readResource, Reader } from './decode.js';
import { deriveIdempotencyKey } from './idempotency.js';
import { parseOrigin, sameOrigin } from './origin.js';
import { firstHeader, Transport, type ExchangeEvent, type HttpResponse } from './transport.js';
import type {
  DiscoveryDocument,
  FormAvailability,
  FormDefinitionResponse,
  FormRef,
  JsonObject,
  PrepareResult,
  ResourceAddress,
  ResourceRequest,
  ResourceResponse,
} from './wire-types.js';

export const API_VERSION = 'forms.takoform.com/v1';
const REQUIRED_FEATURES = ['service_forms', 'exact_form_ref', 'optimistic_concurrency', 'idempotent_lifecycle', 'operations', 'artifact_upload', 'support_profiles'];

export interface HostClientOptions {
  /** Host origin, e.g. https://host.example or http://127.0.0.1:8080 (loopback only). */
  readonly endpoint: string;
  readonly token: string;
  readonly userAgent?: string;
  readonly connections?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly maxAttempts?: number;
  readonly onExchange?: (event: ExchangeEvent) => void;
}

/** Fences for an apply: exactly one of create or update. */
export type ApplyFence =
  | { readonly kind: 'create' }
  | { readonly kind: 'update'; readonly expectedGeneration: string; readonly expectedUid: string; readonly ifMatchRevision?: string };

export interface ApplyResult {
  readonly outcome: 'created' | 'updated';
  readonly resource: ResourceResponse;
}

export class HostClient {
  private readonly origin: URL;
  private readonly transport: Transport;
  private apiPath: Promise<string> | undefined;

  constructor(options: HostClientOptions) {
    this.origin = parseOrigin(options.endpoint);
    if (!options.token) throw new ConfigurationError('a bearer token is required');
    this.transport = new Transport({
      origin: this.origin,
      token: options.token,
      userAgent: options.userAgent ?? 'takoform-host-client',
      connections: options.connections ?? 8,
      headersTimeoutMs: options.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
      maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
      maxAttempts: options.maxAttempts ?? 3,
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
    });
  }

  async close(): Promise<void> {
    await this.transport.close();
  }

  /** Discovery, validated exactly and cached for the life of the client. */
  async discover(): Promise<string> {
    this.apiPath ??= this.loadDiscovery().catch((e: unknown) => {
      this.apiPath = undefined;
      throw e;
    });
    return this.apiPath;
  }

  private async loadDiscovery(): Promise<string> {
    const route = 'discovery';
    const res = await this.transport.send({ route, method: 'GET', path: '/.well-known/takoform/v1', safeToRetry: true });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const doc = r.object(res.body, 'discovery', ['api_versions', 'features', 'endpoints']) as unknown as DiscoveryDocument;
    if (!Array.isArray(doc.api_versions) || doc.api_versions.length !== 1 || doc.api_versions[0] !== API_VERSION) {
      r.fail(`api_versions must be exactly ["${API_VERSION}"]`);
    }
    const features = r.object(doc.features, 'features', [], Object.keys(doc.features ?? {}));
    for (const f of REQUIRED_FEATURES) if (features[f] !== true) r.fail(`required feature ${f} is not advertised`);
    const endpoints = r.object(doc.endpoints, 'endpoints', ['api']);
    const api = r.string(endpoints.api, 'endpoints.api');
    if (!/^https?:\/\/[^/?#]+\/apis\/forms\.takoform\.com\/v1$/.test(api) || api.includes('%') || api.includes('@')) {
      r.fail(`endpoints.api ${JSON.stringify(api)} is not an allowed API root`);
    }
    const apiUrl = new URL(api);
    if (!sameOrigin(apiUrl, this.origin)) r.fail(`endpoints.api points at another origin (${apiUrl.origin}); the token is only sent to ${this.origin.origin}`);
    return apiUrl.pathname;
  }

  /** GET {api}/forms with optional filters; all five keys make it the exact probe. */
  async listForms(filter: { group?: string; kind?: string; definitionVersion?: string; schemaDigest?: string; space?: string } = {}): Promise<FormAvailability[]> {
    const route = 'forms';
    const api = await this.discover();
    const query = new URLSearchParams();
    for (const key of ['definitionVersion', 'group', 'kind', 'schemaDigest', 'space'] as const) {
      const v = filter[key];
      if (v !== undefined) query.set(key, v);
    }
    const res = await this.transport.send({ route, method: 'GET', path: `${api}/forms${query.size ? `?${query}` : ''}`, safeToRetry: true });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const body = r.object(res.body, 'forms response', ['forms']);
    const forms = Array.isArray(body.forms) ? (body.forms as unknown[]) : r.fail('forms must be an array');
    return forms.map((entry, i) => {
      const w = `forms[${i}]`;
      const o = r.object(entry, w, ['identity', 'definitionKnown', 'installed', 'executable', 'activated', 'availableToPrincipal', 'operations']);
      const identity = r.object(o.identity, `${w}.identity`, ['formRef'], ['packageDigest']);
      const operations = Array.isArray(o.operations) ? (o.operations as unknown[]) : r.fail(`${w}.operations must be an array`);
      return {
        identity: {
          formRef: r.formRef(identity.formRef, `${w}.identity.formRef`),
          ...(identity.packageDigest !== undefined ? { packageDigest: r.string(identity.packageDigest, `${w}.identity.packageDigest`, DIGEST_PATTERN) } : {}),
        },
        definitionKnown: r.boolean(o.definitionKnown, `${w}.definitionKnown`),
        installed: r.boolean(o.installed, `${w}.installed`),
        executable: r.boolean(o.executable, `${w}.executable`),
        activated: r.boolean(o.activated, `${w}.activated`),
        availableToPrincipal: r.boolean(o.availableToPrincipal, `${w}.availableToPrincipal`),
        operations: operations.map((op, j) => r.string(op, `${w}.operations[${j}]`)),
      };
    });
  }

  /** The exact availability probe: the entry for this FormRef, or undefined when the Host lacks it. */
  async probeForm(formRef: FormRef, space: string): Promise<FormAvailability | undefined> {
    try {
      const forms = await this.listForms({ group: formRef.apiVersion, kind: formRef.kind, definitionVersion: formRef.definitionVersion, schemaDigest: formRef.schemaDigest, space });
      if (forms.length > 1) throw new ProtocolViolationError('forms', 'the exact probe answered more than one entry');
      return forms[0];
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'form_unknown') return undefined; // ambiguity A5
      throw e;
    }
  }

  async getFormDefinition(formRef: FormRef, space: string): Promise<FormDefinitionResponse> {
    const route = 'form-definition';
    const api = await this.discover();
    const res = await this.transport.send({
      route,
      method: 'GET',
      path: `${api}/form-definitions/${seg(formRef.apiVersion)}/${seg(formRef.kind)}?${exactQuery(formRef, space)}`,
      safeToRetry: true,
    });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const o = r.object(res.body, 'form definition', ['identity', 'displayName', 'desiredSchema'], ['description']);
    const identity = r.object(o.identity, 'identity', ['formRef'], ['packageDigest']);
    const ref = r.formRef(identity.formRef, 'identity.formRef');
    if (canonicalJson(ref) !== canonicalJson(pickRef(formRef))) r.fail('identity.formRef differs from the requested exact FormRef');
    return {
      identity: { formRef: ref, ...(typeof identity.packageDigest === 'string' ? { packageDigest: identity.packageDigest } : {}) },
      displayName: r.string(o.displayName, 'displayName'),
      ...(o.description !== undefined ? { description: r.string(o.description, 'description') } : {}),
      desiredSchema: r.jsonObject(o.desiredSchema, 'desiredSchema'),
    };
  }

  /**
   * POST {api}/resources/prepare. `expectedGeneration` is required when the resource exists.
   * The Host's materialized spec is accepted (ambiguity A1) and verified only for internal
   * consistency: the echoed specDigest must be the JCS digest of the echoed spec.
   */
  async prepare(request: ResourceRequest, expectedGeneration?: string): Promise<PrepareResult> {
    const route = 'prepare';
    const api = await this.discover();
    const res = await this.transport.send({
      route,
      method: 'POST',
      path: `${api}/resources/prepare`,
      headers: expectedGeneration ? { 'takoform-expected-generation': expectedGeneration } : {},
      body: JSON.stringify(request),
      safeToRetry: true, // prepare mutates nothing
    });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const o = r.object(res.body, 'prepare response', ['resource', 'review']);
    const resource = r.object(o.resource, 'resource', ['apiVersion', 'kind', 'form', 'metadata', 'spec']);
    const form = r.object(resource.form, 'resource.form', ['formRef'], ['packageDigest']);
    const ref = r.formRef(form.formRef, 'resource.form.formRef');
    if (canonicalJson(ref) !== canonicalJson(pickRef(request.form.formRef))) r.fail('resource.form.formRef differs from the prepared FormRef');
    const meta = r.object(resource.metadata, 'resource.metadata', ['name', 'space'], ['uid', 'generation', 'revision']);
    if (meta.name !== request.metadata.name || meta.space !== request.metadata.space) r.fail('resource.metadata names another resource');
    if (resource.apiVersion !== request.apiVersion || resource.kind !== request.kind) r.fail('resource apiVersion/kind differ from the request');
    const spec = r.jsonObject(resource.spec, 'resource.spec');
    const review = r.object(o.review, 'review', ['prepareDigest', 'specDigest']);
    const prepareDigest = r.string(review.prepareDigest, 'review.prepareDigest', DIGEST_PATTERN);
    const specDigest = r.string(review.specDigest, 'review.specDigest', DIGEST_PATTERN);
    if (jcsDigest(spec) !== specDigest) r.fail('review.specDigest is not the canonical digest of the echoed spec');
    return { spec, prepareDigest, specDigest };
  }

  /** PUT {api}/resources/{group}/{kind}/{name}: the fenced, idempotent apply of a prepared spec. */
  async apply(request: ResourceRequest, review: { prepareDigest: string; specDigest: string }, fence: ApplyFence): Promise<ApplyResult> {
    const route = 'apply';
    const api = await this.discover();
    const ref = request.form.formRef;
    const body: Record<string, unknown> = { ...request, review: { prepareDigest: review.prepareDigest, specDigest: review.specDigest } };
    const headers: Record<string, string> = {};
    if (fence.kind === 'create') headers['if-none-match'] = '*';
    else {
      headers['takoform-expected-generation'] = fence.expectedGeneration;
      body.expectedUid = fence.expectedUid;
      body.expectedGeneration = fence.expectedGeneration;
      if (fence.ifMatchRevision) headers['if-match'] = `"${fence.ifMatchRevision}"`;
    }
    const bodyText = JSON.stringify(body);
    headers['idempotency-key'] = deriveIdempotencyKey({
      operation: 'apply',
      formRef: ref,
      space: request.metadata.space,
      name: request.metadata.name,
      uid: fence.kind === 'update' ? fence.expectedUid : '',
      expectedGeneration: fence.kind === 'update' ? fence.expectedGeneration : '',
      body: bodyText,
    });
    const res = await this.transport.send({
      route,
      method: 'PUT',
      path: `${api}/resources/${seg(ref.apiVersion)}/${seg(ref.kind)}/${seg(request.metadata.name)}`,
      headers,
      body: bodyText,
      safeToRetry: true, // carries an Idempotency-Key
    });
    expectStatus(route, res, fence.kind === 'create' ? [201] : [200]);
    const resource = readResource(new Reader(route), res.body, { formRef: ref, space: request.metadata.space, name: request.metadata.name });
    checkEtag(route, res, resource);
    if (fence.kind === 'update' && resource.metadata.uid !== fence.expectedUid) {
      throw new ProtocolViolationError(route, `the Host updated another incarnation (${resource.metadata.uid}, expected ${fence.expectedUid})`);
    }
    return { outcome: res.status === 201 ? 'created' : 'updated', resource };
  }

  /** GET the resource; undefined when the Host says resource_not_found. */
  async read(address: ResourceAddress): Promise<ResourceResponse | undefined> {
    const route = 'read';
    const api = await this.discover();
    const ref = address.formRef;
    let res: HttpResponse;
    try {
      res = await this.transport.send({
        route,
        method: 'GET',
        path: `${api}/resources/${seg(ref.apiVersion)}/${seg(ref.kind)}/${seg(address.name)}?${exactQuery(ref, address.space)}`,
        safeToRetry: true,
      });
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'resource_not_found') return undefined;
      throw e;
    }
    expectStatus(route, res, [200]);
    const resource = readResource(new Reader(route), res.body, address);
    checkEtag(route, res, resource);
    return resource;
  }

  /** DELETE with the generation fence; "absent" when the Host no longer has it. */
  async delete(address: ResourceAddress, fence: { expectedGeneration: string; uid: string; ifMatchRevision?: string }): Promise<'deleted' | 'absent'> {
    const route = 'delete';
    const api = await this.discover();
    const ref = address.formRef;
    const headers: Record<string, string> = {
      'takoform-expected-generation': fence.expectedGeneration,
      'idempotency-key': deriveIdempotencyKey({
        operation: 'delete',
        formRef: ref,
        space: address.space,
        name: address.name,
        uid: fence.uid,
        expectedGeneration: fence.expectedGeneration,
        body: '',
      }),
    };
    if (fence.ifMatchRevision) headers['if-match'] = `"${fence.ifMatchRevision}"`;
    try {
      const res = await this.transport.send({
        route,
        method: 'DELETE',
        path: `${api}/resources/${seg(ref.apiVersion)}/${seg(ref.kind)}/${seg(address.name)}?${exactQuery(ref, address.space)}`,
        headers,
        safeToRetry: true,
      });
      expectStatus(route, res, [204]);
      if (res.body !== undefined) throw new ProtocolViolationError(route, '204 must have an empty body');
      return 'deleted';
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'resource_not_found') return 'absent';
      throw e;
    }
  }
}

/** Builds the request document for a resource; `spec` is sent as given. */
export function resourceRequest(formRef: FormRef, space: string, name: string, spec: JsonObject): ResourceRequest {
  return { apiVersion: formRef.apiVersion, kind: formRef.kind, form: { formRef: pickRef(formRef) }, metadata: { name, space }, spec };
}

function pickRef(ref: FormRef): FormRef {
  return { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest };
}

function seg(value: string): string {
  return encodeURIComponent(value);
}

function exactQuery(ref: FormRef, space: string): string {
  return new URLSearchParams({ definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest, space }).toString();
}

function expectStatus(route: string, res: HttpResponse, allowed: number[]): void {
  if (!allowed.includes(res.status)) throw new ProtocolViolationError(route, `unexpected HTTP ${res.status} (expected ${allowed.join(' or ')})`);
}

function checkEtag(route: string, res: HttpResponse, resource: ResourceResponse): void {
  const etag = res.headers.etag;
  if (Array.isArray(etag)) throw new ProtocolViolationError(route, 'more than one ETag header');
  if (firstHeader(etag) !== `"${resource.metadata.revision}"`) {
    throw new ProtocolViolationError(route, `ETag ${JSON.stringify(etag ?? null)} does not equal the quoted revision "${resource.metadata.revision}"`);
  }
}
