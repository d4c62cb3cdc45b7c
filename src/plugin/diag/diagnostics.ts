// Diagnostics: what users read. Every refusal travels as a diagnostic (never a gRPC error,
// which core shows as "Plugin error"), with the attribute path when one applies.

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
