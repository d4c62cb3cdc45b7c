// Host API v1 wire shapes (wire reference §4, §6.1, §8, §11, §16). These are the JSON
// documents exactly as they travel; the client validates responses against them.

export interface FormRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly definitionVersion: string;
  readonly schemaDigest: string;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ResourceAddress {
  readonly formRef: FormRef;
  readonly space: string;
  readonly name: string;
}

export interface ResourceRequest {
  apiVersion: string;
  kind: string;
  form: { formRef: FormRef; packageDigest?: string };
  metadata: { name: string; space: string };
  spec: JsonObject;
}

export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly lastTransitionTime: string;
  readonly message?: string;
  readonly hostReason?: string;
}

export interface ResourceResponse {
  readonly apiVersion: string;
  readonly kind: string;
  readonly form: { readonly formRef: FormRef; readonly packageDigest?: string };
  readonly metadata: { readonly name: string; readonly space: string; readonly uid: string; readonly generation: string; readonly revision: string };
  readonly spec: JsonObject;
  readonly status: { readonly observedGeneration: string; readonly conditions: readonly Condition[]; readonly outputs?: JsonObject };
}

export interface PrepareResult {
  /** The Host's materialized spec (defaults filled in), which the caller must accept. */
  readonly spec: JsonObject;
  readonly prepareDigest: string;
  readonly specDigest: string;
}

export interface FormAvailability {
  readonly identity: { readonly formRef: FormRef; readonly packageDigest?: string };
  readonly definitionKnown: boolean;
  readonly installed: boolean;
  readonly executable: boolean;
  readonly activated: boolean;
  readonly availableToPrincipal: boolean;
  readonly operations: readonly string[];
}

export interface FormDefinitionResponse {
  readonly identity: { readonly formRef: FormRef; readonly packageDigest?: string };
  readonly displayName: string;
  readonly description?: string;
  readonly desiredSchema: JsonObject;
}

export interface DiscoveryDocument {
  readonly api_versions: readonly string[];
  readonly features: Readonly<Record<string, boolean>>;
  readonly endpoints: { readonly api: string };
}

export function sameFormRef(a: FormRef, b: FormRef): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.definitionVersion === b.definitionVersion && a.schemaDigest === b.schemaDigest;
}

export function formatFormRef(ref: FormRef): string {
  return `${ref.apiVersion}/${ref.kind}@${ref.definitionVersion} (${ref.schemaDigest})`;
}
