// Update rules besides fences: revision role (A17), the update capability, immutableFields.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jcsDigest } from '../../../src/common/digest.js';
import { FormCatalog, type InstalledForm } from '../../../src/host/catalog.js';
import { HostError } from '../../../src/host/errors.js';
import { readFormDefinition } from '../../../src/host/form-definition.js';
import type { JsonObject } from '../../../src/common/json-value.js';
import { assertUpdatePermitted } from '../../../src/host/resources/update-rules.js';
import type { StoredResource } from '../../../src/host/store/store.js';
import { EXTERNAL_FAMILY, RANGE_COUNTER_DIR, RANGE_SEQUENCE_DIR } from '../support/host-harness.js';

/** Installs the Definition in `directory`, optionally edited (digests are not re-checked here). */
function install(directory: string, edit: (document: JsonObject) => void = () => {}): InstalledForm {
  const document = JSON.parse(readFileSync(path.join(directory, 'definition.json'), 'utf8')) as JsonObject;
  edit(document);
  const definition = readFormDefinition(document);
  const formRef = {
    apiVersion: definition.apiVersion,
    kind: definition.kind,
    definitionVersion: definition.definitionVersion,
    schemaDigest: jcsDigest(document),
  };
  return FormCatalog.install([{ directory, formRef, packageDigest: jcsDigest({}), definition }]).all()[0];
}

function stored(form: InstalledForm, spec: JsonObject): StoredResource {
  return {
    address: { tenant: 't', space: 's', group: form.formRef.apiVersion, kind: form.formRef.kind, name: 'n' },
    formRef: form.formRef,
    packageDigest: form.packageDigest,
    uid: 'res_1',
    generation: '1',
    revision: '1',
    spec,
    specDigest: jcsDigest(spec),
    status: {},
  };
}

function refusal(run: () => void): HostError {
  try {
    run();
  } catch (error) {
    if (error instanceof HostError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('assertUpdatePermitted', () => {
  it('refuses every apply to an existing revision, even an identical one (A17)', () => {
    const form = install(path.join(EXTERNAL_FAMILY, 'revision-note'));
    const current = stored(form, { note: 'a' });
    expect(refusal(() => assertUpdatePermitted(form, current, current.spec, current.specDigest)).code).toBe('invalid_argument');
  });

  it('allows an identical apply but refuses a spec change without the update capability', () => {
    const form = install(RANGE_SEQUENCE_DIR, (document) => {
      document.lifecycleCapabilities = ['create', 'read', 'delete', 'import', 'observe'];
    });
    const current = stored(form, { lower: 1, mode: 'safe', upper: 2 });
    expect(() => assertUpdatePermitted(form, current, current.spec, current.specDigest)).not.toThrow();
    const changed = { lower: 1, mode: 'safe', upper: 3 };
    expect(refusal(() => assertUpdatePermitted(form, current, changed, jcsDigest(changed))).message).toMatch(/no update capability/);
  });

  it('refuses a change to an immutable field and allows changes elsewhere', () => {
    const form = install(RANGE_COUNTER_DIR);
    const current = stored(form, { externalServices: [], lower: 1, mode: 'safe', upper: 2 });
    const other = { externalServices: [], lower: 1, mode: 'fast', upper: 2 };
    expect(() => assertUpdatePermitted(form, current, other, jcsDigest(other))).not.toThrow();
    const slot = { name: 'A', required: true, service: { apiVersion: 'standards.takoform.com/v1', protocol: 'com.amazonaws.s3' } };
    const immutable = { externalServices: [slot], lower: 1, mode: 'safe', upper: 2 };
    const error = refusal(() => assertUpdatePermitted(form, current, immutable, jcsDigest(immutable)));
    expect(error.details).toEqual({ pointer: '/spec/externalServices' });
  });
});
