// Values of no one fixed type — free-form objects and arrays, oneOf/anyOf, untyped schemas and
// such values nested in closed objects and lists — must reach the Host exactly as written (JSON
// type included), come back into state unchanged, and re-plan clean: never coerced to strings
// by a Terraform map or list of one element type, never a phantom update. Through real tofu
// and terraform, on the synthetic Forms of test/fixtures/synthetic-forms.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/synthetic-forms');
const PACKAGES = ['free-form-settings', 'mixed-shapes'].map((d) => path.join(FIXTURES, d));
const refOf = (dir: string): FormRefLike => JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8')).formRef;
const [SETTINGS, MIXED] = PACKAGES.map(refOf) as [FormRefLike, FormRefLike];
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];

const SETTINGS_HCL = (port: string) => `resource "takoform_free_form_settings" "s" {
  name        = "settings"
  environment = { LEVEL = "debug", PORT = ${port}, DEBUG = true, NOTHING = null, NESTED = { list = [1, "two", false], deeper = { x = 1.5 } } }
  labels      = { team = "core", tier = "1" }
  args        = ["--port", 8080, true, { k = "v" }, [1, 2]]
  metadata = {
    owner       = "me"
    annotations = { count = 3, ok = true, name = "x" }
  }
}
`;

const MIXED_HCL = (threshold: string) => `resource "takoform_mixed_shapes" "m" {
  name      = "mixed"
  threshold = ${threshold}
  selector  = ["a", "b"]
  anything  = { deep = [{ x = 1 }, "y", null] }
  rules = [
    { match = "a", with = { p = 1, q = ["r"] } },
    { match = "b", with = { s = "t" } },
  ]
  limits = { cpu = 2, memory = 512 }
}
`;

describe.each(['tofu', 'terraform'] as const)('free-form values through real %s', (cli) => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  let api: HostApi;
  beforeAll(async () => {
    host = await startHostProcess(PACKAGES);
    api = new HostApi(host.url, host.token);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    // The catalog comes from the Host and the packages, like a user writes it.
    const lock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', ...PACKAGES.flatMap((p) => ['--package', p])]);
    expect(lock.code, lock.stderr).toBe(0);
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  const write = (hcl: string) => writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + hcl);

  it('sends every value with its JSON type, stores it back unchanged, and re-plans clean', async () => {
    write(SETTINGS_HCL('8080') + MIXED_HCL('5'));
    await ws.ok(APPLY);
    const settings = (await api.read(SETTINGS, 'settings')).body.spec;
    expect(settings.environment).toEqual({ LEVEL: 'debug', PORT: 8080, DEBUG: true, NOTHING: null, NESTED: { list: [1, 'two', false], deeper: { x: 1.5 } } });
    expect(settings.labels).toEqual({ team: 'core', tier: '1' });
    expect(settings.args).toEqual(['--port', 8080, true, { k: 'v' }, [1, 2]]);
    expect(settings.metadata).toEqual({ owner: 'me', annotations: { count: 3, ok: true, name: 'x' } });
    const mixed = (await api.read(MIXED, 'mixed')).body.spec;
    expect(mixed).toEqual({
      threshold: 5,
      selector: ['a', 'b'],
      anything: { deep: [{ x: 1 }, 'y', null] },
      rules: [
        { match: 'a', with: { p: 1, q: ['r'] } },
        { match: 'b', with: { s: 't' } },
      ],
      limits: { cpu: 2, memory: 512 },
      mode: 'a',
    });
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
  });

  it('plans a change of JSON type as a change, applies it, and converges', async () => {
    write(SETTINGS_HCL('"8080"') + MIXED_HCL('"auto"'));
    const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/2 to change/);
    await ws.ok(APPLY);
    expect((await api.read(SETTINGS, 'settings')).body.spec.environment.PORT).toBe('8080');
    expect((await api.read(MIXED, 'mixed')).body.spec.threshold).toBe('auto');
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
  });

  it('refreshes an out-of-band change of type as drift and puts it back', async () => {
    const current = (await api.read(SETTINGS, 'settings')).body;
    await api.put(SETTINGS, 'settings', { ...current.spec, environment: { ...current.spec.environment, PORT: 9090 } }, current.metadata.generation);
    const plan = await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color']);
    expect(plan.code).toBe(2);
    await ws.ok(APPLY);
    expect((await api.read(SETTINGS, 'settings')).body.spec.environment.PORT).toBe('8080');
    await ws.ok(['plan', '-detailed-exitcode', '-input=false', '-no-color'], 0);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });
});
