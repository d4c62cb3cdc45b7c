// Offline shape checks of a takoform_artifact configuration (ValidateResourceConfig).
import { describe, expect, it } from 'vitest';
import { configProblems } from '../../../src/plugin/artifact/artifact-config.js';
import { UNKNOWN, type TfObject } from '../../../src/plugin/values/tf-value.js';

const base: TfObject = { kind: 'StaticAssetBundle', source_dir: 'site', include: null, exclude: null, files: null, main_module: null, media_types: null };

describe('configProblems', () => {
  it('accepts a directory source', () => expect(configProblems(base)).toEqual([]));
  it.each([
    ['an unknown kind', { kind: 'Bundle' }, 'Unknown artifact kind', ['kind']],
    ['no source', { source_dir: null }, 'Artifact needs exactly one source', undefined],
    ['two sources', { files: [] }, 'Artifact needs exactly one source', ['files']],
    ['main_module off a worker', { main_module: 'x.js' }, 'main_module is for a WorkerBundle', ['main_module']],
    ['a worker without main_module', { kind: 'WorkerBundle' }, 'WorkerBundle needs main_module', ['main_module']],
  ])('refuses %s on its attribute', (_n, over, summary, path) => {
    const [problem] = configProblems({ ...base, ...over });
    expect(problem?.summary).toBe(summary);
    expect(problem?.path).toEqual(path);
    expect(problem?.detail).toMatch(/Host code: artifact_invalid/);
  });
  it('does not judge unknown values yet', () => expect(configProblems({ ...base, source_dir: UNKNOWN })).toEqual([]));
});
