// Private data of a resource, carried by core between our calls: from plan to apply (planned
// private) and from apply to later plans (private). It is stored in saved plan files and in
// state, so it holds digests and canonical JSON of specs only, never a credential.
//
// * `binding`: the Host's review binding from the plan-time prepare, so apply sends exactly
//   what the plan showed without preparing again.
// * `applied`: the Host's canonical spec right after our last apply, for kinds whose state does
//   not mirror the Host's spec attribute by attribute (takoform_resource): a refresh that
//   finds another spec is drift.
// * `prepared`: in planned private data only, the whole prepare answer with the key it
//   answers and its expiry, so that an apply-time re-plan that is handed the first plan's
//   planned private data (Terraform ≥ 1.16) need not prepare again (prepared-bindings.ts).
export interface ResourcePrivate {
  readonly binding?: { readonly prepareDigest: string; readonly specDigest: string };
  readonly applied?: string;
  readonly prepared?: PreparedEntry;
}

import { readEntry, type PreparedEntry } from './prepared-bindings.js';

const FORMAT = 2;

export function encodeResourcePrivate(p: ResourcePrivate): Buffer {
  if (!p.binding && p.applied === undefined && !p.prepared) return Buffer.alloc(0);
  return Buffer.from(JSON.stringify({ v: FORMAT, ...p }));
}

/**
 * Reads private data written by this version, or by the previous one (typed types wrote
 * `{v:1, prepareDigest, specDigest}`, takoform_resource `{g:1, applied?, prepareDigest?,
 * specDigest?}`), so that saved plans and states survive the upgrade. Unreadable data is
 * treated as absent: apply then prepares again, and a missing `applied` means "no drift known".
 */
export function decodeResourcePrivate(bytes: Uint8Array | undefined): ResourcePrivate {
  if (!bytes || bytes.length === 0) return {};
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
  if (typeof o !== 'object' || o === null) return {};
  const text = (v: unknown): v is string => typeof v === 'string';
  if (o.v === FORMAT) {
    const b = o.binding as Record<string, unknown> | undefined;
    return {
      ...(b && text(b.prepareDigest) && text(b.specDigest) ? { binding: { prepareDigest: b.prepareDigest, specDigest: b.specDigest } } : {}),
      ...(text(o.applied) ? { applied: o.applied } : {}),
      ...(readEntry(o.prepared) ? { prepared: readEntry(o.prepared) } : {}),
    };
  }
  if (o.v === 1 || o.g === 1) {
    return {
      ...(text(o.prepareDigest) && text(o.specDigest) ? { binding: { prepareDigest: o.prepareDigest, specDigest: o.specDigest } } : {}),
      ...(text(o.applied) ? { applied: o.applied } : {}),
    };
  }
  return {};
}
