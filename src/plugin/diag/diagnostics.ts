// Diagnostics: what users read. Every refusal travels as a diagnostic (never a gRPC error,
// which core shows as "Plugin error"), with the attribute path when one applies.
import type { Diagnostic as ProtoDiagnostic } from '../generated/types/tfplugin6/Diagnostic.js';
import type { AttributePath as ProtoAttributePath } from '../generated/types/tfplugin6/AttributePath.js';

/** Attribute path steps: a string is an attribute name, a number a list index. */
export type PathStep = string | number | { readonly key: string };
export type AttributePath = readonly PathStep[];

export interface Diagnostic {
  readonly severity: 'error' | 'warning';
  readonly summary: string;
  readonly detail: string;
  readonly path?: AttributePath;
}

export const errorDiag = (summary: string, detail: string, path?: AttributePath): Diagnostic => ({ severity: 'error', summary, detail, ...(path ? { path } : {}) });
export const warningDiag = (summary: string, detail: string, path?: AttributePath): Diagnostic => ({ severity: 'warning', summary, detail, ...(path ? { path } : {}) });

export function hasError(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

export function toProtoPath(path: AttributePath): ProtoAttributePath {
  return {
    steps: path.map((step) =>
      typeof step === 'string' ? { attribute_name: step } : typeof step === 'number' ? { element_key_int: String(step) } : { element_key_string: step.key },
    ),
  };
}

export function toProtoDiagnostics(diags: readonly Diagnostic[]): ProtoDiagnostic[] {
  return diags.map((d) => ({
    severity: d.severity === 'error' ? 'ERROR' : 'WARNING',
    summary: toValidText(d.summary),
    detail: toValidText(d.detail),
    ...(d.path && d.path.length ? { attribute: toProtoPath(d.path) } : {}),
  }));
}

/** Protobuf strings must be valid UTF-8; replace lone surrogates rather than fail the RPC. */
function toValidText(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}
