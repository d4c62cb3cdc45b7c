// Reads a takoform_artifact configuration into plain data and checks its shape offline
// (ValidateResourceConfig): the kind, exactly one source, main_module only for a WorkerBundle.
// File-level rules need the files and are judged in artifact-inventory.ts at plan.
import type { ArtifactKind } from '../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { isObjectValue, isUnknown, type TfObject, type TfValue } from '../values/tf-value.js';
import { ARTIFACT_KINDS, ARTIFACT_TYPE_NAME } from './artifact-schema.js';

export interface ListedFile {
  readonly path: string;
  readonly source: string;
  readonly mediaType?: string;
}

export interface ArtifactConfig {
  readonly kind: ArtifactKind;
  readonly sourceDir?: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly files?: readonly ListedFile[];
  readonly mainModule?: string;
  readonly mediaTypes: ReadonlyMap<string, string>;
}

const str = (v: TfValue | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const strings = (v: TfValue | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

function isArtifactKind(value: TfValue | undefined): value is ArtifactKind {
  return typeof value === 'string' && (ARTIFACT_KINDS as readonly string[]).includes(value);
}

/** Shape refusals of a configuration (unknown values are not judged yet). */
export function configProblems(config: TfObject): Diagnostic[] {
  const out: Diagnostic[] = [];
  const kind = config.kind;
  if (typeof kind === 'string' && !(ARTIFACT_KINDS as readonly string[]).includes(kind)) {
    out.push(
      refusal('Unknown artifact kind', `kind is "${kind}"; a manifest kind is one of ${ARTIFACT_KINDS.join(', ')}.`, 'Set kind to one of them.', ['kind']),
    );
  }
  const dir = config.source_dir;
  const files = config.files;
  if (!isUnknown(dir) && !isUnknown(files) && (dir === null) === (files === null || files === undefined)) {
    out.push(
      refusal(
        'Artifact needs exactly one source',
        dir === null ? 'Neither source_dir nor files is set.' : 'Both source_dir and files are set.',
        'Set source_dir (a directory) or files (an explicit list), not both.',
        dir === null ? [] : ['files'],
      ),
    );
  }
  if (files !== null && !isUnknown(files) && (config.include !== null || config.exclude !== null)) {
    out.push(
      refusal(
        'include/exclude need source_dir',
        'include and exclude filter the files of source_dir; this artifact lists its files.',
        'Remove include/exclude, or use source_dir.',
        [config.include !== null ? 'include' : 'exclude'],
      ),
    );
  }
  if (typeof kind === 'string' && kind !== 'WorkerBundle' && config.main_module !== null && !isUnknown(config.main_module)) {
    out.push(
      refusal('main_module is for a WorkerBundle', `A ${kind} manifest has no main module (§14.1).`, 'Remove main_module, or set kind = "WorkerBundle".', [
        'main_module',
      ]),
    );
  }
  if (kind === 'WorkerBundle' && config.main_module === null) {
    out.push(
      refusal(
        'WorkerBundle needs main_module',
        'A WorkerBundle manifest names its main module (§14.1).',
        'Set main_module to the bundle path of the entry module, e.g. "index.js".',
        ['main_module'],
      ),
    );
  }
  return out;
}

/** The configuration as plain data; call only when it is wholly known and has no shape problem. */
export function readArtifactConfig(config: TfObject): ArtifactConfig {
  const files = Array.isArray(config.files)
    ? config.files.filter(isObjectValue).map((f): ListedFile => {
        const mediaType = str(f.media_type);
        return { path: str(f.path) ?? '', source: str(f.source) ?? '', ...(mediaType !== undefined ? { mediaType } : {}) };
      })
    : undefined;
  const overrides = isObjectValue(config.media_types ?? null) ? (config.media_types as TfObject) : {};
  const sourceDir = str(config.source_dir);
  const mainModule = str(config.main_module);
  return {
    kind: isArtifactKind(config.kind) ? config.kind : 'StaticAssetBundle', // configProblems refused any other kind
    ...(sourceDir !== undefined ? { sourceDir } : {}),
    include: strings(config.include),
    exclude: strings(config.exclude),
    ...(files !== undefined ? { files } : {}),
    ...(mainModule !== undefined ? { mainModule } : {}),
    mediaTypes: new Map(Object.entries(overrides).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as const] : []))),
  };
}

/** A refusal of this resource type: what is wrong, the Host code it would meet, what to do. */
export function refusal(summary: string, what: string, remedy: string, path: readonly (string | number)[], hostCode = 'artifact_invalid'): Diagnostic {
  return errorDiag(
    summary,
    `${ARTIFACT_TYPE_NAME}: ${what}\n\nHost code: ${hostCode} (decided offline, nothing was sent)\n\n${remedy}`,
    path.length ? path : undefined,
  );
}
