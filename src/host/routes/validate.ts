// POST {api}/resources/validate (wire reference §11.1): schema and constraint problems are
// diagnostics in a 200 answer, not errors. No fence, no digest, no stored state, and no
// standard-service satisfiability decision.
import type { HostContext } from '../host-context.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { JsonObject } from '../../common/json-value.js';
import { resolveForm } from '../resources/admission.js';
import { readResourceRequest } from '../resources/resource-request.js';
import type { SpecProblem } from '../spec-problem.js';

// Limits of the closed validateResponse diagnostic.
const MAXIMUM_FIELD_LENGTH = 512;
const MAXIMUM_MESSAGE_LENGTH = 4096;

export function handleValidate(host: HostContext, request: RouteRequest): HostResponse {
  const document = readResourceRequest(request.body);
  const form = resolveForm(host.catalog, document.formRef);
  const { problems } = form.desiredSpec.check(document.spec);
  return jsonResponse(200, { valid: problems.length === 0, diagnostics: problems.map(diagnostic) });
}

/** `field` is a pointer into the spec, as in the wire reference's example ("/upper"). */
function diagnostic(problem: SpecProblem): JsonObject {
  const entry: JsonObject = { severity: 'error' };
  if (problem.pointer.length <= MAXIMUM_FIELD_LENGTH) entry.field = problem.pointer;
  entry.message = problem.message.slice(0, MAXIMUM_MESSAGE_LENGTH);
  return entry;
}
