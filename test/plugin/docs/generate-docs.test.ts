// The committed Registry-style docs must be exactly what the generator writes for the
// reference catalog: a schema change without regenerating (`npm run docs`) fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../src/plugin/catalog/catalog-file.js';
import { generateDocs } from '../../../src/plugin/docs/generate-docs.js';
import { REPO_ROOT } from '../../support/paths.js';

const DOCS = path.join(REPO_ROOT, 'docs');
const catalogFile = path.join(DOCS, 'reference-catalog.json');

describe('generated docs', () => {
  const pages = generateDocs(parseCatalog(readFileSync(catalogFile), catalogFile), 'reference-catalog.json');

  it('match the committed pages (run `npm run docs` after changing schemas)', () => {
    for (const page of pages) {
      const file = path.join(DOCS, page.path);
      expect(existsSync(file), `${page.path} is missing`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${page.path} drifted from the generator`).toBe(page.content);
    }
  });

  it('leave no stale pages behind', () => {
    const expected = new Set(pages.map((p) => p.path));
    for (const folder of ['resources', 'data-sources']) {
      for (const name of readdirSync(path.join(DOCS, folder))) expect(expected.has(`${folder}/${name}`), `${folder}/${name} is not generated any more`).toBe(true);
    }
  });

  it('document every locked type with its FormRef, attributes and import syntax', () => {
    const catalog = parseCatalog(readFileSync(catalogFile), catalogFile);
    expect(catalog.forms).toHaveLength(20);
    const seq = pages.find((p) => p.path === 'resources/range_sequence.md')!.content;
    expect(seq).toContain('schema digest `sha256:c23a0ad83fc1c32667ec9780bca3be4323990de9a2bb5bc00da9b61f1ec7e390`');
    expect(seq).toMatch(/- `mode` \(String, Optional, Computed\) .*Default `"safe"`/);
    expect(seq).toContain('tofu import takoform_range_sequence.example SPACE/NAME');
    const index = pages.find((p) => p.path === 'index.md')!.content;
    expect(index).toMatch(/- `token` \(String, Optional, Sensitive\)/);
  });
});
