// The whole generic external family through real tofu: catalog lock over 20 verified
// packages (kinds in two groups, two definition versions side by side), references that
// order resources, typed outputs, an asynchronous (202) Form, every declared constraint kind
// refused with a clear diagnostic, and dependency_in_use when a target is still referenced.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { GENERIC_FORMS, REPO_ROOT } from '../support/paths.js';
import { PROVIDER_BLOCK } from '../support/hcl.js';
import { createWorkspace, type TofuWorkspace } from '../support/tofu.js';

const BASE = `
resource "takoform_range_sequence" "t" {
  name  = "fam-seq"
  lower = 1
  upper = 3
}
resource "takoform_counter_reservation" "r" {
  name   = "fam-reservation"
  target = takoform_range_sequence.t.name
}
resource "takoform_range_counter_v0_1_0" "old" {
  name  = "fam-counter-old"
  lower = 1
  upper = 2
}
resource "takoform_range_counter_v0_2_0" "new" {
  name = "fam-counter-new"
}
resource "takoform_range_gauge_resources" "async" {
  name  = "fam-gauge"
  lower = 1
  upper = 5
}
resource "takoform_weighted_set" "w" {
  name    = "fam-weights"
  weights = [{ weight = 60 }, { weight = 40 }]
}
resource "takoform_assigned_counter" "a" {
  name  = "fam-assigned"
  label = "first"
}
resource "takoform_claim_ticket" "c" {
  name  = "fam-claim"
  claim = "ticket-1"
}
resource "takoform_constraint_node" "n1" {
  name = "fam-node-1"
}
resource "takoform_constraint_node" "n2" {
  name = "fam-node-2"
  next = takoform_constraint_node.n1.name
}
resource "takoform_unique_pair_holder_v0_1_0" "p" {
  name  = "fam-pair"
  left  = takoform_constraint_node.n1.name
  right = takoform_constraint_node.n2.name
}
resource "takoform_structural_constraint_holder" "s" {
  name  = "fam-structural"
  lower = 1
  upper = 2
  rows  = [{ key = "a", value = 1 }, { key = "b", value = 2 }]
}
output "assigned" {
  value = takoform_assigned_counter.a.outputs
}
`;

// One configuration per constraint kind that the Host must refuse.
const VIOLATIONS: Record<string, string> = {
  exclusive: `resource "takoform_counter_reservation" "bad" {\n  name   = "fam-reservation-2"\n  target = takoform_range_sequence.t.name\n}\n`,
  sum: `resource "takoform_weighted_set" "bad" {\n  name    = "fam-weights-bad"\n  weights = [{ weight = 60 }, { weight = 30 }]\n}\n`,
  claim: `resource "takoform_claim_ticket" "bad" {\n  name  = "fam-claim-2"\n  claim = "ticket-1"\n}\n`,
  hostAssigned: `resource "takoform_assigned_counter" "bad" {\n  name          = "fam-assigned-bad"\n  label         = "x"\n  assigned_name = "mine"\n}\n`,
  orderedPair: `resource "takoform_range_counter_v0_1_0" "bad" {\n  name  = "fam-counter-bad"\n  lower = 5\n  upper = 1\n}\n`,
  uniqueBy: `resource "takoform_structural_constraint_holder" "bad" {\n  name  = "fam-structural-bad"\n  lower = 1\n  upper = 2\n  rows  = [{ key = "a", value = 1 }, { key = "a", value = 2 }]\n}\n`,
  // n2 already points at n1; pointing n1 back at n2 closes a cycle.
  acyclic: `resource "takoform_constraint_node" "loop" {\n  name = "fam-node-3"\n  next = takoform_constraint_node.n2.name\n}\n# LOOP: n1.next = fam-node-3\n`,
  distinctPair: `resource "takoform_distinct_pair_holder" "bad" {\n  name  = "fam-distinct-bad"\n  left  = takoform_constraint_node.n1.name\n  right = takoform_constraint_node.n1.name\n}\n`,
  uniquePair: `resource "takoform_unique_pair_holder_v0_1_0" "bad" {\n  name  = "fam-pair-2"\n  left  = takoform_constraint_node.n1.name\n  right = takoform_constraint_node.n2.name\n}\n`,
  sameResolvedTarget: `resource "takoform_constraint_member" "m" {\n  name    = "fam-member"\n  through = takoform_constraint_node.n2.name\n}\nresource "takoform_same_target_holder" "bad" {\n  name    = "fam-same-bad"\n  anchor  = takoform_constraint_node.n1.name\n  members = [takoform_constraint_member.m.name]\n}\n`,
};

