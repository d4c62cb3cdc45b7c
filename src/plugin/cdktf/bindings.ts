// `terraform-provider-takoform cdktf`: TypeScript bindings for CDKTF (or its maintained fork,
// CDK Terrain) from the locked catalog, offline. The generator is large and is not bundled
// into the provider: it is loaded from the CDKTF project the command runs in, which has it.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Catalog } from '../catalog/catalog-file.js';
import { providerSchemaJson } from './schema-json.js';

type Generator = (outDir: string, schema: Record<string, unknown>) => Promise<void>;

export async function writeCdktfBindings(catalog: Catalog, outDir: string, projectDir = process.cwd()): Promise<void> {
  const load = createRequire(path.join(projectDir, 'package.json'));
  let generate: Generator | undefined;
  for (const name of ['@cdktf/provider-generator', '@cdktn/provider-generator']) {
    try {
      generate = (load(name) as { generateProviderBindingsFromSchema: Generator }).generateProviderBindingsFromSchema;
      break;
    } catch {
      // try the next one
    }
  }
  if (!generate) {
    throw new Error(
      `neither @cdktf/provider-generator nor @cdktn/provider-generator (with jsii-pacmak) is installed in ${projectDir}; add them to your CDKTF project`,
    );
  }
  await generate(path.resolve(outDir), providerSchemaJson(catalog));
}
