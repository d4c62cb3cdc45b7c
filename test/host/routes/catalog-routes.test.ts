// Discovery, the /forms catalog and exact probe, form-definitions and FormSupport profiles.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  API,
  RANGE_COUNTER_REF,
  RANGE_COUNTER_V2_DIR,
  RANGE_COUNTER_DIR,
  RANGE_SEQUENCE_DIR,
  RANGE_SEQUENCE_PACKAGE_DIGEST,
  RANGE_SEQUENCE_REF,
  errorCode,
  startTestHost,
  type TestHost,
} from '../support/host-harness.js';

let subject: TestHost;

beforeAll(async () => {
  subject = await startTestHost({ packageDirs: [RANGE_SEQUENCE_DIR, RANGE_COUNTER_DIR, RANGE_COUNTER_V2_DIR] });
});

afterAll(async () => {
  await subject.dispose();
});

describe('discovery', () => {
  const expected = (origin: string) => ({
    api_versions: ['forms.takoform.com/v1'],
    features: {
      service_forms: true,
      exact_form_ref: true,
      optimistic_concurrency: true,
      idempotent_lifecycle: true,
      operations: true,
      artifact_upload: true,
      support_profiles: true,
    },
    endpoints: { api: `${origin}/apis/forms.takoform.com/v1` },
  });

  it('advertises the API root on the origin the client used, with or without a token', async () => {
    const withToken = await subject.call('GET', '/.well-known/takoform/v1');
    expect(withToken.status).toBe(200);
    expect(withToken.json).toEqual(expected(subject.host.url));
    const anonymous = await subject.call('GET', '/.well-known/takoform/v1', { token: null });
    expect(anonymous.json).toEqual(expected(subject.host.url));
    const port = new URL(subject.host.url).port;
    const viaLocalhost = await getWithHostHeader(`${subject.host.url}/.well-known/takoform/v1`, `localhost:${port}`);
    expect(JSON.parse(viaLocalhost)).toEqual(expected(`http://localhost:${port}`));
  });

  it('refuses a token that names nobody', async () => {
    const answer = await subject.call('GET', '/.well-known/takoform/v1', { token: 'nobody' });
    expect(answer.status).toBe(401);
    expect(errorCode(answer)).toBe('unauthenticated');
  });
});

