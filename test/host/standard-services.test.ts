// Standard-service slots: discovery in the schema, collection from a spec, satisfiability.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostError } from '../../src/host/errors.js';
import { assertSlotsSatisfiable, collectSlots, findSlotArrays } from '../../src/host/standard-services.js';
import { RANGE_COUNTER_DIR } from './support/host-harness.js';

const service = (protocol: string) => ({ apiVersion: 'standards.takoform.com/v1', protocol });

describe('standard-service slots', () => {
  const definition = JSON.parse(readFileSync(path.join(RANGE_COUNTER_DIR, 'definition.json'), 'utf8'));
  const arrays = findSlotArrays(definition.desiredSchema);

  it('finds the annotated array of RangeCounter', () => {
    expect(arrays).toEqual(['/externalServices']);
  });

  it('collects slots with required defaulting to true', () => {
    const slots = collectSlots(arrays, {
      externalServices: [
        { name: 'A', service: service('com.amazonaws.s3') },
        { name: 'B', service: service('x.y.z'), required: false },
      ],
    });
    expect(slots).toEqual([
      { pointer: '/externalServices/0', name: 'A', protocol: 'com.amazonaws.s3', required: true },
      { pointer: '/externalServices/1', name: 'B', protocol: 'x.y.z', required: false },
    ]);
  });

  it('refuses a required unsatisfiable slot and a repeated slot name', () => {
    const satisfiable = new Set(['com.amazonaws.s3']);
    const slots = collectSlots(arrays, { externalServices: [{ name: 'A', service: service('com.example.future-store') }] });
    expect(() => assertSlotsSatisfiable(slots, satisfiable, '/spec')).toThrow(HostError);
    try {
      assertSlotsSatisfiable(slots, satisfiable, '/spec');
    } catch (error) {
      expect((error as HostError).code).toBe('unsupported_capability');
      expect((error as HostError).details).toEqual({ pointer: '/spec/externalServices/0/service/protocol' });
    }
    const twice = collectSlots(arrays, {
      externalServices: [
        { name: 'A', service: service('com.amazonaws.s3') },
        { name: 'A', service: service('com.amazonaws.s3') },
      ],
    });
    expect(() => assertSlotsSatisfiable(twice, satisfiable, '/spec')).toThrow(/used twice/);
  });
});
