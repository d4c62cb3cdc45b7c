// What every route group shares: the transport, the discovered API root, and the small
// URL and response helpers that keep requests exact (one path segment per group, kind and
// name; exactly the three query keys on resource routes) and responses verified.
import { ConfigurationError, ProtocolViolationError } from './errors.js';
import { DIGEST_PATTERN, Reader } from './decode.js';
import { parseOrigin, sameOrigin } from './origin.js';
import { firstHeader, Transport, type ExchangeEvent, type HttpResponse } from './transport.js';
import type { FormRef, ResourceResponse } from './wire-types.js';
import { readFileSync } from 'node:fs';

export const API_VERSION = 'forms.takoform.com/v1';
const REQUIRED_FEATURES = [
  'service_forms',
  'exact_form_ref',
  'optimistic_concurrency',
  'idempotent_lifecycle',
  'operations',
  'artifact_upload',
  'support_profiles',
];

export interface HostClientOptions {
  /** Host origin, e.g. https://host.example or http://127.0.0.1:8080 (loopback only). */
  readonly endpoint: string;
  readonly token: string;
  readonly userAgent?: string;
  /** PEM file of extra CA certificates to trust for an https Host. */
  readonly caFile?: string;
  /** Maximum open connections to the Host (keep-alive pool). Default 8. */
  readonly connections?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  /** Largest response body accepted. Default 8 MiB. */
  readonly maxResponseBytes?: number;
  /** Attempts for retryable failures of safe requests. Default 3. */
  readonly maxAttempts?: number;
  /** Client-side rate limit in requests per second (burst of the same size). Default none. */
  readonly requestsPerSecond?: number;
  /** How long to wait for a 202 Operation to finish. Default 10 minutes. */
  readonly operationTimeoutMs?: number;
  /**
   * When aborted, every wait for an Operation ends at once (AcceptedOutcomeUnknownError with
   * `stopped`), so that a caller asked to stop records the Operation instead of waiting on.
   */
  readonly stopSignal?: AbortSignal;
  readonly onExchange?: (event: ExchangeEvent) => void;
}

export class HostConnection {
  readonly origin: URL;
  readonly transport: Transport;
  readonly operationTimeoutMs: number;
  readonly stopSignal: AbortSignal | undefined;
  private apiPath: Promise<string> | undefined;

  constructor(options: HostClientOptions) {
    this.origin = parseOrigin(options.endpoint);
    if (!options.token) throw new ConfigurationError('a bearer token is required');
    let ca: string | undefined;
    if (options.caFile) {
      try {
        ca = readFileSync(options.caFile, 'utf8');
      } catch (e) {
        throw new ConfigurationError(`cannot read the CA file ${options.caFile}: ${(e as Error).message}`);
      }
    }
    this.operationTimeoutMs = options.operationTimeoutMs ?? 10 * 60_000;
    this.stopSignal = options.stopSignal;
    this.transport = new Transport({
      origin: this.origin,
      token: options.token,
      userAgent: options.userAgent ?? 'takoform-host-client',
      connections: options.connections ?? 8,
      headersTimeoutMs: options.headersTimeoutMs ?? 30_000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 30_000,
      maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
      maxAttempts: options.maxAttempts ?? 3,
      ...(options.requestsPerSecond ? { requestsPerSecond: options.requestsPerSecond } : {}),
      ...(ca ? { ca } : {}),
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
    });
  }

  /** Discovery, validated exactly and cached for the life of the client. */
  api(): Promise<string> {
    this.apiPath ??= this.discover().catch((e: unknown) => {
      this.apiPath = undefined;
      throw e;
    });
    return this.apiPath;
  }

  private async discover(): Promise<string> {
    const route = 'discovery';
    const res = await this.transport.send({ route, method: 'GET', path: '/.well-known/takoform/v1', safeToRetry: true });
    expectStatus(route, res, [200]);
    const r = new Reader(route);
    const doc = r.object(res.body, 'discovery', ['api_versions', 'features', 'endpoints']);
    const versions = doc.api_versions;
    if (!Array.isArray(versions) || versions.length !== 1 || versions[0] !== API_VERSION) r.fail(`api_versions must be exactly ["${API_VERSION}"]`);
    const featureDoc = doc.features;
    const features = r.object(featureDoc, 'features', [], typeof featureDoc === 'object' && featureDoc !== null ? Object.keys(featureDoc) : []);
    for (const [name, value] of Object.entries(features)) if (typeof value !== 'boolean') r.fail(`features.${name} must be a boolean`);
    for (const f of REQUIRED_FEATURES) if (features[f] !== true) r.fail(`required feature ${f} is not advertised`);
    const endpoints = r.object(doc.endpoints, 'endpoints', ['api']);
    const api = r.string(endpoints.api, 'endpoints.api');
    if (!/^https?:\/\/[^/?#@]+\/apis\/forms\.takoform\.com\/v1$/.test(api) || api.includes('%'))
      r.fail(`endpoints.api ${JSON.stringify(api)} is not an allowed API root`);
    const apiUrl = new URL(api);
    if (!sameOrigin(apiUrl, this.origin))
      r.fail(`endpoints.api points at another origin (${apiUrl.origin}); the token is only ever sent to ${this.origin.origin}`);
    return apiUrl.pathname;
  }
}

export function seg(value: string): string {
  return encodeURIComponent(value);
}

export function exactQuery(ref: FormRef, space: string): string {
  return new URLSearchParams({ definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest, space }).toString();
}

export function resourcePath(api: string, ref: FormRef, name: string): string {
  return `${api}/resources/${seg(ref.apiVersion)}/${seg(ref.kind)}/${seg(name)}`;
}

export function expectStatus(route: string, res: HttpResponse, allowed: number[]): void {
  if (!allowed.includes(res.status)) throw new ProtocolViolationError(route, `unexpected HTTP ${res.status} (expected ${allowed.join(' or ')})`);
}

export function expectEmptyBody(route: string, res: HttpResponse): void {
  if (res.body !== undefined) throw new ProtocolViolationError(route, `HTTP ${res.status} must have an empty body`);
}

/** Exactly one strong ETag equal to the quoted revision (direct resource responses). */
export function checkEtag(route: string, res: HttpResponse, resource: ResourceResponse, required = true): void {
  const etag = res.headers.etag;
  if (Array.isArray(etag)) throw new ProtocolViolationError(route, 'more than one ETag header');
  if (etag === undefined && !required) return;
  if (firstHeader(etag) !== `"${resource.metadata.revision}"`) {
    throw new ProtocolViolationError(route, `ETag ${JSON.stringify(etag ?? null)} does not equal the quoted revision "${resource.metadata.revision}"`);
  }
}

export function pickRef(ref: FormRef): FormRef {
  return { apiVersion: ref.apiVersion, kind: ref.kind, definitionVersion: ref.definitionVersion, schemaDigest: ref.schemaDigest };
}

export { DIGEST_PATTERN };
