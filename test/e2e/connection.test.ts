// Connection and authentication failures are reported once per command, where the provider
// is configured, in words a person understands (issue 13, case 6); validate stays offline.
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
const MAIN = [1, 2, 3].map((i) => `resource "takoform_range_sequence" "s${i}" {\n  name  = "conn-${i}"\n  lower = 1\n  upper = 2\n}\n`).join('');

describe.each(['tofu', 'terraform'] as const)('connection failures through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  beforeAll(async () => {
    host = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK + MAIN, '.takoform.lock.json': LOCK }, host, 'demo', cli);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });
  const errors = (stderr: string) => stderr.match(/^Error: /gm) ?? [];

  it('an unknown token: one error naming the token', async () => {
    const r = await ws.run(PLAN, { TAKOFORM_TOKEN: 'not-a-token-of-this-host' });
    expect(r.code).toBe(1);
    expect(errors(r.stderr)).toHaveLength(1);
    expect(oneLine(r.stderr)).toMatch(/Error: Host does not know this token/);
  });

  it('https:// against a plain-HTTP Host: one error saying to use http://', async () => {
    const r = await ws.run(PLAN, { TAKOFORM_ENDPOINT: host.url.replace(/^http:/, 'https:') });
    expect(r.code).toBe(1);
    expect(errors(r.stderr)).toHaveLength(1);
    expect(oneLine(r.stderr)).toMatch(/Error: Host does not speak HTTPS.*write the endpoint with http:\/\//);
  });

  it('a stopped Host: one error saying nothing accepts connections; validate still works offline', async () => {
    const stopped = await startHostProcess([path.join(GENERIC_FORMS, 'range-sequence')]);
    await stopped.stop();
    const r = await ws.run(PLAN, { TAKOFORM_ENDPOINT: stopped.url });
    expect(r.code).toBe(1);
    expect(errors(r.stderr)).toHaveLength(1);
    expect(oneLine(r.stderr)).toMatch(/Error: Host refused the connection.*not running there/);
    const v = await ws.run(['validate', '-no-color'], { TAKOFORM_ENDPOINT: stopped.url });
    expect(v.code, v.stderr).toBe(0);
  });
});
