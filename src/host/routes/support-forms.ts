// GET {api}/support/forms and GET {api}/support/forms/{group}/{kind}/{definitionVersion} (wire
// reference §15): one FormSupport profile per installed Definition. `operations` is the
// Definition's lifecycleCapabilities: this Host narrows nothing yet, and may never widen.
import type { InstalledForm } from '../catalog.js';
import { HostError, invalidArgument } from '../errors.js';
import { formRefJson } from '../form-ref.js';
import { isDefinitionVersion } from '../grammar.js';
import type { HostContext } from '../host-context.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import { pathParameter, type RouteRequest } from '../http/route-request.js';
import type { JsonObject } from '../../common/json-value.js';

export const SUPPORT_PROFILE_API_VERSION = 'support.takoform.com/v1';

export function handleSupportForms(host: HostContext): HostResponse {
  return jsonResponse(200, { profiles: host.catalog.all().map(formSupportProfile) });
}

export function handleSupportForm(host: HostContext, request: RouteRequest): HostResponse {
  const group = pathParameter(request, 'group');
  const kind = pathParameter(request, 'kind');
  const definitionVersion = pathParameter(request, 'definitionVersion');
  if (!isDefinitionVersion(definitionVersion)) {
    throw invalidArgument('the definitionVersion path segment must be a SemVer version without build metadata');
  }
  const form = host.catalog.byVersion(group, kind, definitionVersion);
  if (form === undefined) {
    throw new HostError('form_unknown', `no ${group}/${kind} Form Definition is installed at version ${definitionVersion}`);
  }
  return jsonResponse(200, formSupportProfile(form));
}

function formSupportProfile(form: InstalledForm): JsonObject {
  return {
    apiVersion: SUPPORT_PROFILE_API_VERSION,
    kind: 'FormSupport',
    formRef: formRefJson(form.formRef),
    operations: [...form.definition.lifecycleCapabilities],
  };
}
