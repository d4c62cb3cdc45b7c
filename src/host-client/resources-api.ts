// Resource routes: validate, prepare, apply, read, observe, import, delete. Fences are
// explicit inputs; Idempotency-Keys are derived per attempt (idempotency.ts), so a retried or
// resumed request of one attempt replays instead of acting twice while no other caller's
// request ever replays its outcome; and every answer is checked against what was asked:
// same exact FormRef, name and space, canonical counters, ETag = quoted revision.
import { canonicalJson, jcsDigest } from '../common/digest.js';
import { HostApiError, ProtocolViolationError } from './errors.js';
import { DIGEST_PATTERN, readResource, Reader } from './decode.js';
import { checkEtag, exactQuery, expectEmptyBody, expectStatus, pickRef, resourcePath, type HostConnection } from './connection.js';
import { deriveIdempotencyKey, newAttemptId } from './idempotency.js';
import { readAccepted, type OperationsApi } from './operations-api.js';
import { firstHeader, parseRetryAfter, type HttpRequest, type HttpResponse } from './transport.js';
import { randomBytes } from 'node:crypto';
import type { FormRef, JsonObject, PrepareResult, ResourceAddress, ResourceRequest, ResourceResponse } from './wire-types.js';

/** Fences for an apply: exactly one of create or update. */
export type ApplyFence =
  | { readonly kind: 'create' }
  | { readonly kind: 'update'; readonly expectedGeneration: string; readonly expectedUid: string; readonly ifMatchRevision?: string };

/** Fences for an import: a new adoption, or an existing resource at a known generation. */
export type ImportFence = { readonly kind: 'new' } | { readonly kind: 'existing'; readonly expectedGeneration: string; readonly uid: string };

export interface MutationResult {
  readonly outcome: 'created' | 'updated';
  readonly resource: ResourceResponse;
  /** Set when the Host answered 202 and the Operation was followed to its end. */
  readonly operationId?: string;
}

/** Per-call options of mutations. */
export interface MutationOptions {
  /** How long to follow a 202 Operation (default: the client's operationTimeoutMs). */
  readonly operationTimeoutMs?: number;
  /**
   * The attempt this mutation belongs to (newAttemptId()). Given only to resume an attempt
   * that an earlier process sent; by default every call is a fresh attempt, whose automatic
   * retries reuse its key.
   */
  readonly attempt?: string;
}

export interface ValidationResult {
  readonly valid: boolean;
  readonly diagnostics: readonly { severity: 'error' | 'warning'; field?: string; message: string }[];
}

export class ResourcesApi {
  constructor(
    private readonly conn: HostConnection,
    private readonly operations: OperationsApi,
  ) {}

  /** POST {api}/resources/validate: diagnostics, never a mutation. */
  async validate(request: ResourceRequest): Promise<ValidationResult> {
    const route = 'validate';
    const api = await this.conn.api();
    const res = await this.conn.transport.send({ route, method: 'POST', path: `${api}/resources/validate`, body: JSON.stringify(request), safeToRetry: true });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const o = r.object(res.body, 'validate response', ['valid', 'diagnostics']);
    const diags = Array.isArray(o.diagnostics) ? (o.diagnostics as unknown[]) : r.fail('diagnostics must be an array');
    return {
      valid: r.boolean(o.valid, 'valid'),
      diagnostics: diags.map((d, i) => {
        const w = `diagnostics[${i}]`;
        const x = r.object(d, w, ['severity', 'message'], ['field']);
        const severity = x.severity === 'error' || x.severity === 'warning' ? x.severity : r.fail(`${w}.severity must be error or warning`);
        return { severity, message: r.string(x.message, `${w}.message`), ...(x.field !== undefined ? { field: r.string(x.field, `${w}.field`) } : {}) };
      }),
    };
  }

