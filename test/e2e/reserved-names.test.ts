// Form properties whose names the provider cannot give to an attribute as they are, through
// real tofu and terraform: a property `outputs` of a Form that also has typed outputs is
// `spec_outputs` (and was a clash before state version 2), an older state that held it under
// `outputs` is upgraded without a change, and a Form whose properties become one attribute
// name is left out of the lock with a warning instead of one value going to both. Beside
// them, the attributes the provider alone sets: a configured value is refused, not ignored.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOURCE_STATE_VERSION } from '../../src/plugin/resource/state-upgrade.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { HostApi, type FormRefLike } from '../support/host-api.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { REPO_ROOT } from '../support/paths.js';
import { instancesOf, rewriteInstances } from '../support/state-file.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/synthetic-forms');
const NAMED = path.join(FIXTURES, 'named-outputs');
const CLASHING = path.join(FIXTURES, 'clashing-names');
const refOf = (dir: string): FormRefLike => JSON.parse(readFileSync(path.join(dir, 'package-index.json'), 'utf8')).formRef;
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];
const PLAN = ['plan', '-detailed-exitcode', '-input=false', '-no-color'];

/** Two resources of the Form; the second reads the first's property and, with `typed`, its typed outputs. */
const namedHcl = (prefix: string, typed: boolean) => `resource "takoform_named_outputs" "first" {
  name         = "${prefix}first"${typed ? '\n  spec_name    = "inner-first"' : ''}
  spec_outputs = { format = "json", retain = 3 }
  size         = 2
}
resource "takoform_named_outputs" "second" {
  name         = "${prefix}second"
  spec_outputs = { format = takoform_named_outputs.first.spec_outputs.format }
  size         = takoform_named_outputs.first.${typed ? 'outputs.size' : 'size'} + 1
}
${typed ? 'output "first_endpoint" {\n  value = takoform_named_outputs.first.outputs.endpoint\n}\n' : ''}`;
const NAMED_HCL = namedHcl('', true);
const PLAIN_HCL = namedHcl('plain-', false);

/** Rewrites the instances of `type` as a state of version 1 held them: the property under `outputs`. */
function rewriteAsVersion1(file: string, type: string): void {
  rewriteInstances(
    file,
    (t) => t === type,
    (i) => {
      const { spec_outputs: property, outputs: _typed, ...rest } = i.attributes;
      i.schema_version = 1;
      i.attributes = { ...rest, outputs: property };
    },
  );
}

