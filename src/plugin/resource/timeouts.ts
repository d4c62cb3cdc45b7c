// The conventional `timeouts { create = "20m" update = "20m" delete = "20m" }` block: how
// long to follow a Host Operation (HTTP 202) before reporting "accepted, outcome unknown".
// Durations use Go's syntax ("90s", "10m", "1h30m"), as every other provider does.
import { T } from '../values/tf-type.js';
import type { TfNestedBlock } from '../schema/tf-schema.js';
import { isObjectValue, type TfValue } from '../values/tf-value.js';

export const DEFAULT_OPERATION_TIMEOUT_MS = 20 * 60_000;

export const TIMEOUTS_BLOCK: TfNestedBlock = {
  typeName: 'timeouts',
  nesting: 'SINGLE',
  block: {
    description: 'How long to wait for the Host to finish an accepted (HTTP 202) change.',
    attributes: (['create', 'update', 'delete'] as const).map((name) => ({
      name,
      type: T.string,
      optional: true,
      description: `Go-style duration for ${name} (e.g. \`30s\`, \`10m\`, \`1h\`); default 20m.`,
    })),
  },
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go-style duration ("1h30m", "45s", "250ms"); undefined when invalid. */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += parseFloat(m[1]!) * UNIT_MS[m[2]!]!;
    consumed = re.lastIndex;
  }
  return consumed === text.length && text.length > 0 ? total : undefined;
}

/** The timeout for `operation` from a `timeouts` block value (null/unknown → default). */
export function operationTimeout(timeouts: TfValue | undefined, operation: 'create' | 'update' | 'delete'): number {
  if (!timeouts || !isObjectValue(timeouts)) return DEFAULT_OPERATION_TIMEOUT_MS;
  const v = timeouts[operation];
  return typeof v === 'string' ? (parseDuration(v) ?? DEFAULT_OPERATION_TIMEOUT_MS) : DEFAULT_OPERATION_TIMEOUT_MS;
}

/** Validation message for a bad duration, or undefined. */
export function invalidDuration(timeouts: TfValue | undefined): { attribute: string; text: string } | undefined {
  if (!timeouts || !isObjectValue(timeouts)) return undefined;
  for (const name of ['create', 'update', 'delete']) {
    const v = timeouts[name];
    if (typeof v === 'string' && parseDuration(v) === undefined) return { attribute: name, text: v };
  }
  return undefined;
}
