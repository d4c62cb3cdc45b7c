// The example of every generated resource page (docs/resources/*.md, from
// docs/reference-catalog.json) is a real configuration: real tofu validates and plans it against
// the reference Host serving the shared Forms of that catalog.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTree } from '../support/artifact-tree.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const PAGES = path.join(REPO_ROOT, 'docs/resources');
const pages = readdirSync(PAGES)
  .filter((f) => f.endsWith('.md'))
  .sort();

function exampleOf(page: string): string {
  const m = /## Example Usage\n\n```hcl\n([\s\S]*?)```/.exec(readFileSync(path.join(PAGES, page), 'utf8'));
  if (!m) throw new Error(`${page} has no HCL example`);
  return m[1]!;
}

describe('the example of every resource page', () => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    host = await startHostProcess([GENERIC_FORMS], undefined, [
      '--standard-service',
      'com.amazonaws.s3',
      '--async-form',
      'resources.publisher.example/RangeGauge',
    ]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': readFileSync(path.join(REPO_ROOT, 'docs/reference-catalog.json'), 'utf8') }, host);
    // The takoform_artifact example uploads a site/ directory beside the configuration.
    writeTree(path.join(ws.dir, 'site'), { 'index.html': '<h1>example</h1>\n', 'css/site.css': 'body { margin: 0 }\n' });
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('covers every resource type of the catalog, the generic type and takoform_artifact', () => {
    const catalog = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/reference-catalog.json'), 'utf8')) as { forms: { typeName: string }[] };
    expect(pages.map((p) => `takoform_${p.replace(/\.md$/, '')}`).sort()).toEqual(
      [...catalog.forms.map((f) => f.typeName), 'takoform_resource', 'takoform_artifact'].sort(),
    );
  });

  it.each(pages)('%s passes tofu validate and tofu plan', async (page) => {
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + exampleOf(page));
    await ws.ok(['validate', '-no-color']);
    const plan = await ws.run(['plan', '-input=false', '-no-color', '-detailed-exitcode']);
    expect(plan.code, `${plan.stdout}\n${plan.stderr}`).toBe(2);
    expect(plan.stdout).toMatch(/Plan: \d+ to add, 0 to change, 0 to destroy/);
  });
});
