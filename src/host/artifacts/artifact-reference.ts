// Resolving a bundle-shaped revision's artifact reference (wire reference §14.2 "Referencing from
// desired state", operations-v1.json `artifactReference`). Desired state carries the manifest
// digest and nothing else; before any mutation (apply and import, and so again when an accepted
// Operation commits, which re-runs the route) the Host resolves it within the caller's tenant.
// Prepare does not: it mutates nothing, and a plan names a digest its apply uploads first.
//   not committed by this tenant (never uploaded, or another tenant's) → artifact_missing 404,
//     one answer for both so a digest never tells a tenant what another one holds;
//   stored bytes that do not decode, do not hash to the digest, break a manifest rule, or a
//     manifest of another kind than the Form needs → artifact_invalid 400.
// Which Forms are bundle-shaped and which manifest kind each needs is not stated in v1 (see
// docs/reference-host.md): a Form is bundle-shaped when its desiredSchema has exactly one
// property, `manifestDigest`; the kind comes from BUNDLE_KINDS, and a bundle-shaped Form not in
// it accepts a manifest of any kind.
import { jcsDigest } from '../../common/digest.js';
import { parseIJson } from '../../common/ijson.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../common/json-value.js';
import type { InstalledForm } from '../catalog.js';
import { HostError } from '../errors.js';
import type { StoreTransaction } from '../store/store.js';
import { readManifest } from './artifact-manifest.js';

export const MANIFEST_DIGEST_MEMBER = 'manifestDigest';

/** The manifest kind each known bundle-shaped Form kind references. */
const BUNDLE_KINDS: Readonly<Record<string, string>> = {
  WorkerBundle: 'WorkerBundle',
  StaticAssetBundle: 'StaticAssetBundle',
  SQLiteMigrationSet: 'MigrationBundle',
};

/** True when the Form's desired state is an artifact reference and nothing else. */
export function isBundleShaped(form: InstalledForm): boolean {
  const properties = form.definition.desiredSchema.properties;
  return isJsonObject(properties) && Object.keys(properties).length === 1 && MANIFEST_DIGEST_MEMBER in properties;
}

/** Checks the manifest a bundle-shaped spec references; writes nothing. */
export async function assertArtifactReference(tx: StoreTransaction, form: InstalledForm, tenant: string, spec: JsonObject): Promise<void> {
  if (!isBundleShaped(form)) return;
  const digest = spec[MANIFEST_DIGEST_MEMBER];
  // The desiredSchema already required a digest-shaped string; anything else is not a reference.
  if (typeof digest !== 'string') return;
  const pointer = `/spec/${MANIFEST_DIGEST_MEMBER}`;
  const stored = await tx.findManifest(tenant, digest);
  if (stored === undefined) {
    throw new HostError('artifact_missing', `your tenant has committed no artifact manifest ${digest}; upload and commit it first`, {
      details: { pointer },
    });
  }
  const invalid = (why: string): HostError => new HostError('artifact_invalid', `the artifact manifest ${digest} ${why}`, { details: { pointer } });
  let manifest: JsonValue;
  try {
    manifest = parseIJson(Buffer.from(stored, 'utf8')) as JsonValue;
  } catch {
    throw invalid('cannot be decoded');
  }
  if (jcsDigest(manifest) !== digest) throw invalid('does not hash to its digest');
  try {
    readManifest(manifest);
  } catch (error) {
    if (error instanceof HostError) throw invalid(`breaks the manifest contract: ${error.message}`);
    throw error;
  }
  const wanted = BUNDLE_KINDS[form.formRef.kind];
  const kind = isJsonObject(manifest) ? manifest.kind : undefined;
  if (wanted !== undefined && kind !== wanted) throw invalid(`is a ${String(kind)}; a ${form.formRef.kind} needs a ${wanted}`);
}
