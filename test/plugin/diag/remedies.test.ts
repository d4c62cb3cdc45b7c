// Every Host code a diagnostic can carry has a remedy a person can act on: the table is a total
// record (the compiler checks it), and this test checks it against the frozen route table.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REMEDY } from '../../../src/plugin/diag/host-diagnostics.js';

const OPERATIONS = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/data/takoform/spec/host-api/operations-v1.json'), 'utf8')) as {
  errorEnvelope: { codes: string[] };
};

describe('remedies', () => {
  it('has one for every code of operations-v1.json, and no other', () => {
    expect(Object.keys(REMEDY).sort()).toEqual([...OPERATIONS.errorEnvelope.codes].sort());
    for (const [code, text] of Object.entries(REMEDY)) expect(text.length, code).toBeGreaterThan(20);
  });
});
