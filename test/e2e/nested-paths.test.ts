// Diagnostics on nested attributes point at the right line and speak HCL (issue 13, case 5):
// core places a path only down to a top-level attribute and one index, so the provider sends
// that and writes the full HCL path (`external_services[1].name`) in the text.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const LOCK = readFileSync(path.join(REPO_ROOT, 'docs/reference-catalog.json'), 'utf8');
const PLAN = ['plan', '-input=false', '-no-color'];
const oneLine = (s: string) => s.replace(/\s+/g, ' ');

const counter = (services: string) => `resource "takoform_range_counter_v0_1_0" "c" {
  name  = "nested"
  lower = 1
  upper = 2
  external_services = [
${services}
  ]
}
`;

describe.each(['tofu', 'terraform'] as const)('nested attribute diagnostics through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    // No standard service: a required slot cannot be satisfied.
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-counter')]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK, '.takoform.lock.json': LOCK }, host, 'demo', cli);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });
  const planOf = async (main: string) => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + main);
    return ws.run(PLAN);
  };

  it('a refused element is shown on its element of the list, never on the resource name, with an HCL path and HCL remedy', async () => {
    const r = await planOf(counter('    { name = "OBJECTS", service = { protocol = "com.amazonaws.s3" } },'));
    expect(r.code, r.stdout).toBe(1);
    const text = oneLine(r.stderr);
    expect(text).toMatch(/Host refused: unsupported_capability/);
    // The source line core quotes is the element, not `name  = "nested"`.
    expect(r.stderr).toMatch(/line \d+, in resource[^\n]*\n\W*\d+:\s+\{ name = "OBJECTS", service/);
    expect(r.stderr).not.toMatch(/\d+:\s+name\s+= "nested"/);
    expect(text).toMatch(/external_services\[0\]\.service\.protocol/);
    expect(text).toMatch(/required = false/);
    expect(text).not.toMatch(/"required": false/);
  });

  it("a refused nested `name` is shown on its element, not on the resource's own `name =` line", async () => {
    const slot = (required: boolean) => `    { name = "OBJECTS", required = ${required}, service = { protocol = "com.amazonaws.s3" } },`;
    const r = await planOf(counter(`${slot(false)}\n${slot(true)}`));
    expect(r.code, r.stdout).toBe(1);
    const text = oneLine(r.stderr);
    expect(text).toMatch(/external_services\[1\]\.name/);
    expect(r.stderr).not.toMatch(/\d+:\s+name\s+= "nested"/);
    expect(r.stderr).toMatch(/line \d+, in resource[^\n]*\n\W*\d+:\s+\{ name = "OBJECTS", required = true/);
  });
});
