// GET {api}/forms (wire reference §16.1): the catalog, narrowed by any of five optional keys.
// When group, kind, definitionVersion and schemaDigest name one exact Definition this Host does
// not have, the answer is form_unknown rather than an empty list (ambiguity A5).
import type { InstalledForm } from '../catalog.js';
import { HostError } from '../errors.js';
import { DEFINITION_VERSION_GRAMMAR, DIGEST_GRAMMAR, FORM_GROUP_GRAMMAR, FORM_KIND_GRAMMAR, describeFormRef, formRefJson } from '../form-ref.js';
import type { HostContext } from '../host-context.js';
import { optionalQueryValue } from '../http/query.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { JsonObject } from '../../common/json-value.js';
import { SPACE_QUERY_GRAMMAR } from '../resources/exact-resource.js';

export const FORMS_QUERY_KEYS = ['group', 'kind', 'definitionVersion', 'schemaDigest', 'space'] as const;

export function handleForms(host: HostContext, request: RouteRequest): HostResponse {
  const { query } = request;
  const group = optionalQueryValue(query, 'group', FORM_GROUP_GRAMMAR);
  const kind = optionalQueryValue(query, 'kind', FORM_KIND_GRAMMAR);
  const definitionVersion = optionalQueryValue(query, 'definitionVersion', DEFINITION_VERSION_GRAMMAR);
  const schemaDigest = optionalQueryValue(query, 'schemaDigest', DIGEST_GRAMMAR);
  // Every installed Form is available in every space for now; the key is validated all the same.
  optionalQueryValue(query, 'space', SPACE_QUERY_GRAMMAR);
  const matches = host.catalog
    .all()
    .filter(
      ({ formRef }) =>
        (group === undefined || formRef.apiVersion === group) &&
        (kind === undefined || formRef.kind === kind) &&
        (definitionVersion === undefined || formRef.definitionVersion === definitionVersion) &&
        (schemaDigest === undefined || formRef.schemaDigest === schemaDigest),
    );
  if (group !== undefined && kind !== undefined && definitionVersion !== undefined && schemaDigest !== undefined && matches.length === 0) {
    const ref = { apiVersion: group, kind, definitionVersion, schemaDigest };
    throw new HostError('form_unknown', `no Form Definition is installed at exactly ${describeFormRef(ref)}`);
  }
  return jsonResponse(200, { forms: matches.map(formAvailability) });
}

/** This Host executes everything it installs, for every tenant and principal. */
function formAvailability(form: InstalledForm): JsonObject {
  return {
    identity: { formRef: formRefJson(form.formRef), packageDigest: form.packageDigest },
    definitionKnown: true,
    installed: true,
    executable: true,
    activated: true,
    availableToPrincipal: true,
    operations: [...form.definition.lifecycleCapabilities],
  };
}
