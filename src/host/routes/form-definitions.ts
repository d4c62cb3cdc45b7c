// GET {api}/form-definitions/{group}/{kind}?space&definitionVersion&schemaDigest (wire reference
// §16.2): the exact Definition's desiredSchema, unchanged, with its title and description.
import type { HostContext } from '../host-context.js';
import { DEFINITION_VERSION_GRAMMAR, DIGEST_GRAMMAR, formRefJson } from '../form-ref.js';
import { requiredQueryValue } from '../http/query.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import { pathParameter, type RouteRequest } from '../http/route-request.js';
import type { JsonObject } from '../../common/json-value.js';
import { resolveForm } from '../resources/admission.js';
import { EXACT_RESOURCE_QUERY_KEYS, SPACE_QUERY_GRAMMAR } from '../resources/exact-resource.js';

export const FORM_DEFINITION_QUERY_KEYS = EXACT_RESOURCE_QUERY_KEYS;

export function handleFormDefinition(host: HostContext, request: RouteRequest): HostResponse {
  requiredQueryValue(request.query, 'space', SPACE_QUERY_GRAMMAR);
  const form = resolveForm(host.catalog, {
    apiVersion: pathParameter(request, 'group'),
    kind: pathParameter(request, 'kind'),
    definitionVersion: requiredQueryValue(request.query, 'definitionVersion', DEFINITION_VERSION_GRAMMAR),
    schemaDigest: requiredQueryValue(request.query, 'schemaDigest', DIGEST_GRAMMAR),
  });
  const { definition } = form;
  const body: JsonObject = {
    identity: { formRef: formRefJson(form.formRef), packageDigest: form.packageDigest },
    displayName: definition.title,
  };
  if (definition.description !== undefined && definition.description.length > 0) body.description = definition.description;
  body.desiredSchema = definition.desiredSchema;
  return jsonResponse(200, body);
}
