// Writes the local content of the artifact suites (a worker, a static site of a few hundred
// files, a migration set) and computes manifest digests independently of the provider: the
// manifest is built here from the bytes and canonicalized with the `canonicalize` package.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import canonicalize from 'canonicalize';

export const sha256 = (bytes: Uint8Array | string): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

/** A marker every generated file carries: a scan for it finds file bytes wherever they leaked. */
export const BYTES_MARKER = 'ARTIFACT-BYTES-MARKER-7f3a9c';

export function workerTree(): Record<string, string | Uint8Array> {
  return {
    'index.js': `// ${BYTES_MARKER}\nimport { add } from './lib/math.mjs';\nexport default { fetch: () => new Response(String(add(1, 2))) };\n`,
    'lib/math.mjs': `// ${BYTES_MARKER}\nexport const add = (a, b) => a + b;\n`,
    'lib/util.js': `// ${BYTES_MARKER}\nexport const id = (x) => x;\n`,
    'index.js.map': `{"version":3,"sources":["index.ts"],"mappings":"","x":"${BYTES_MARKER}"}`,
    'app.wasm': Buffer.concat([Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]), Buffer.from(BYTES_MARKER)]),
    'README.md': `not part of the bundle ${BYTES_MARKER}\n`,
  };
}

export function siteTree(pages = 300): Record<string, string> {
  const files: Record<string, string> = { 'index.html': `<h1>${BYTES_MARKER}</h1>\n`, 'assets/site.css': `/* ${BYTES_MARKER} */ body { margin: 0 }\n` };
  for (let i = 0; i < pages; i++) files[`pages/page-${String(i).padStart(3, '0')}.html`] = `<p>page ${i} ${BYTES_MARKER}</p>\n`;
  return files;
}

export function migrationTree(): Record<string, string> {
  return {
    'sql/0001_init.sql': `-- ${BYTES_MARKER}\nCREATE TABLE t (id INTEGER PRIMARY KEY);\n`,
    'sql/0002_add_name.sql': `-- ${BYTES_MARKER}\nALTER TABLE t ADD COLUMN name TEXT;\n`,
  };
}

/** The manifest digest of files on disk, in the given order, as §14.1 defines it. */
export function manifestDigestOf(
  kind: 'WorkerBundle' | 'StaticAssetBundle' | 'MigrationBundle',
  entries: readonly { path: string; disk: string; mediaType: string }[],
  mainModule?: string,
): string {
  const described = entries.map((e) => {
    const bytes = readFileSync(e.disk);
    return { mediaType: e.mediaType, size: bytes.length, digest: sha256(bytes) };
  });
  const manifest =
    kind === 'WorkerBundle'
      ? { apiVersion: 'artifacts.takoform.com/v1alpha1', kind, mainModule, modules: entries.map((e, i) => ({ name: e.path, ...described[i] })) }
      : { apiVersion: 'artifacts.takoform.com/v1alpha1', kind, files: entries.map((e, i) => ({ path: e.path, ...described[i] })) };
  return sha256(canonicalize(manifest) ?? '');
}

/** How many requests of a method and path pattern the Host logged (one line per request). */
export function hostRequests(log: string, method: string, pathPattern: RegExp): number {
  const prefix = `takoform-host: ${method} `;
  return log.split('\n').filter((line) => line.startsWith(prefix) && pathPattern.test((line.slice(prefix.length).split(' ')[0] ?? '').split('?')[0]!)).length;
}

/** The Host's log written after `mark` (its log is flushed in batches, so wait for one flush). */
export async function hostLogSince(stderr: () => string, mark: number): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 250));
  return stderr().slice(mark);
}
