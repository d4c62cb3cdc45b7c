// The lifecycle of takoform_artifact: a separate small implementation beside the one Host-resource
// lifecycle (resource/lifecycle/), because an artifact is not a Host resource: it has no name,
// space, uid, generation, prepare binding or Operation to follow, and its identity is its content.
// Plan computes the manifest digest from the files (so every dependent sees a change in its own
// plan); apply re-reads the files, uploads only what the Host lacks, commits and checks the
// digest; read asks whether the Host still holds the manifest; delete changes nothing on the
// Host (v1 has no route to drop a committed manifest, and bytes another resource references
// must stay). A create journal is not needed: repeating an upload is harmless and cheap.
import { createReadStream } from 'node:fs';
import type { ArtifactsApi, StreamedBody } from '../../host-client/index.js';
import { errorDiag, hasError, warningDiag, type Diagnostic } from '../diag/diagnostics.js';
import type { Logger } from '../logging.js';
import { TfNumber } from '../values/tf-number.js';
import { isObjectValue, isWhollyKnown, objectValue, UNKNOWN, type TfObject, type TfValue } from '../values/tf-value.js';
import { configProblems, readArtifactConfig } from './artifact-config.js';
import { artifactHostDiagnostic } from './artifact-diagnostics.js';
import { buildInventory, type Inventory } from './artifact-inventory.js';
import { ARTIFACT_TYPE_NAME } from './artifact-schema.js';

/** The two artifact routes the lifecycle uses (narrow, so tests can hand it a fake). */
export type ArtifactRoutes = Pick<ArtifactsApi, 'upload' | 'readManifest'>;

/** What the artifact lifecycle needs from the provider. */
export interface ArtifactHost {
  /** The Host client's artifact routes; undefined while the provider is not configured. */
  artifacts(): ArtifactRoutes | undefined;
  readonly logger: Logger;
}

export interface ArtifactResult {
  readonly state: TfObject | null;
  readonly diagnostics: Diagnostic[];
}

export function validateArtifact(config: TfObject): Diagnostic[] {
  return configProblems(config);
}

export async function planArtifact(proposed: TfObject | null, config: TfObject | null): Promise<ArtifactResult> {
  if (proposed === null || config === null) return { state: null, diagnostics: [] };
  const problems = configProblems(config);
  if (hasError(problems)) return { state: null, diagnostics: problems };
  if (!isWhollyKnown(config)) {
    // A source not known yet (another resource's output): the digest is known at apply.
    return { state: withComputed(proposed, undefined), diagnostics: [] };
  }
  const built = await buildInventory(readArtifactConfig(config));
  if ('diagnostics' in built) return { state: null, diagnostics: built.diagnostics };
  return { state: withComputed(proposed, built.inventory), diagnostics: [] };
}

export async function applyArtifact(host: ArtifactHost, prior: TfObject | null, planned: TfObject | null): Promise<ArtifactResult> {
  if (planned === null) return { state: null, diagnostics: [] }; // delete: see the header
  const keep = { state: prior, diagnostics: [] as Diagnostic[] };
  const built = await buildInventory(readArtifactConfig(planned));
  if ('diagnostics' in built) return { ...keep, diagnostics: built.diagnostics };
  const { inventory } = built;
  const promised = planned.manifest_digest;
  if (typeof promised === 'string' && promised !== inventory.manifestDigest) {
    return { ...keep, diagnostics: [changedSincePlan(planned, inventory)] };
  }
  const api = host.artifacts();
  if (!api) return { ...keep, diagnostics: [errorDiag('Provider not configured', `${ARTIFACT_TYPE_NAME}: the provider has no Host connection to upload to.`)] };
  // One stream per distinct digest, opened per attempt: a 200 MiB file never sits in memory.
  const blobs = new Map<string, StreamedBody>();
  for (const e of inventory.entries) if (!blobs.has(e.digest)) blobs.set(e.digest, { size: e.size, open: () => createReadStream(e.diskPath) });
  try {
    const result = await api.upload(inventory.manifest, blobs);
    host.logger.info('artifact committed', { manifest_digest: result.manifestDigest, files: inventory.entries.length, uploaded_blobs: result.uploadedBlobs });
  } catch (e) {
    return { ...keep, diagnostics: [artifactHostDiagnostic('upload and commit', e, inventory.manifestDigest)] };
  }
  return { state: withComputed(planned, inventory), diagnostics: [] };
}

export async function readArtifact(host: ArtifactHost, current: TfObject): Promise<ArtifactResult> {
  const api = host.artifacts();
  const digest = current.manifest_digest;
  if (!api || typeof digest !== 'string') return { state: current, diagnostics: [] };
  try {
    if ((await api.readManifest(digest)) !== undefined) return { state: current, diagnostics: [] };
  } catch (e) {
    return { state: current, diagnostics: [artifactHostDiagnostic('read', e, digest)] };
  }
  const detail = `${ARTIFACT_TYPE_NAME}: the Host no longer holds manifest ${digest} for your tenant, so it is removed from state; the next apply uploads it again.`;
  return { state: null, diagnostics: [warningDiag('Artifact gone from the Host', detail)] };
}

export function importArtifactRefused(): Diagnostic {
  return errorDiag(
    'takoform_artifact cannot be imported',
    `${ARTIFACT_TYPE_NAME} is built from local files, which an import ID cannot name. Declare the resource instead: its first apply uploads only the blobs the Host lacks, so adopting content the Host already holds costs one request and no bytes.`,
  );
}

/** The planned or applied value: the configuration plus digest and inventory (unknown when not computed). */
function withComputed(value: TfObject, inventory: Inventory | undefined): TfObject {
  const entries = new Map<string, TfValue>(Object.entries(value));
  if (inventory === undefined) {
    entries.set('id', UNKNOWN);
    entries.set('manifest_digest', UNKNOWN);
    entries.set('inventory', UNKNOWN);
    return objectValue(entries);
  }
  entries.set('id', inventory.manifestDigest);
  entries.set('manifest_digest', inventory.manifestDigest);
  entries.set(
    'inventory',
    inventory.entries.map((e) =>
      objectValue([
        ['path', e.path],
        ['media_type', e.mediaType],
        ['size', TfNumber.of(e.size)],
        ['digest', e.digest],
      ]),
    ),
  );
  return objectValue(entries);
}

/** Files that differ between the plan and now, by bundle path (at most ten named). */
function changedSincePlan(planned: TfObject, inventory: Inventory): Diagnostic {
  const before = new Map<string, string>();
  if (Array.isArray(planned.inventory)) {
    for (const e of planned.inventory) if (isObjectValue(e) && typeof e.path === 'string' && typeof e.digest === 'string') before.set(e.path, e.digest);
  }
  const changed: string[] = [];
  for (const e of inventory.entries) if (before.get(e.path) !== e.digest) changed.push(`${e.path} (on disk ${e.diskPath})`);
  for (const p of before.keys()) if (!inventory.entries.some((e) => e.path === p)) changed.push(`${p} (removed)`);
  return errorDiag(
    'Artifact files changed since plan',
    `${ARTIFACT_TYPE_NAME}: the files no longer match the plan (planned ${String(planned.manifest_digest)}, now ${inventory.manifestDigest}): ${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ', …' : ''}. Nothing was uploaded.\n\nRun plan again so the plan shows the content that will be uploaded.`,
  );
}