  /**
   * POST {api}/resources/prepare. `expectedGeneration` is required when the resource exists.
   * The Host's materialized spec is accepted (ambiguity A1) and checked for consistency:
   * same identity, and the echoed specDigest is the JCS digest of the echoed spec.
   */
  async prepare(request: ResourceRequest, expectedGeneration?: string): Promise<PrepareResult> {
    const route = 'prepare';
    const api = await this.conn.api();
    const res = await this.conn.transport.send({
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
    const changed = firstChange(request.spec, spec, '');
    if (changed !== undefined) r.fail(`the echoed spec changes ${changed || '/'}, which was sent; a Host may only add defaults`);
    const review = r.object(o.review, 'review', ['prepareDigest', 'specDigest']);
    const prepareDigest = r.string(review.prepareDigest, 'review.prepareDigest', DIGEST_PATTERN);
    const specDigest = r.string(review.specDigest, 'review.specDigest', DIGEST_PATTERN);
    if (jcsDigest(spec) !== specDigest) r.fail('review.specDigest is not the canonical digest of the echoed spec');
    return { spec, prepareDigest, specDigest };
  }

  /** PUT {api}/resources/{group}/{kind}/{name}: the fenced, idempotent apply of a prepared spec. */
  async apply(
    request: ResourceRequest,
    review: { prepareDigest: string; specDigest: string },
    fence: ApplyFence,
    options: MutationOptions = {},
  ): Promise<MutationResult> {
    const route = 'apply';
    const api = await this.conn.api();
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
    const uid = fence.kind === 'update' ? fence.expectedUid : '';
    headers['idempotency-key'] = deriveIdempotencyKey({
      operation: 'apply',
      formRef: ref,
      space: request.metadata.space,
      name: request.metadata.name,
      uid,
      expectedGeneration: fence.kind === 'update' ? fence.expectedGeneration : '',
      body: bodyText,
      attempt: options.attempt ?? newAttemptId(),
    });
    const res = await this.sendKeyed(
      { route, method: 'PUT', path: resourcePath(api, ref, request.metadata.name), headers, body: bodyText, safeToRetry: true },
      options.attempt !== undefined,
    );
    const address = { formRef: ref, space: request.metadata.space, name: request.metadata.name };
    const result = await this.mutationResult(route, res, address, fence.kind === 'create' ? [201] : [200], uid || undefined, options);
    if (fence.kind === 'update' && result.resource.metadata.uid !== fence.expectedUid) {
      throw new ProtocolViolationError(route, `the Host updated another incarnation (${result.resource.metadata.uid}, expected ${fence.expectedUid})`);
    }
    return result;
  }

  /** POST .../import: adopt the Host-native object `nativeId` under this name (no prepare). */
  async import(request: ResourceRequest, nativeId: string, fence: ImportFence, options: MutationOptions = {}): Promise<MutationResult> {
    const route = 'import';
    const api = await this.conn.api();
    const ref = request.form.formRef;
    const bodyText = JSON.stringify({ ...request, nativeId });
    const headers: Record<string, string> = fence.kind === 'new' ? { 'if-none-match': '*' } : { 'takoform-expected-generation': fence.expectedGeneration };
    const uid = fence.kind === 'existing' ? fence.uid : '';
    headers['idempotency-key'] = deriveIdempotencyKey({
      operation: 'import',
      formRef: ref,
      space: request.metadata.space,
      name: request.metadata.name,
      uid,
      expectedGeneration: fence.kind === 'existing' ? fence.expectedGeneration : '',
      body: bodyText,
      attempt: options.attempt ?? newAttemptId(),
    });
    const res = await this.sendKeyed(
      { route, method: 'POST', path: `${resourcePath(api, ref, request.metadata.name)}/import`, headers, body: bodyText, safeToRetry: true },
      options.attempt !== undefined,
    );
    return this.mutationResult(route, res, { formRef: ref, space: request.metadata.space, name: request.metadata.name }, [200, 201], uid || undefined, options);
  }

  /** GET the resource; undefined when the Host says resource_not_found. */
  async read(address: ResourceAddress): Promise<ResourceResponse | undefined> {
    const route = 'read';
    const api = await this.conn.api();
    let res: HttpResponse;
    try {
      res = await this.conn.transport.send({
        route,
        method: 'GET',
        path: `${resourcePath(api, address.formRef, address.name)}?${exactQuery(address.formRef, address.space)}`,
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

  /** POST .../observe: refresh Host-observed state at a known generation. Never replayed. */
  async observe(address: ResourceAddress, expectedGeneration: string): Promise<ResourceResponse> {
    const route = 'observe';
    const api = await this.conn.api();
    const res = await this.conn.transport.send({
      route,
      method: 'POST',
      path: `${resourcePath(api, address.formRef, address.name)}/observe?${exactQuery(address.formRef, address.space)}`,
      headers: { 'takoform-expected-generation': expectedGeneration },
      safeToRetry: true, // observe changes no desired state
    });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const envelope = r.object(res.body, 'observe response', ['resource']);
    const resource = readResource(r, envelope.resource, address);
    if (resource.metadata.generation !== expectedGeneration)
      r.fail(`observed generation ${resource.metadata.generation} differs from the fence ${expectedGeneration}`);
    checkEtag(route, res, resource, false);
    return resource;
  }

  /** DELETE with the generation fence; "absent" when the Host no longer has it. */
  async delete(
    address: ResourceAddress,
    fence: { expectedGeneration: string; uid: string; ifMatchRevision?: string },
    options: MutationOptions = {},
  ): Promise<'deleted' | 'absent'> {
    const route = 'delete';
    const api = await this.conn.api();
    const headers: Record<string, string> = {
      'takoform-expected-generation': fence.expectedGeneration,
      'idempotency-key': deriveIdempotencyKey({
        operation: 'delete',
        formRef: address.formRef,
        space: address.space,
        name: address.name,
        uid: fence.uid,
        expectedGeneration: fence.expectedGeneration,
        body: '',
        attempt: options.attempt ?? newAttemptId(),
      }),
    };
    if (fence.ifMatchRevision) headers['if-match'] = `"${fence.ifMatchRevision}"`;
    try {
      const res = await this.sendKeyed(
        {
          route,
          method: 'DELETE',
          path: `${resourcePath(api, address.formRef, address.name)}?${exactQuery(address.formRef, address.space)}`,
          headers,
          safeToRetry: true,
        },
        options.attempt !== undefined,
      );
      expectStatus(route, res, [202, 204]);
      if (res.status === 202) {
        // The content of a delete Operation's result is unspecified (A4); only its end matters.
        await this.operations.waitForResult(
          route,
          readAccepted(route, res.body),
          parseRetryAfter(firstHeader(res.headers['retry-after'])),
          fence.uid,
          options.operationTimeoutMs,
        );
        return 'deleted';
      }
      expectEmptyBody(route, res);
      return 'deleted';
    } catch (e) {
      if (e instanceof HostApiError && e.code === 'resource_not_found') return 'absent';
      throw e;
    }
  }

  /**
   * Sends a mutation under its attempt's Idempotency-Key. The key lets a retried or resumed
   * request replay an outcome that was lost; but a Host replays recorded refusals too, byte
   * for byte, so a refusal under a resumed key may be an old verdict (say, a dependency that
   * has since gone). A refusal means nothing was mutated, so it is safe to ask once more
   * under a fresh key and take that answer as the current one. A fresh attempt's refusal is
   * current already and is not asked again.
   */
  private async sendKeyed(req: HttpRequest, resumed: boolean): Promise<HttpResponse> {
    try {
      return await this.conn.transport.send(req);
    } catch (e) {
      if (!resumed || !(e instanceof HostApiError) || e.retryable || e.status < 400 || e.status >= 500) throw e;
      const fresh = `${req.headers!['idempotency-key']}-${randomBytes(8).toString('hex')}`;
      return this.conn.transport.send({ ...req, headers: { ...req.headers, 'idempotency-key': fresh } });
    }
  }

  private async mutationResult(
    route: string,
    res: HttpResponse,
    address: ResourceAddress,
    direct: number[],
    uid: string | undefined,
    options: MutationOptions,
  ): Promise<MutationResult> {
    expectStatus(route, res, [...direct, 202]);
    if (res.status === 202) {
      const accepted = readAccepted(route, res.body);
      const result = await this.operations.waitForResult(
        route,
        accepted,
        parseRetryAfter(firstHeader(res.headers['retry-after'])),
        uid,
        options.operationTimeoutMs,
      );
      const r = new Reader('operation');
      const resource = readResource(r, r.object(result, 'operation.result', ['resource']).resource, address, 'operation.result.resource');
      return { outcome: uid ? 'updated' : 'created', resource, operationId: accepted.id };
    }
    const resource = readResource(new Reader(route), res.body, address);
    checkEtag(route, res, resource);
    return { outcome: res.status === 201 ? 'created' : 'updated', resource };
  }
}

/**
 * The materialized echo may add defaulted members (ambiguity A1) but must keep every value
 * that was sent. Returns the JSON Pointer of the first sent value the echo changed.
 */
function firstChange(sent: unknown, echoed: unknown, pointer: string): string | undefined {
  if (Array.isArray(sent)) {
    if (!Array.isArray(echoed) || echoed.length !== sent.length) return pointer;
    for (let i = 0; i < sent.length; i++) {
      const c = firstChange(sent[i], echoed[i], `${pointer}/${i}`);
      if (c !== undefined) return c;
    }
    return undefined;
  }
  if (typeof sent === 'object' && sent !== null) {
    if (typeof echoed !== 'object' || echoed === null || Array.isArray(echoed)) return pointer;
    for (const [k, v] of Object.entries(sent)) {
      const c = firstChange(v, (echoed as Record<string, unknown>)[k], `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (c !== undefined) return c;
    }
    return undefined;
  }
  return sent === echoed ? undefined : pointer;
}

/** Builds the request document for a resource; `spec` is sent as given. */
export function resourceRequest(formRef: FormRef, space: string, name: string, spec: JsonObject): ResourceRequest {
  return { apiVersion: formRef.apiVersion, kind: formRef.kind, form: { formRef: pickRef(formRef) }, metadata: { name, space }, spec };
}
