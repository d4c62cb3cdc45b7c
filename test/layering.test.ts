// The layers of the source tree, kept by a test (docs/design.md, "Layers"): every relative
// import of every module under src/ is resolved and checked against what its layer may use.
//   src/common       imports nothing of ours outside src/common
//   src/host-client  src/common only
//   src/host         src/common only (the reference Host shares the byte-exact rules, not the client)
//   src/plugin       src/common and src/host-client; never the reference Host
//   the generated protocol (src/plugin/generated) is imported only by src/plugin/grpc
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(process.cwd(), 'src');

function modules(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'generated' ? [] : modules(full);
    return entry.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports (static, dynamic and re-exports) of a module, resolved to paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
  return found.map((spec) => path.relative(SRC, path.resolve(path.dirname(file), spec)));
}

const layerOf = (rel: string): string => (rel.startsWith('plugin/generated/') ? 'generated' : rel.split('/')[0]!);

const ALLOWED: Record<string, readonly string[]> = {
  common: ['common'],
  'host-client': ['host-client', 'common'],
  host: ['host', 'common'],
  plugin: ['plugin', 'common', 'host-client'],
};

describe('source layers', () => {
  const all = modules(SRC).map((file) => ({ file: path.relative(SRC, file), imports: importsOf(file) }));

  it('finds the modules and their imports (the check can fail)', () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.find((m) => m.file === 'plugin/grpc/convert.ts')?.imports).toContain('plugin/generated/types/tfplugin6/Diagnostic.js');
  });

  it.each(Object.keys(ALLOWED))('%s imports only what its layer may use', (layer) => {
    const broken = all
      .filter((m) => layerOf(m.file) === layer)
      .flatMap((m) =>
        m.imports
          .filter((i) => !ALLOWED[layer]!.includes(layerOf(i)) && !(layerOf(i) === 'generated' && m.file.startsWith('plugin/grpc/')))
          .map((i) => `${m.file} → ${i}`),
      );
    expect(broken).toEqual([]);
  });

  it('lets only src/plugin/grpc import the generated protocol', () => {
    const broken = all.filter((m) => !m.file.startsWith('plugin/grpc/') && m.imports.some((i) => layerOf(i) === 'generated')).map((m) => m.file);
    expect(broken).toEqual([]);
  });
});
