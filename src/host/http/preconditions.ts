// Request headers that carry preconditions and idempotency (wire reference §10). Malformed values
// are `invalid_argument`; only a well-formed but stale value is a conflict (ambiguity A12).
import type { IncomingHttpHeaders } from 'node:http';
import { invalidArgument } from '../errors.js';
import { isCounter, isIdempotencyKey } from '../grammar.js';

export const GENERATION_FENCE_HEADER = 'Takoform-Expected-Generation';
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Node joins repeated headers with ", "; every header read here allows one value only. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (Array.isArray(value)) throw invalidArgument(`the ${name} header is sent more than once`, undefined, { header: name });
  return value;
}

/** The generation fence header: a canonical decimal generation, or undefined when absent. */
export function readGenerationFence(headers: IncomingHttpHeaders): string | undefined {
  const value = headerValue(headers, GENERATION_FENCE_HEADER);
  if (value !== undefined && !isCounter(value)) {
    throw invalidArgument(`${GENERATION_FENCE_HEADER} must be a canonical positive decimal generation`, undefined, {
      header: GENERATION_FENCE_HEADER,
    });
  }
  return value;
}

/** If-Match: exactly one strong ETag `"<revision>"`; returns the revision. Weak tags, `*` and lists are refused. */
export function readIfMatchRevision(headers: IncomingHttpHeaders): string | undefined {
  const value = headerValue(headers, 'If-Match');
  if (value === undefined) return undefined;
  const revision = /^"([0-9]+)"$/.exec(value)?.[1];
  if (revision === undefined || !isCounter(revision)) {
    throw invalidArgument('If-Match must be one strong ETag "<revision>"', undefined, { header: 'If-Match' });
  }
  return revision;
}

/** If-None-Match: only `*` (the create fence) is meaningful in Host API v1. */
export function readIfNoneMatchStar(headers: IncomingHttpHeaders): boolean {
  const value = headerValue(headers, 'If-None-Match');
  if (value === undefined) return false;
  if (value !== '*') throw invalidArgument('If-None-Match must be "*"', undefined, { header: 'If-None-Match' });
  return true;
}

export function readIdempotencyKey(headers: IncomingHttpHeaders): string {
  const value = headerValue(headers, IDEMPOTENCY_KEY_HEADER);
  if (value === undefined) {
    throw invalidArgument(`this route needs an ${IDEMPOTENCY_KEY_HEADER} header`, undefined, { header: IDEMPOTENCY_KEY_HEADER });
  }
  if (!isIdempotencyKey(value)) {
    throw invalidArgument(`${IDEMPOTENCY_KEY_HEADER} must be 1-255 visible ASCII characters`, undefined, {
      header: IDEMPOTENCY_KEY_HEADER,
    });
  }
  return value;
}
