import { describe, expect, it } from 'vitest';
import { checkInvariants, emptyModel, renderConfig } from './harness.js';

// The invariant checker must be able to fail, or a green soak proves nothing.
describe('soak invariants', () => {
  it('names orphans, uid mismatches, lost resources and configuration drift', () => {
    const model = emptyModel();
    model.sequences.set('seq-0', { lower: 1, upper: 10 });
    model.sequences.set('seq-1', { lower: 1, upper: 10 });
    const host = new Map([
      ['sequence/seq-0', 'res_a'],
      ['sequence/seq-1', 'res_host'],
      ['sequence/seq-9', 'res_orphan'],
    ]);
    const state = new Map([
      ['sequence/seq-0', 'res_a'],
      ['sequence/seq-1', 'res_state'],
      ['reservation/res-0', 'res_lost'],
    ]);
    const problems = checkInvariants('cycle 1', model, host, state);
    expect(problems).toEqual([
      'cycle 1: sequence/seq-1 has uid res_state in state but res_host on the Host',
      'cycle 1: sequence/seq-9 exists on the Host (uid res_orphan) but not in state (orphan)',
      'cycle 1: reservation/res-0 is in state (uid res_lost) but not on the Host (lost)',
      'cycle 1: reservation/res-0 is in state but no longer configured after convergence',
    ]);
    expect(
      checkInvariants(
        'cycle 2',
        model,
        new Map(host).set('sequence/seq-1', 'res_state'),
        new Map([...state].filter(([k]) => !k.startsWith('res'))).set('sequence/seq-9', 'res_orphan'),
      ),
    ).toEqual(['cycle 2: sequence/seq-9 is in state but no longer configured after convergence']);
  });

  it('renders references so core orders reservations after their targets, across both kinds', () => {
    const model = emptyModel();
    model.sequences.set('seq-2', { lower: 0, upper: 12 });
    model.sequences.set('seq-3', { lower: 0, upper: 5 });
    model.reservations.set('res-1', { target: 'seq-2' });
    model.reservations.set('res-2', { target: 'seq-3' });
    const hcl = renderConfig(model);
    // Even names typed, odd names generic, and references between them both ways.
    expect(hcl).toMatch(/resource "takoform_range_sequence" "seq-2"/);
    expect(hcl).toMatch(/resource "takoform_resource" "seq-3" \{[^}]*kind {15}= "RangeSequence"[\s\S]*?spec {15}= \{ lower = 0, upper = 5 \}/);
    expect(hcl).toMatch(/resource "takoform_resource" "res-1" \{[\s\S]*?name = takoform_range_sequence\.seq-2\.name/);
    expect(hcl).toMatch(/resource "takoform_counter_reservation" "res-2" \{[\s\S]*?target = takoform_resource\.seq-3\.name/);
  });
});
