// The artifact lifecycle against a fake Host: plan computes the digest (unknown only while the
// configuration is), apply uploads streams of exactly the planned files, refuses files changed
// since the plan without uploading, and keeps the prior state on a Host refusal; read drops a
// manifest the Host no longer holds.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostApiError, type ArtifactManifest, type StreamedBody } from '../../../src/host-client/index.js';
import { applyArtifact, planArtifact, readArtifact, type ArtifactHost, type ArtifactRoutes } from '../../../src/plugin/artifact/artifact-resource.js';
import { Logger } from '../../../src/plugin/logging.js';
import { isUnknown, UNKNOWN, type TfObject } from '../../../src/plugin/values/tf-value.js';
import { writeTree } from '../../support/artifact-tree.js';

const root = mkdtempSync(path.join(tmpdir(), 'artifact-resource-'));
writeTree(root, { 'a.html': 'a', 'b.css': 'b' });
const config: TfObject = {
  id: null,
  kind: 'StaticAssetBundle',
  source_dir: root,
  include: null,
  exclude: null,
  files: null,
  main_module: null,
  media_types: null,
  manifest_digest: null,
  inventory: null,
};

function fakeHost(behaviour: { fail?: Error; held?: boolean } = {}) {
  const uploads: { manifest: ArtifactManifest; sizes: number[] }[] = [];
  const api: ArtifactRoutes = {
    async upload(manifest: ArtifactManifest, blobs: ReadonlyMap<string, Uint8Array | StreamedBody>) {
      if (behaviour.fail) throw behaviour.fail;
      uploads.push({ manifest, sizes: [...blobs.values()].map((b) => (b instanceof Uint8Array ? -1 : b.size)) });
      return { manifestDigest: 'ignored', manifest, uploadedBlobs: blobs.size };
    },
    async readManifest() {
      return behaviour.held === false ? undefined : { apiVersion: 'artifacts.takoform.com/v1alpha1', kind: 'StaticAssetBundle', files: [] };
    },
  };
  const host: ArtifactHost = { artifacts: () => api, logger: new Logger('off') };
  return { host, uploads };
}

describe('takoform_artifact lifecycle', () => {
  it('plans a known digest and inventory from the files, unknown while the configuration is', async () => {
    const planned = await planArtifact(config, config);
    expect(planned.diagnostics).toEqual([]);
    expect(planned.state?.manifest_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(planned.state?.id).toBe(planned.state?.manifest_digest);
    expect((planned.state?.inventory as TfObject[]).map((e) => e.path)).toEqual(['a.html', 'b.css']);
    const unknown = await planArtifact({ ...config, source_dir: UNKNOWN }, { ...config, source_dir: UNKNOWN });
    expect(isUnknown(unknown.state!.manifest_digest!)).toBe(true);
  });

  it('applies by streaming every planned file, and records no bytes', async () => {
    const planned = (await planArtifact(config, config)).state!;
    const { host, uploads } = fakeHost();
    const applied = await applyArtifact(host, null, planned);
    expect(applied.diagnostics).toEqual([]);
    expect(applied.state).toEqual(planned);
    expect(uploads[0]!.sizes).toEqual([1, 1]); // streams (never in-memory bytes), one per file
  });

  it('refuses files changed since the plan, naming them, without uploading', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'artifact-changed-'));
    writeTree(dir, { 'x.html': 'one' });
    const planned = (await planArtifact({ ...config, source_dir: dir }, { ...config, source_dir: dir })).state!;
    writeFileSync(path.join(dir, 'x.html'), 'two');
    const { host, uploads } = fakeHost();
    const applied = await applyArtifact(host, null, planned);
    expect(applied.state).toBeNull();
    expect(applied.diagnostics[0]?.summary).toBe('Artifact files changed since plan');
    expect(applied.diagnostics[0]?.detail).toMatch(/x\.html \(on disk .*x\.html\)/);
    expect(uploads).toEqual([]);
  });

  it('keeps the prior state on a Host refusal, with the code and remedy', async () => {
    const planned = (await planArtifact(config, config)).state!;
    const refusal = new HostApiError('artifact-commit', 'artifact_invalid', 400, false, 'req_1', 'the bytes do not hash');
    const applied = await applyArtifact(fakeHost({ fail: refusal }).host, planned, planned);
    expect(applied.state).toBe(planned);
    expect(applied.diagnostics[0]?.summary).toBe('Host refused: artifact_invalid');
    expect(applied.diagnostics[0]?.detail).toMatch(/request req_1/);
  });

  it('drops from state a manifest the Host no longer holds', async () => {
    const planned = (await planArtifact(config, config)).state!;
    expect((await readArtifact(fakeHost({ held: true }).host, planned)).state).toBe(planned);
    const gone = await readArtifact(fakeHost({ held: false }).host, planned);
    expect(gone.state).toBeNull();
    expect(gone.diagnostics[0]?.severity).toBe('warning');
  });
});
