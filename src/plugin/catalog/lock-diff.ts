// What a re-lock changes, type by type, so it can be printed for review and so that losses
// (a type gone, a type pointing at another Form, package metadata gone) are refused unless
// the user allows them. A loss silently changes what a plan means: a resource in state whose
// type vanished, `outputs` that configurations read disappearing, immutable fields no longer
// forcing replacement.
import { formatFormRef, sameFormRef } from '../../host-client/wire-types.js';
import { canonicalJson } from '../../common/digest.js';
import type { Catalog, CatalogForm } from './catalog-file.js';

/** Package metadata a catalog entry can carry (the Host API does not serve it, §16.2). */
export const PACKAGE_METADATA = ['role', 'immutableFields', 'outputSchema', 'constraints'] as const;
export type PackageMetadata = (typeof PACKAGE_METADATA)[number];

export type TypeChange =
  | { readonly change: 'added'; readonly typeName: string; readonly form: CatalogForm }
  | { readonly change: 'removed'; readonly typeName: string; readonly form: CatalogForm }
  | { readonly change: 'repointed'; readonly typeName: string; readonly from: CatalogForm; readonly to: CatalogForm }
  | {
      readonly change: 'metadata';
      readonly typeName: string;
      readonly lost: readonly PackageMetadata[];
      readonly gained: readonly PackageMetadata[];
      /** Other differences worth a line in the review (operations, package digest, title). */
      readonly other: readonly string[];
    };

export interface CatalogDiff {
  readonly changes: readonly TypeChange[];
}

export function diffCatalogs(previous: Catalog | undefined, next: Catalog): CatalogDiff {
  const before = new Map((previous?.forms ?? []).map((f) => [f.typeName, f]));
  const after = new Map(next.forms.map((f) => [f.typeName, f]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: TypeChange[] = [];
  for (const typeName of names) {
    const old = before.get(typeName);
    const now = after.get(typeName);
    if (!old && now) {
      changes.push({ change: 'added', typeName, form: now });
      continue;
    }
    if (old && !now) {
      changes.push({ change: 'removed', typeName, form: old });
      continue;
    }
    if (!old || !now) continue;
    if (!sameFormRef(old.formRef, now.formRef)) changes.push({ change: 'repointed', typeName, from: old, to: now });
    const lost = PACKAGE_METADATA.filter((m) => has(old, m) && !has(now, m));
    const gained = PACKAGE_METADATA.filter((m) => !has(old, m) && has(now, m));
    const other: string[] = [];
    if (sameFormRef(old.formRef, now.formRef)) {
      for (const m of PACKAGE_METADATA) if (has(old, m) && has(now, m) && canonicalJson(old[m]) !== canonicalJson(now[m])) other.push(`${m} changed`);
      if (old.operations.join() !== now.operations.join())
        other.push(`operations ${old.operations.join(', ') || 'none'} → ${now.operations.join(', ') || 'none'}`);
      if (old.packageDigest !== now.packageDigest) other.push(`packageDigest ${old.packageDigest ?? 'none'} → ${now.packageDigest ?? 'none'}`);
      if (old.title !== now.title || old.description !== now.description) other.push('title or description changed');
    }
    if (lost.length || gained.length || other.length) changes.push({ change: 'metadata', typeName, lost, gained, other });
  }
  return { changes };
}

function has(form: CatalogForm, m: PackageMetadata): boolean {
  const v = form[m];
  if (v === undefined) return false;
  return Array.isArray(v) ? v.length > 0 : true;
}

export interface Losses {
  /** Types removed or re-pointed: need --allow-removals. */
  readonly removals: readonly string[];
  /** Package metadata lost: needs --allow-metadata-loss. */
  readonly metadata: readonly string[];
}

/** Each loss in words, one line per type, for the refusal and the review. */
export function lossesOf(diff: CatalogDiff): Losses {
  const removals: string[] = [];
  const metadata: string[] = [];
  for (const c of diff.changes) {
    if (c.change === 'removed')
      removals.push(`${c.typeName} (${formatFormRef(c.form.formRef)}) would be removed: the Host no longer offers that Form to this principal in this space`);
    if (c.change === 'repointed') removals.push(`${c.typeName} would be re-pointed from ${formatFormRef(c.from.formRef)} to ${formatFormRef(c.to.formRef)}`);
    if (c.change === 'metadata' && c.lost.length)
      metadata.push(`${c.typeName} would lose ${c.lost.join(', ')} (no verified Form Package for ${c.typeName} was given)`);
  }
  return { removals, metadata };
}

/** The review text: one line per changed type, `+` added, `-` removed, `~` changed. */
export function formatDiff(diff: CatalogDiff): string {
  if (diff.changes.length === 0) return 'no changes\n';
  const lines = diff.changes.map((c) => {
    switch (c.change) {
      case 'added':
        return `+ ${c.typeName}: ${formatFormRef(c.form.formRef)}${c.form.packageVerified ? ' (verified package)' : ' (no package metadata)'}`;
      case 'removed':
        return `- ${c.typeName}: ${formatFormRef(c.form.formRef)}`;
      case 'repointed':
        return `~ ${c.typeName}: re-pointed from ${formatFormRef(c.from.formRef)} to ${formatFormRef(c.to.formRef)}`;
      case 'metadata':
        return `~ ${c.typeName}: ${[c.lost.length ? `loses ${c.lost.join(', ')}` : '', c.gained.length ? `gains ${c.gained.join(', ')}` : '', ...c.other].filter(Boolean).join('; ')}`;
    }
  });
  return lines.join('\n') + '\n';
}
