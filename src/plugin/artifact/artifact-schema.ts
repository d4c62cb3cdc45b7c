// The schema of `takoform_artifact`: local content (a directory with include/exclude patterns,
// or an explicit file list), the manifest kind, and what the provider computes from the files
// at plan time (the manifest digest and the inventory). The state never holds file bytes.
import type { TfSchema } from '../schema/tf-schema.js';
import { impliedType } from '../schema/tf-schema.js';
import { T } from '../values/tf-type.js';

export const ARTIFACT_TYPE_NAME = 'takoform_artifact';
export const ARTIFACT_KINDS = ['WorkerBundle', 'StaticAssetBundle', 'MigrationBundle'] as const;

export const ARTIFACT_SCHEMA: TfSchema = {
  version: 0,
  block: {
    description:
      'A content-addressed artifact (Host API §14) built from local files: the provider computes the RFC 8785 manifest digest at plan time, ' +
      'uploads only the blobs the Host lacks, commits, and records the digest and file inventory (never bytes). ' +
      'Reference it from a bundle-shaped Form: `manifest_digest = takoform_artifact.NAME.manifest_digest`.',
    attributes: [
      { name: 'id', type: T.string, computed: true, description: 'The manifest digest.' },
      {
        name: 'kind',
        type: T.string,
        required: true,
        description: 'Manifest kind: `WorkerBundle` (modules + main_module), `StaticAssetBundle` or `MigrationBundle` (files).',
      },
      {
        name: 'source_dir',
        type: T.string,
        optional: true,
        description:
          'A directory whose files make the bundle; bundle paths are relative to it, with `/`. Files are listed in path order. Exactly one of `source_dir` and `files`.',
      },
      {
        name: 'include',
        type: T.list(T.string),
        optional: true,
        description: 'Glob patterns (picomatch syntax, relative to `source_dir`) a file must match; default all files.',
      },
      {
        name: 'exclude',
        type: T.list(T.string),
        optional: true,
        description: 'Glob patterns of files under `source_dir` to leave out (dotfiles are not special).',
      },
      {
        name: 'files',
        nested: {
          nesting: 'LIST',
          attributes: [
            { name: 'path', type: T.string, required: true, description: 'The path in the bundle (relative, `/`-separated, no `.` or `..`).' },
            { name: 'source', type: T.string, required: true, description: 'The file on disk (relative to the working directory, or absolute).' },
            { name: 'media_type', type: T.string, optional: true, description: 'Media type; default inferred from the extension.' },
          ],
        },
        optional: true,
        description: 'An explicit list of files, in bundle order (a MigrationBundle applies them in this order).',
      },
      { name: 'main_module', type: T.string, optional: true, description: 'The bundle path of the main module (WorkerBundle only, required there).' },
      {
        name: 'media_types',
        type: T.map(T.string),
        optional: true,
        description: 'Media type overrides, keyed by bundle path or by extension (`".wasm"`); a bundle path wins over an extension.',
      },
      { name: 'manifest_digest', type: T.string, computed: true, description: 'The RFC 8785 (JCS) sha256 digest of the manifest, known at plan time.' },
      {
        name: 'inventory',
        nested: {
          nesting: 'LIST',
          attributes: [
            { name: 'path', type: T.string, computed: true },
            { name: 'media_type', type: T.string, computed: true },
            { name: 'size', type: T.number, computed: true },
            { name: 'digest', type: T.string, computed: true },
          ],
        },
        computed: true,
        description: 'Every file of the manifest: bundle path, media type, size and sha256 digest.',
      },
    ],
  },
};

export const ARTIFACT_TYPE = impliedType(ARTIFACT_SCHEMA.block);
