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

export const errorDiag = (summary: string, detail: string, path?: AttributePath): Diagnostic => ({
  severity: 'error',
  summary,
  detail,
  ...(path ? { path } : {}),
});
export const warningDiag = (summary: string, detail: string, path?: AttributePath): Diagnostic => ({
  severity: 'warning',
  summary,
  detail,
  ...(path ? { path } : {}),
});

export function hasError(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

/** An attribute path as written in HCL: `external_services[0].name`, `tags["env"]`. */
export function hclPath(path: AttributePath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'string') out += out === '' ? step : `.${step}`;
    else if (typeof step === 'number') out += `[${step}]`;
    else out += `[${JSON.stringify(step.key)}]`;
  }
  return out;
}

/**
 * A value as it is written in HCL: strings, numbers and booleans as in JSON, lists in
 * brackets, objects as `{ key = value }` (what a user pastes into a configuration).
 */
export function hclValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(hclValue).join(', ')}]`;
  if (typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${/^[A-Za-z_][A-Za-z0-9_-]*$/.test(k) ? k : JSON.stringify(k)} = ${hclValue(v)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}

/**
 * The part of an attribute path core can place in the configuration. Both CLIs resolve a
 * diagnostic's path by walking *blocks* (tfdiags ElaborateFromConfigBody): a step into a
 * nested attribute (`external_services[0].name`) is not a block, so core stops at the
 * resource body and looks the last step up there — landing on the resource's own `name =`
 * line, or on the block header when the resource has no attribute of that name. What core
 * does place exactly is a top-level attribute, optionally with one index or key (it then
 * points at that element of the list or map expression), and a step into a block. So a
 * deeper path is cut to that; the diagnostic's text carries the full HCL path.
 */
export function pathForCore(path: AttributePath, blockNames: ReadonlySet<string>): AttributePath {
  const first = path[0];
  if (typeof first !== 'string' || blockNames.has(first)) return path;
  const second = path[1];
  return second !== undefined && typeof second !== 'string' ? [first, second] : [first];
}
