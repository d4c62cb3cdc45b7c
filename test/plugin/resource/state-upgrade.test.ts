// The state versions' rewrite on its own (the real CLI's view is test/e2e/state-upgrade.test.ts).
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/host-client/index.js';
import { conditionsJson, conditionValues } from '../../../src/plugin/resource/envelope.js';
import {
  NO_FORM_ATTRIBUTES,
  RESOURCE_STATE_VERSION,
  upgradeStateJson,
  upgradeStateObject,
  type StateShape,
} from '../../../src/plugin/resource/state-upgrade.js';

const NONE = NO_FORM_ATTRIBUTES;

describe('upgrading a stored resource state', () => {
  it('turns version 0 conditions into the canonical JSON the provider writes for the same Host answer', () => {
    const v0 = {
      name: 'x',
      conditions: [
        { type: 'Ready', status: 'False', reason: 'Provisioning', message: 'waiting', host_reason: null, last_transition_time: '2026-12-01T00:00:00Z' },
        { type: 'Drifted', status: 'True', reason: 'ExternalChange', message: null, host_reason: 'h1', last_transition_time: '2026-12-01T00:00:01Z' },
      ],
      ready: false,
    };
    const r = upgradeStateObject(v0, 0, NONE);
    expect(r).toEqual({
      state: {
        name: 'x',
        ready: false,
        conditions_json:
          '[{"hostReason":null,"lastTransitionTime":"2026-12-01T00:00:00Z","message":"waiting","reason":"Provisioning","status":"False","type":"Ready"},' +
          '{"hostReason":"h1","lastTransitionTime":"2026-12-01T00:00:01Z","message":null,"reason":"ExternalChange","status":"True","type":"Drifted"}]',
      },
    });
  });

  it('keeps an empty list empty and a null null, and leaves a current state as it is', () => {
    expect(upgradeStateObject({ conditions: [] }, 0, NONE)).toEqual({ state: { conditions_json: '[]' } });
    expect(upgradeStateObject({ conditions: null }, 0, NONE)).toEqual({ state: { conditions_json: null } });
    const current = { conditions_json: '[]', lower: 2 };
    expect(upgradeStateObject(current, RESOURCE_STATE_VERSION, NONE)).toEqual({ state: current });
    expect(upgradeStateJson(Buffer.from('null'), 0, NONE)).toEqual({ state: null });
  });

  it('keeps every other value exactly, numbers included', () => {
    const r = upgradeStateJson(
      Buffer.from('{"lower":0.1,"upper":9007199254740991,"spec":{"value":{"a":[1.5e300]},"type":["object",{"a":["list","number"]}]},"conditions":[]}'),
      0,
      NONE,
    );
    expect('state' in r && JSON.stringify(r.state)).toBe(
      '{"lower":0.1,"upper":9007199254740991,"spec":{"value":{"a":[1.5e+300]},"type":["object",{"a":["list","number"]}]},"conditions_json":"[]"}',
    );
  });

  it('gives, for any conditions, exactly what this version writes from the same Host answer', () => {
    // Version 0 wrote conditionValues(conditions) (still the data source's shape); version 1
    // writes conditionsJson(conditions). The upgrade of the one must be the other, or the first
    // refresh after it would show a change.
    const at = '2026-12-01T00:00:00Z';
    const sets: Condition[][] = [
      [],
      [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: at }],
      [
        { type: 'Ready', status: 'False', reason: 'Provisioning', lastTransitionTime: at, message: 'waiting for "x"\n', hostReason: 'q' },
        { type: 'Drifted', status: 'Unknown', reason: 'ExternalChange', lastTransitionTime: at, message: '' },
        { type: 'Blocked', status: 'True', reason: 'DependencyMissing', lastTransitionTime: '2026-12-01T00:00:00.123+02:00', hostReason: 'ünïcode ✓' },
      ],
    ];
    for (const conditions of sets) {
      const v0 = JSON.parse(JSON.stringify({ conditions: conditionValues(conditions) })) as Record<string, unknown>;
      expect(upgradeStateObject(v0, 0, NONE)).toEqual({ state: { conditions_json: conditionsJson(conditions) } });
    }
  });

  it('moves a Form property that had the name conditions_json to spec_conditions_json', () => {
    const v0 = { conditions_json: 'the Form property', conditions: [] };
    expect(upgradeStateObject(v0, 0, NONE)).toEqual({ state: { spec_conditions_json: 'the Form property', conditions_json: '[]' } });
  });

  it('moves a Form property named outputs to spec_outputs in a version 1 state, and only for a type that has one', () => {
    const property: StateShape = { outputsProperty: true, typedOutputs: false };
    const both: StateShape = { outputsProperty: true, typedOutputs: true };
    const v1 = { name: 'x', outputs: { format: 'json' }, size: 2 };
    expect(upgradeStateObject(v1, 1, property)).toEqual({ state: { name: 'x', spec_outputs: { format: 'json' }, size: 2 } });
    expect(upgradeStateObject(v1, 1, both)).toEqual({ state: { name: 'x', spec_outputs: { format: 'json' }, size: 2, outputs: null } });
    // From version 0, both renames apply.
    expect(upgradeStateObject({ ...v1, conditions: [] }, 0, property)).toEqual({
      state: { name: 'x', spec_outputs: { format: 'json' }, size: 2, conditions_json: '[]' },
    });
    // Typed outputs of a Form without such a property stay where they are.
    const typed = { name: 'x', outputs: { endpoint: 'e' } };
    expect(upgradeStateObject(typed, 1, { outputsProperty: false, typedOutputs: true })).toEqual({ state: typed });
    // A current state already has spec_outputs; nothing moves twice.
    const current = { spec_outputs: { format: 'text' }, outputs: { endpoint: 'e' } };
    expect(upgradeStateObject(current, 1, both)).toEqual({ state: current });
    expect(upgradeStateObject(current, RESOURCE_STATE_VERSION, both)).toEqual({ state: current });
  });

  it('says what it cannot read, in words that follow "cannot be upgraded: "', () => {
    expect(upgradeStateJson(Buffer.from('{"conditions":{}}'), 0, NONE)).toEqual({ problem: 'its `conditions` is not a list' });
    expect(upgradeStateJson(Buffer.from('[1]'), 0, NONE)).toEqual({ problem: 'it is not a JSON object' });
    expect(upgradeStateJson(Buffer.from('{"conditions":[{"type":"Ready"}]}'), 0, NONE)).toEqual({
      problem: 'its `conditions[0]` is not a condition (type, status True, False or Unknown, reason, last_transition_time)',
    });
  });
});
