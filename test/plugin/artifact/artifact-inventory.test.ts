// The inventory and manifest a configuration means, offline: which files a directory gives
// (include/exclude, order), media types inferred and overridden, the digest against an
// independent JCS computation, and each refusal naming the file and the rule.
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import type { ArtifactConfig } from '../../../src/plugin/artifact/artifact-config.js';
import { buildInventory, pathProblem } from '../../../src/plugin/artifact/artifact-inventory.js';
import { sha256, writeTree } from '../../support/artifact-tree.js';

const dir = (files: Record<string, string>): string => {
  const root = mkdtempSync(path.join(tmpdir(), 'artifact-inventory-'));
  writeTree(root, files);
  return root;
};
const config = (over: Partial<ArtifactConfig>): ArtifactConfig => ({ kind: 'StaticAssetBundle', include: [], exclude: [], mediaTypes: new Map(), ...over });

describe('buildInventory', () => {
  it('lists a directory in bundle-path order with include/exclude, without dotfiles, and digests it as JCS', async () => {
    const root = dir({ 'b.html': 'b', 'a/z.css': 'z', 'a/y.txt': 'y', '.hidden': 'h', '.git/config': 'g', 'skip.md': 'm' });
    const built = await buildInventory(config({ sourceDir: root, exclude: ['*.md'], include: ['**'] }));
    if (!('inventory' in built)) throw new Error(JSON.stringify(built.diagnostics));
    expect(built.inventory.entries.map((e) => [e.path, e.mediaType])).toEqual([
      ['a/y.txt', 'text/plain'],
      ['a/z.css', 'text/css'],
      ['b.html', 'text/html'],
    ]);
    const files = built.inventory.entries.map((e) => ({ path: e.path, mediaType: e.mediaType, size: e.size, digest: e.digest }));
    expect(built.inventory.manifestDigest).toBe(sha256(canonicalize({ apiVersion: 'artifacts.takoform.com/v1alpha1', kind: 'StaticAssetBundle', files })!));
    expect(files[0]).toEqual({ path: 'a/y.txt', mediaType: 'text/plain', size: 1, digest: sha256('y') });
  });

  it('keeps an explicit file list in its order, and applies overrides by path over extension', async () => {
    const root = dir({ '2.sql': 'two', '1.sql': 'one', 'x.data': 'x' });
    const built = await buildInventory(
      config({
        kind: 'MigrationBundle',
        files: [
          { path: '2.sql', source: path.join(root, '2.sql') },
          { path: '1.sql', source: path.join(root, '1.sql') },
          { path: '3.data', source: path.join(root, 'x.data') },
        ],
        mediaTypes: new Map([
          ['.data', 'text/plain'],
          ['3.data', 'application/sql'],
        ]),
      }),
    );
    if (!('inventory' in built)) throw new Error(JSON.stringify(built.diagnostics));
    expect(built.inventory.entries.map((e) => e.path)).toEqual(['2.sql', '1.sql', '3.data']);
    expect(built.inventory.entries[2]!.mediaType).toBe('application/sql');
  });

  it('does not descend a symbolic link to a directory', async () => {
    const root = dir({ 'real/a.html': 'a' });
    symlinkSync(path.join(root, 'real'), path.join(root, 'loop'));
    const built = await buildInventory(config({ sourceDir: root }));
    if (!('inventory' in built)) throw new Error('refused');
    expect(built.inventory.entries.map((e) => e.path)).toEqual(['real/a.html']);
  });

  it.each([
    [
      'a worker module of an unloadable type',
      { kind: 'WorkerBundle', mainModule: 'i.js' } as const,
      { 'i.js': '1', 'data.json': '{}' },
      /file "data\.json" \(on disk .*data\.json\): media type application\/json is outside the WorkerBundle policy/,
    ],
    ['a missing main module', { kind: 'WorkerBundle', mainModule: 'main.js' } as const, { 'i.js': '1' }, /main_module "main\.js" is not a file of the bundle/],
    ['a source map as main module', { kind: 'WorkerBundle', mainModule: 'i.js.map' } as const, { 'i.js': '1', 'i.js.map': '{}' }, /auxiliary module/],
    ['a path with a backslash', {}, { 'a\\b.html': 'x' }, /file "a\\b\.html" .*contains a backslash \(rule: path/],
    ['an empty directory', {}, {}, /no file under .* matches/],
  ])('refuses %s', async (_name, over, files, pattern) => {
    const built = await buildInventory(config({ sourceDir: dir(files), ...over }));
    expect('diagnostics' in built).toBe(true);
    if ('diagnostics' in built) expect(built.diagnostics.map((d) => d.detail).join('\n')).toMatch(pattern);
  });
});

describe('pathProblem', () => {
  // The manifest schema's artifactPath, stricter than the prose of §14.1.
  it.each(['', '/abs', 'a/../b', './a', 'a//b', 'a\u0000b', 'x'.repeat(241), '.well-known/x', 'ünïcode', 'a b', 'a\\b'])('forbids %j', (p) =>
    expect(pathProblem(p)).toBeDefined(),
  );
  it.each(['a', 'a/b.c', 'x'.repeat(240), '_x/y-z.min.js', 'v1.2/app'])('allows %j', (p) => expect(pathProblem(p)).toBeUndefined());
});