describe.each(['tofu', 'terraform'] as const)('Form properties named like provider attributes, through real %s', (cli) => {
  let host: HostProcess;
  let api: HostApi;
  let ws: TofuWorkspace;
  let lockStderr = '';
  const stateFile = () => path.join(ws.dir, 'terraform.tfstate');
  const write = (hcl: string) => writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + hcl);
  beforeAll(async () => {
    host = await startHostProcess([NAMED, CLASHING]);
    api = new HostApi(host.url, host.token);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host, 'demo', cli);
    const lock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', '--package', NAMED, '--package', CLASHING]);
    expect(lock.code, lock.stderr).toBe(0);
    lockStderr = lock.stderr;
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('leaves out of the lock, with a warning that says why and what to use, a Form whose properties become one attribute', () => {
    expect(lockStderr).toContain('synthetic.forms.example/ClashingNames');
    expect(lockStderr).toContain('the properties `retryLimit` and `retry_limit` both become the attribute `retry_limit`');
    expect(lockStderr).toContain('takoform_resource');
    const types = (JSON.parse(readFileSync(path.join(ws.dir, '.takoform.lock.json'), 'utf8')) as { forms: { typeName: string }[] }).forms.map(
      (f) => f.typeName,
    );
    expect(types).toEqual(['takoform_named_outputs']);
  });

  it('gives a property `outputs` the attribute spec_outputs beside the typed outputs, which other resources read', async () => {
    write(NAMED_HCL);
    const applied = await ws.ok(APPLY);
    const first = (await api.read(refOf(NAMED), 'first')).body;
    expect(first.spec).toEqual({ outputs: { format: 'json', retain: 3 }, name: 'inner-first', size: 2 });
    expect((await api.read(refOf(NAMED), 'second')).body.spec).toEqual({ outputs: { format: 'json' }, size: 3 });
    const state = instancesOf(stateFile())['takoform_named_outputs.first']!;
    expect(state.schema_version).toBe(RESOURCE_STATE_VERSION);
    expect(state.attributes.spec_outputs).toEqual({ format: 'json', retain: 3 });
    expect(state.attributes.outputs).toEqual(first.status.outputs);
    expect(first.status.outputs.size).toBe(2);
    expect(applied.stdout).toContain(`first_endpoint = "${first.status.outputs.endpoint}"`);
    expect((await ws.run(PLAN)).code).toBe(0);
  });

  it('refuses a configuration that sets the typed outputs or another read-only attribute, naming the block and the attribute', async () => {
    // Neither CLI refuses these itself: before, both planned "no changes" and ignored them.
    write(NAMED_HCL.replace('size         = 2', 'size         = 2\n  outputs      = { endpoint = "mine", size = 2 }\n  uid          = "res_mine"'));
    try {
      const r = await ws.run(PLAN);
      expect(r.code).toBe(1);
      const said = r.stderr.replace(/\s+/g, ' ');
      expect(said.match(/Read-only attribute set in the configuration/g)).toHaveLength(2);
      expect(said).toContain('in resource "takoform_named_outputs" "first"');
      expect(said).toContain('takoform_named_outputs: `outputs` is set by the provider from the Host');
      expect(said).toContain('Remove `uid` from the configuration');
    } finally {
      write(NAMED_HCL);
    }
  });

  it('upgrades a version 1 state that held the property under `outputs`: no change, typed outputs read again', async () => {
    const before = instancesOf(stateFile());
    const revision = (await api.read(refOf(NAMED), 'first')).body.metadata.revision;
    rewriteAsVersion1(stateFile(), 'takoform_named_outputs');
    const p = await ws.run(PLAN);
    expect(p.code, p.stdout + p.stderr).toBe(0);
    await ws.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
    const after = instancesOf(stateFile());
    for (const address of ['takoform_named_outputs.first', 'takoform_named_outputs.second']) {
      expect(after[address]!.schema_version).toBe(RESOURCE_STATE_VERSION);
      expect(after[address]!.attributes).toEqual(before[address]!.attributes);
    }
    expect((await api.read(refOf(NAMED), 'first')).body.metadata.revision).toBe(revision);
  });

  it('upgrades it the same where the lock had no output schema, the one case in which version 1 worked', async () => {
    // Locked without the package: the Form has no typed outputs, and version 1 named the
    // property `outputs`.
    const other = createWorkspace({ 'main.tf': PROVIDER_BLOCK + PLAIN_HCL }, host, 'demo', cli);
    const lock = await other.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo']);
    expect(lock.code, lock.stderr).toBe(0);
    await other.ok(['init', '-input=false', '-no-color']);
    await other.ok(APPLY);
    const file = path.join(other.dir, 'terraform.tfstate');
    const before = instancesOf(file);
    expect(before['takoform_named_outputs.first']!.attributes.outputs).toBeUndefined();
    rewriteAsVersion1(file, 'takoform_named_outputs');
    expect(instancesOf(file)['takoform_named_outputs.first']!.attributes.outputs).toEqual({ format: 'json', retain: 3 });
    const p = await other.run(PLAN);
    expect(p.code, p.stdout + p.stderr).toBe(0);
    await other.ok(['apply', '-refresh-only', '-auto-approve', '-input=false', '-no-color']);
    const after = instancesOf(file);
    expect(after['takoform_named_outputs.first']!.schema_version).toBe(RESOURCE_STATE_VERSION);
    expect(after['takoform_named_outputs.first']!.attributes).toEqual(before['takoform_named_outputs.first']!.attributes);
    await other.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });

  it('manages the left-out Form through takoform_resource, both properties kept as they are', async () => {
    const ref = refOf(CLASHING);
    write(`${NAMED_HCL}resource "takoform_resource" "clash" {
  api_version        = "${ref.apiVersion}"
  kind               = "${ref.kind}"
  definition_version = "${ref.definitionVersion}"
  schema_digest      = "${ref.schemaDigest}"
  name               = "clash"
  spec               = { retryLimit = 1, retry_limit = 2, label = "kept" }
}
`);
    await ws.ok(APPLY);
    expect((await api.read(ref, 'clash')).body.spec).toEqual({ retryLimit: 1, retry_limit: 2, label: 'kept' });
    expect((await ws.run(PLAN)).code).toBe(0);
    await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
  });

  it('explains an entry an earlier lock wrote for such a Form: an error where a block uses it, a warning elsewhere, gone at the next lock', async () => {
    const lockFile = path.join(ws.dir, '.takoform.lock.json');
    const locked = readFileSync(lockFile, 'utf8');
    const catalog = JSON.parse(locked) as { forms: Record<string, unknown>[] };
    const definition = JSON.parse(readFileSync(path.join(CLASHING, 'definition.json'), 'utf8'));
    // What the earlier release's lock wrote for it.
    catalog.forms.unshift({
      typeName: 'takoform_clashing_names',
      formRef: refOf(CLASHING),
      title: definition.title,
      operations: ['create', 'delete', 'import', 'read', 'update'],
      immutableFields: [],
      role: 'identity',
      packageVerified: true,
      desiredSchema: definition.desiredSchema,
    });
    writeFileSync(lockFile, JSON.stringify(catalog, null, 2));
    write(`${NAMED_HCL}resource "takoform_clashing_names" "c" {
  name        = "c"
  retry_limit = 1
}
`);
    const refused = await ws.run(PLAN);
    expect(refused.code).toBe(1);
    const said = refused.stderr.replace(/\s+/g, ' ');
    expect(said).toContain('Form without a typed resource type');
    expect(said).toContain('the properties `retryLimit` and `retry_limit` both become the attribute `retry_limit`');
    expect(said).toContain('The configuration uses it (main.tf:');
    expect(said).toContain('state rm takoform_clashing_names.NAME');
    expect(said).toContain(`id = "${refOf(CLASHING).apiVersion}/ClashingNames/0.1.0/${refOf(CLASHING).schemaDigest}/SPACE/RESOURCE_NAME"`);
    expect(said).not.toContain(host.token);
    write(NAMED_HCL);
    // Not used: every other type works (Terraform may drop a schema warning: catalog-hints.ts).
    const planned = await ws.run(['plan', '-input=false', '-no-color']);
    expect(planned.code, planned.stderr).toBe(0);
    if (cli === 'tofu') expect(planned.stdout + planned.stderr).toContain('Form without a typed resource type');
    const relock = await ws.provider(['catalog', 'lock', '--endpoint', host.url, '--space', 'demo', '--package', NAMED, '--package', CLASHING]);
    expect(relock.code, relock.stderr).toBe(0);
    expect(readFileSync(lockFile, 'utf8')).toBe(locked);
  });
});