describe('the generic external family through real tofu', () => {
  let host: HostProcess;
  let ws: TofuWorkspace;
  const write = (name: string, body: string) => writeFileSync(path.join(ws.dir, name), body);
  const oneLine = (s: string) => s.replace(/\s+/g, ' ');

  beforeAll(async () => {
    host = await startHostProcess([GENERIC_FORMS], undefined, [
      '--standard-service',
      'com.amazonaws.s3',
      '--async-form',
      'resources.publisher.example/RangeGauge',
    ]);
    ws = createWorkspace({ 'main.tf': PROVIDER_BLOCK }, host);
    const packages = readdirSync(GENERIC_FORMS, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => ['--package', path.join(GENERIC_FORMS, e.name)]);
    const lock = await ws.provider(['catalog', 'lock', ...packages]);
    expect(lock.code, lock.stderr).toBe(0);
    // The docs are generated from this very catalog; it must not drift from the Host's.
    expect(readFileSync(path.join(ws.dir, '.takoform.lock.json'), 'utf8')).toBe(readFileSync(path.join(REPO_ROOT, 'docs/reference-catalog.json'), 'utf8'));
    await ws.ok(['init', '-input=false', '-no-color']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('locks one resource type per exact Form, disambiguating groups and versions', async () => {
    const r = await ws.ok(['providers', 'schema', '-json']);
    const types = Object.keys(JSON.parse(r.stdout).provider_schemas['registry.takoform.dev/takoform/takoform'].resource_schemas).sort();
    expect(types.filter((t) => t !== 'takoform_resource' && t !== 'takoform_artifact')).toHaveLength(20);
    expect(types).toContain('takoform_artifact');
    expect(types).toContain('takoform_resource');
    for (const t of [
      'takoform_range_gauge_records',
      'takoform_range_gauge_resources',
      'takoform_range_counter_v0_1_0',
      'takoform_range_counter_v0_2_0',
      'takoform_counter_lease_v0_1_0',
      'takoform_counter_lease_v0_2_0',
    ]) {
      expect(types).toContain(t);
    }
  });

  it('applies a configuration using references, two versions side by side, outputs and a 202 Form; then no changes', async () => {
    write('main.tf', PROVIDER_BLOCK + BASE);
    const r = await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/12 added, 0 changed, 0 destroyed/);
    const out = JSON.parse((await ws.ok(['output', '-json'])).stdout);
    expect(out.assigned.value.assigned_name).toMatch(/^[a-z0-9.-]+$/);
    expect(out.assigned.value.ordinal).toBeGreaterThanOrEqual(1);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  it('updates and keeps the asynchronous (202) Form converged', async () => {
    write('main.tf', PROVIDER_BLOCK + BASE.replace('upper = 5', 'upper = 6'));
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
  });

  for (const [kind, body] of Object.entries(VIOLATIONS)) {
    it(`refuses a ${kind} violation with a diagnostic that names the resource and the Host code`, async () => {
      let r;
      try {
        write('violation.tf', body);
        if (body.includes('# LOOP')) {
          // Two steps: first create fam-node-3 -> n2 -> n1, then point n1 at fam-node-3.
          await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
          write(
            'main.tf',
            PROVIDER_BLOCK +
              BASE.replace(
                'resource "takoform_constraint_node" "n1" {\n  name = "fam-node-1"\n}',
                'resource "takoform_constraint_node" "n1" {\n  name = "fam-node-1"\n  next = "fam-node-3"\n}',
              ),
          );
        }
        r = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
      } finally {
        rmSync(path.join(ws.dir, 'violation.tf'));
        write('main.tf', PROVIDER_BLOCK + BASE);
      }
      expect(r.code, r.stdout).toBe(1);
      const text = oneLine(r.stderr);
      expect(text).toMatch(/Host refused: (invalid_argument|generation_conflict)|Value not allowed by the Form/);
      expect(text).toMatch(/with takoform_[a-z0-9_]+\.(bad|n1)/);
      // Back to the base configuration: converges, then plans no changes.
      await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
      expect((await ws.run(['plan', '-detailed-exitcode', '-input=false', '-no-color'])).code).toBe(0);
    });
  }

  it('explains dependency_in_use when a target is removed while something still refers to it', async () => {
    const literal = BASE.replace('target = takoform_range_sequence.t.name', 'target = "fam-seq"').replace(
      /resource "takoform_range_sequence" "t" \{[^}]*\}/,
      '',
    );
    write('main.tf', PROVIDER_BLOCK + literal);
    const r = await ws.run(['apply', '-auto-approve', '-input=false', '-no-color']);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/Host refused: dependency_in_use/);
    expect(oneLine(r.stderr)).toMatch(/Other resources still refer to this one/);
    write('main.tf', PROVIDER_BLOCK + BASE);
    await ws.ok(['apply', '-auto-approve', '-input=false', '-no-color']);
  });

  it('destroys everything in dependency order', async () => {
    const r = await ws.ok(['destroy', '-auto-approve', '-input=false', '-no-color']);
    expect(r.stdout).toMatch(/12 destroyed/);
  });
});
