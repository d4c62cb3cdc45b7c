// GET /.well-known/takoform/v1 (wire reference §4). All seven features are required to be true
// by v1 clients; endpoints.api is the API root on the origin the client used.
import type { HostContext } from '../host-context.js';
import { requestOrigin } from '../http/origin.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import { API_ROOT_PATH } from '../http/router.js';

export const HOST_API_VERSIONS = ['forms.takoform.com/v1'];

export function handleDiscovery(_host: HostContext, request: RouteRequest): HostResponse {
  const origin = requestOrigin(request.scheme, request.headers.host, request.localEndpoint);
  return jsonResponse(200, {
    api_versions: HOST_API_VERSIONS,
    features: {
      service_forms: true,
      exact_form_ref: true,
      optimistic_concurrency: true,
      idempotent_lifecycle: true,
      operations: true,
      artifact_upload: true,
      support_profiles: true,
    },
    endpoints: { api: `${origin}${API_ROOT_PATH}` },
  });
}
