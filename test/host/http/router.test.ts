// Routing by grammar: group, kind and name are one segment each and never contain "/".
import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../../src/host/http/router.js';

const API = '/apis/forms.takoform.com/v1';

describe('matchRoute', () => {
  const cases: [string, string, string | undefined][] = [
    ['GET', '/.well-known/takoform/v1', 'discovery'],
    ['GET', `${API}/forms`, 'forms'],
    ['POST', `${API}/resources/validate`, 'validate'],
    ['POST', `${API}/resources/prepare`, 'prepare'],
    ['PUT', `${API}/resources/resources.publisher.example/RangeSequence/range-sequence`, 'apply'],
    ['GET', `${API}/resources/resources.publisher.example/RangeSequence/range-sequence`, 'read'],
    ['DELETE', `${API}/resources/resources.publisher.example/RangeSequence/range-sequence`, 'delete'],
    ['POST', `${API}/resources/resources.publisher.example/RangeSequence/range-sequence/observe`, 'observe'],
    ['GET', `${API}/form-definitions/resources.publisher.example/RangeSequence`, 'form-definition'],
    ['GET', `${API}/support/forms/resources.publisher.example/RangeSequence/0.1.0`, 'support-form'],
    // Not routed: versioned group, slash inside a segment, bad kind/name grammar, wrong method, trailing slash.
    ['GET', `${API}/resources/resources.publisher.example/v1/RangeSequence/x`, undefined],
    ['GET', `${API}/resources/resources.publisher.example%2Fv1/RangeSequence/x`, undefined],
    ['GET', `${API}/resources/resources.publisher.example/rangeSequence/x`, undefined],
    ['GET', `${API}/resources/resources.publisher.example/RangeSequence/Bad_Name`, undefined],
    ['POST', `${API}/resources/resources.publisher.example/RangeSequence/x`, undefined],
    ['GET', `${API}/forms/`, undefined],
    ['GET', `${API}/operations/op_1`, 'operation'],
    ['POST', `${API}/resources/resources.publisher.example/RangeSequence/x/import`, 'import'],
  ];

  for (const [method, path, expected] of cases) {
    it(`${method} ${path} -> ${expected ?? 'no route'}`, () => {
      expect(matchRoute(method, path)?.name).toBe(expected);
    });
  }

  it('captures the path parameters', () => {
    expect(matchRoute('GET', `${API}/resources/resources.publisher.example/RangeSequence/range-sequence`)?.params).toEqual({
      group: 'resources.publisher.example',
      kind: 'RangeSequence',
      name: 'range-sequence',
    });
  });
});