describe('GET {api}/forms', () => {
  const probe = (ref: typeof RANGE_SEQUENCE_REF) =>
    `${API}/forms?${new URLSearchParams({
      group: ref.apiVersion,
      kind: ref.kind,
      definitionVersion: ref.definitionVersion,
      schemaDigest: ref.schemaDigest,
      space: 'demo',
    })}`;

  it('lists every installed exact Form', async () => {
    const answer = await subject.call('GET', `${API}/forms`);
    const forms = (answer.json as { forms: { identity: { formRef: typeof RANGE_SEQUENCE_REF } }[] }).forms;
    expect(forms.map((form) => `${form.identity.formRef.kind}@${form.identity.formRef.definitionVersion}`).sort()).toEqual([
      'RangeCounter@0.1.0',
      'RangeCounter@0.2.0',
      'RangeSequence@0.1.0',
    ]);
  });

  it('answers the exact probe with one entry (§21.2)', async () => {
    const answer = await subject.call('GET', probe(RANGE_SEQUENCE_REF));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      forms: [
        {
          identity: { formRef: RANGE_SEQUENCE_REF, packageDigest: RANGE_SEQUENCE_PACKAGE_DIGEST },
          definitionKnown: true,
          installed: true,
          executable: true,
          activated: true,
          availableToPrincipal: true,
          operations: ['create', 'read', 'update', 'delete', 'import', 'observe'],
        },
      ],
    });
  });

  it('narrows by kind, and answers form_unknown for an exact ref that is not installed (A5)', async () => {
    const byKind = await subject.call('GET', `${API}/forms?kind=RangeCounter`);
    expect((byKind.json as { forms: unknown[] }).forms).toHaveLength(2);
    const unknown = await subject.call('GET', probe({ ...RANGE_SEQUENCE_REF, schemaDigest: RANGE_COUNTER_REF.schemaDigest }));
    expect(unknown.status).toBe(404);
    expect(errorCode(unknown)).toBe('form_unknown');
    const partial = await subject.call('GET', `${API}/forms?kind=NoSuchKind`);
    expect(partial.json).toEqual({ forms: [] });
  });

  it('refuses malformed, repeated and unknown keys', async () => {
    for (const query of ['group=Not_A_Group', 'kind=RangeSequence&kind=RangeCounter', 'version=v1', 'schemaDigest=sha256:abc']) {
      const answer = await subject.call('GET', `${API}/forms?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorCode(answer), query).toBe('invalid_argument');
    }
  });
});

describe('GET {api}/form-definitions/{group}/{kind}', () => {
  const target = (ref: typeof RANGE_SEQUENCE_REF) =>
    `${API}/form-definitions/${ref.apiVersion}/${ref.kind}?${new URLSearchParams({
      space: 'demo',
      definitionVersion: ref.definitionVersion,
      schemaDigest: ref.schemaDigest,
    })}`;

  it('serves the Definition desiredSchema unchanged with its title and description', async () => {
    const definition = JSON.parse(readFileSync(path.join(RANGE_SEQUENCE_DIR, 'definition.json'), 'utf8'));
    const answer = await subject.call('GET', target(RANGE_SEQUENCE_REF));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      identity: { formRef: RANGE_SEQUENCE_REF, packageDigest: RANGE_SEQUENCE_PACKAGE_DIGEST },
      displayName: definition.title,
      description: definition.description,
      desiredSchema: definition.desiredSchema,
    });
  });

  it('answers form_unknown for a version of one Definition with the digest of another', async () => {
    const answer = await subject.call('GET', target({ ...RANGE_COUNTER_REF, definitionVersion: '0.2.0' }));
    expect(errorCode(answer)).toBe('form_unknown');
    const missing = await subject.call('GET', `${API}/form-definitions/resources.publisher.example/RangeCounter?space=demo`);
    expect(missing.status).toBe(400);
  });
});

describe('support profiles', () => {
  it('lists one FormSupport profile per installed Definition', async () => {
    const answer = await subject.call('GET', `${API}/support/forms`);
    expect((answer.json as { profiles: unknown[] }).profiles).toHaveLength(3);
  });

  it('answers one exact profile by version, form_unknown for an unknown version', async () => {
    const answer = await subject.call('GET', `${API}/support/forms/resources.publisher.example/RangeSequence/0.1.0`);
    expect(answer.json).toEqual({
      apiVersion: 'support.takoform.com/v1',
      kind: 'FormSupport',
      formRef: RANGE_SEQUENCE_REF,
      operations: ['create', 'read', 'update', 'delete', 'import', 'observe'],
    });
    const unknown = await subject.call('GET', `${API}/support/forms/resources.publisher.example/RangeSequence/0.9.0`);
    expect(errorCode(unknown)).toBe('form_unknown');
    const malformed = await subject.call('GET', `${API}/support/forms/resources.publisher.example/RangeSequence/latest`);
    expect(errorCode(malformed)).toBe('invalid_argument');
  });
});

describe('unknown routes', () => {
  it('answers resource_not_found 404 for unknown routes and methods', async () => {
    for (const [method, target] of [
      ['PATCH', `${API}/resources/resources.publisher.example/RangeSequence/x`],
      ['GET', `${API}/resources/resources.publisher.example%2Fv1/RangeSequence/x`],
      ['GET', `${API}/artifacts/uploads`],
      ['GET', `${API}/artifacts/blobs`],
      ['POST', '/_takoform-test/v1/remove'],
    ]) {
      const answer = await subject.call(method, target);
      expect(answer.status, `${method} ${target}`).toBe(404);
      expect(errorCode(answer)).toBe('resource_not_found');
    }
  });
});

/** A GET that names another Host than the address it connects to (fetch cannot set Host). */
function getWithHostHeader(url: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}
