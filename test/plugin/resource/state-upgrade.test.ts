// The state versions' rewrite on its own (the real CLI's view is test/e2e/state-upgrade.test.ts).
import { describe, expect, it } from 'vitest';
import { RESOURCE_STATE_VERSION, upgradeStateJson, upgradeStateObject } from '../../../src/plugin/resource/state-upgrade.js';

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
    const r = upgradeStateObject(v0, 0);
    expect(r).toEqual({
      state: {
        name: 'x',
        ready: false,
        conditions_json:
          '[{"lastTransitionTime":"2026-12-01T00:00:00Z","message":"waiting","reason":"Provisioning","status":"False","type":"Ready"},' +
          '{"hostReason":"h1","lastTransitionTime":"2026-12-01T00:00:01Z","reason":"ExternalChange","status":"True","type":"Drifted"}]',
      },
    });
  });

  it('keeps an empty list empty and a null null, and leaves a current state as it is', () => {
    expect(upgradeStateObject({ conditions: [] }, 0)).toEqual({ state: { conditions_json: '[]' } });
    expect(upgradeStateObject({ conditions: null }, 0)).toEqual({ state: { conditions_json: null } });
    const current = { conditions_json: '[]', lower: 2 };
    expect(upgradeStateObject(current, RESOURCE_STATE_VERSION)).toEqual({ state: current });
    expect(upgradeStateJson(Buffer.from('null'), 0)).toEqual({ state: null });
  });

  it('keeps every other value exactly, numbers included', () => {
    const r = upgradeStateJson(
      Buffer.from('{"lower":0.1,"upper":9007199254740991,"spec":{"value":{"a":[1.5e300]},"type":["object",{"a":["list","number"]}]},"conditions":[]}'),
      0,
    );
    expect('state' in r && JSON.stringify(r.state)).toBe(
      '{"lower":0.1,"upper":9007199254740991,"spec":{"value":{"a":[1.5e+300]},"type":["object",{"a":["list","number"]}]},"conditions_json":"[]"}',
    );
  });
});
