// Plans a team can always apply (issue 13, docs/resources.md "What a plan checks against the
// Host"), through real tofu and terraform:
// * destroy after a partly failed apply (a never-created ClaimTicket whose claim is held) and
//   destroy after an immutable field changed under a catalog locked without packages;
// * a multi-resource change the Host would refuse against the current state (re-pointing a
//   ConstraintMember that a SameTargetHolder lists) plans with a warning and applies;
// * dependency_in_use at apply names the dependent and the replace_triggered_by recipe;
// * a reference to a target nothing creates is a plan-time note; one this run creates is not;
// * an in-place update does not show what cannot change (outputs_json of a Form without outputs).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const LOCK = readFileSync(path.join(REPO_ROOT, 'docs/reference-catalog.json'), 'utf8');
const APPLY = ['apply', '-auto-approve', '-input=false', '-no-color'];
const PLAN = ['plan', '-input=false', '-no-color'];
const DESTROY = ['destroy', '-auto-approve', '-input=false', '-no-color'];
const oneLine = (s: string) => s.replace(/\s+/g, ' ');

describe.each(['tofu', 'terraform'] as const)('plan-time rules through real %s', (cli) => {
  let host: HostProcess;
  beforeAll(async () => {
    const packages = readdirSync(GENERIC_FORMS, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => path.join(GENERIC_FORMS, e.name));
    host = await startHostProcess(packages, undefined, ['--standard-service', 'com.amazonaws.s3']);
  });
  afterAll(async () => {
    await host?.stop();
  });
  const workspace = async (main: string, lock = LOCK): Promise<TofuWorkspace> => {
    const ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK + main, ...(lock ? { '.takoform.lock.json': lock } : {}) }, host, `plan-${cli}`, cli);
    if (!lock) {
      const r = await ws.provider(['catalog', 'lock']);
      expect(r.code, r.stderr).toBe(0);
    }
    await ws.ok(['init', '-input=false', '-no-color']);
    return ws;
  };

  it('destroy after a partly failed apply: the never-created claimant does not block it', async () => {
    const ticket = (label: string) => `resource "takoform_claim_ticket" "${label}" {\n  name  = "claim-${label}-${cli}"\n  claim = "seat-${cli}"\n}\n`;
    const ws = await workspace(ticket('a') + ticket('b'));
    const applied = await ws.run(APPLY);
    expect(applied.code, applied.stdout).toBe(1);
    expect(oneLine(applied.stderr)).toMatch(/already claimed.*\(claim\)/);
    const plan = await ws.ok(PLAN);
    expect(oneLine(plan.stdout + plan.stderr)).toMatch(/Warning: Checked again at apply: claim/);
    expect(oneLine(plan.stdout + plan.stderr)).toMatch(/apply asks the Host again/);
    const destroyed = await ws.ok(DESTROY);
    expect(destroyed.stdout).toMatch(/1 destroyed/);
  });

  it('takoform_resource: a cross-resource refusal is a plan-time warning too, and destroy works', async () => {
    const ref = (JSON.parse(LOCK) as { forms: { formRef: Record<string, string> }[] }).forms.find((f) => f.formRef.kind === 'ClaimTicket')!.formRef;
    const ticket = (label: string) => `resource "takoform_resource" "${label}" {
  api_version        = "${ref.apiVersion}"
  kind               = "${ref.kind}"
  definition_version = "${ref.definitionVersion}"
  schema_digest      = "${ref.schemaDigest}"
  name               = "gclaim-${label}-${cli}"
  spec               = { claim = "gseat-${cli}" }
}
`;
    const ws = await workspace(ticket('a') + ticket('b'));
    const applied = await ws.run(APPLY);
    expect(applied.code, applied.stdout).toBe(1);
    expect(oneLine(applied.stderr)).toMatch(/already claimed/);
    const text = oneLine((await ws.ok(PLAN)).stdout);
    expect(text).toMatch(/Warning: Checked again at apply: claim/);
    expect(text).toMatch(/with takoform_resource\.(a|b)/);
    const destroyed = await ws.ok(DESTROY);
    expect(destroyed.stdout).toMatch(/1 destroyed/);
  });

  it('an immutable field the catalog did not know is planned as a replacement, and destroy works', async () => {
    const counter = (service: string) =>
      `resource "takoform_range_counter_v0_1_0" "c" {\n  name              = "imm-${cli}"\n  lower             = 1\n  upper             = 2\n  external_services = [{ name = "${service}", service = { protocol = "com.amazonaws.s3" } }]\n}\n`;
    const ws = await workspace(counter('OBJECTS'), '');
    await ws.ok(APPLY);
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + counter('FILES'));
    const plan = await ws.ok(PLAN);
    const text = oneLine(plan.stdout + plan.stderr);
    expect(text).toMatch(/must be replaced/);
    expect(text).toMatch(/Planned as a replacement: the Host says this field is immutable/);
    expect(text).toMatch(/--package/);
    const destroyed = await ws.ok(DESTROY);
    expect(destroyed.stdout).toMatch(/1 destroyed/);
  });

  const family = (through: string, anchor: string, trigger: boolean) => `
resource "takoform_constraint_node" "n1" {
  name = "srt-n1-${cli}"
}
resource "takoform_constraint_node" "n2" {
  name = "srt-n2-${cli}"
}
resource "takoform_constraint_member" "m" {
  name    = "srt-m-${cli}"
  through = takoform_constraint_node.${through}.name
}
resource "takoform_same_target_holder" "h" {
  name    = "srt-h-${cli}"
  anchor  = takoform_constraint_node.${anchor}.name
  members = [takoform_constraint_member.m.name]
${trigger ? '  lifecycle {\n    replace_triggered_by = [takoform_constraint_member.m.uid]\n  }\n' : ''}}
`;

  it('re-pointing a listed member plans with a warning and applies; without the recipe apply names the dependent', async () => {
    const ws = await workspace(family('n1', 'n1', false));
    await ws.ok(APPLY);
    // Without replace_triggered_by: the member's replacement deletes it while the holder pins it.
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + family('n2', 'n2', false));
    const plan = await ws.ok(PLAN);
    const planned = oneLine(plan.stdout + plan.stderr);
    expect(planned).toMatch(/Checked again at apply: sameResolvedTarget/);
    // The holder pins the member this plan replaces: said at plan, on the holder, with the recipe.
    expect(planned).toMatch(/Warning: Refers to a resource this plan replaces/);
    expect(planned).toMatch(/with takoform_same_target_holder\.h/);
    expect(planned).toMatch(/ConstraintMember "srt-m-\S+", which this plan replaces/);
    expect(planned).toMatch(/replace_triggered_by = \[takoform_constraint_member\.<block name>\.uid\]/);
    const refused = await ws.run(APPLY);
    expect(refused.code).toBe(1);
    const text = oneLine(refused.stderr);
    expect(text).toMatch(/Host refused: dependency_in_use/);
    expect(text).toMatch(/SameTargetHolder "srt-h-/);
    expect(text).toMatch(/replace_triggered_by = \[<this resource>\.uid\]/);
    // With the recipe: one plan, one apply, then no changes.
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + family('n2', 'n2', true));
    const recipePlan = oneLine((await ws.ok(PLAN)).stdout);
    expect(recipePlan).toMatch(/takoform_same_target_holder\.h will be replaced due to changes in replace_triggered_by/);
    expect(recipePlan).not.toMatch(/Refers to a resource this plan replaces/);
    await ws.ok(APPLY);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
    await ws.ok(DESTROY);
  });

  it('renaming a listed member: the holder, re-pointed in place, still pins the old one at its delete — said at plan', async () => {
    const config = (member: string) => `
resource "takoform_constraint_node" "n" {
  name = "ren-n-${cli}"
}
resource "takoform_constraint_member" "m" {
  name    = "${member}-${cli}"
  through = takoform_constraint_node.n.name
}
resource "takoform_same_target_holder" "h" {
  name    = "ren-h-${cli}"
  anchor  = takoform_constraint_node.n.name
  members = [takoform_constraint_member.m.name]
}
`;
    const ws = await workspace(config('ren-m1'));
    await ws.ok(APPLY);
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + config('ren-m2'));
    const text = oneLine((await ws.ok(PLAN)).stdout);
    expect(text).toMatch(/takoform_same_target_holder\.h will be updated in-place/);
    expect(text).toMatch(/Warning: Refers to a resource this plan replaces/);
    expect(text).toMatch(/ConstraintMember "ren-m1-\S+", which this plan replaces/);
    await ws.ok(DESTROY);
  });

  it('notes a reference to a target that nothing creates; not one this run creates', async () => {
    const main = `
resource "takoform_range_sequence" "t" {
  name  = "ref-seq-${cli}"
  lower = 1
  upper = 3
}
resource "takoform_counter_reservation" "made" {
  name   = "ref-made-${cli}"
  target = takoform_range_sequence.t.name
}
resource "takoform_counter_reservation" "dangling" {
  name   = "ref-dangling-${cli}"
  target = "nowhere-${cli}"
}
# A target whose spec is known only at apply is still created by this run.
resource "terraform_data" "lower" {
  input = 2
}
resource "takoform_range_sequence" "later" {
  name  = "ref-later-${cli}"
  lower = terraform_data.lower.output
  upper = 4
}
resource "takoform_counter_reservation" "on_later" {
  name   = "ref-on-later-${cli}"
  target = takoform_range_sequence.later.name
}
`;
    const ws = await workspace(main);
    const plan = await ws.ok(PLAN);
    const text = oneLine(plan.stdout + plan.stderr);
    expect(text.match(/Warning: Reference to a resource that does not exist/g)).toHaveLength(1);
    // Both CLIs fold warnings of one summary into the first ("and one more similar warning").
    expect(text).not.toMatch(/similar warning/);
    expect(text).not.toMatch(/RangeSequence "ref-later-/);
    expect(text).toMatch(/RangeSequence "nowhere-/);
    expect(text).toMatch(/with takoform_counter_reservation\.dangling/);
  });

  it('an in-place update of a Form without outputs keeps outputs_json known, and applies consistently', async () => {
    const seq = (upper: number) => `resource "takoform_range_sequence" "s" {\n  name  = "quiet-${cli}"\n  lower = 1\n  upper = ${upper}\n}\n`;
    const ws = await workspace(seq(2));
    await ws.ok(APPLY);
    writeFileSync(path.join(ws.dir, 'main.tf'), PROVIDER_BLOCK + seq(3));
    const plan = await ws.ok(PLAN);
    expect(plan.stdout).toMatch(/1 to change/);
    expect(plan.stdout).not.toMatch(/outputs_json/);
    // generation and revision do move with a spec change: still unknown.
    expect(plan.stdout).toMatch(/generation\s+= "1" -> \(known after apply\)/);
    await ws.ok(APPLY);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
    await ws.ok(DESTROY);
  });
});
