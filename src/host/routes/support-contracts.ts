// GET {api}/support/interfaces/{name}/{version}, /support/bindings/{name}/{version} and
// /support/standard-services/{protocol} (wire reference §15). Interfaces and Bindings this Host
// does not hold answer resource_not_found (ambiguity A14); a grammar-valid protocol always answers
// 200, with satisfiable false when this Host cannot satisfy it for the caller's tenant.
import { contractRefJson } from '../contract-ref.js';
import { HostError, invalidArgument } from '../errors.js';
import { isStandardServiceProtocol } from '../grammar.js';
import type { HostContext } from '../host-context.js';
import { jsonResponse, type HostResponse } from '../http/response.js';
import { pathParameter, requireCaller, type RouteRequest } from '../http/route-request.js';
import { STANDARD_SERVICES_API_VERSION } from '../standard-services.js';
import { SUPPORT_PROFILE_API_VERSION } from './support-forms.js';

export function handleSupportInterface(host: HostContext, request: RouteRequest): HostResponse {
  const name = pathParameter(request, 'contractName');
  const version = pathParameter(request, 'version');
  const found = host.contracts.interface(name, version);
  if (found === undefined) throw new HostError('resource_not_found', `this Host supports no Interface ${name}@${version}`);
  return jsonResponse(200, { apiVersion: SUPPORT_PROFILE_API_VERSION, kind: 'InterfaceSupport', interfaceRef: contractRefJson(found.ref) });
}

export function handleSupportBinding(host: HostContext, request: RouteRequest): HostResponse {
  const name = pathParameter(request, 'contractName');
  const version = pathParameter(request, 'version');
  const found = host.contracts.binding(name, version);
  if (found === undefined) throw new HostError('resource_not_found', `this Host supports no Binding ${name}@${version}`);
  return jsonResponse(200, { apiVersion: SUPPORT_PROFILE_API_VERSION, kind: 'BindingSupport', bindingRef: contractRefJson(found.ref) });
}

export function handleSupportStandardService(host: HostContext, request: RouteRequest): HostResponse {
  requireCaller(request);
  const protocol = pathParameter(request, 'protocol');
  if (!isStandardServiceProtocol(protocol)) {
    throw invalidArgument('the protocol path segment must be a standard-service protocol identifier (three or more DNS labels)');
  }
  return jsonResponse(200, {
    apiVersion: SUPPORT_PROFILE_API_VERSION,
    kind: 'StandardServiceSupport',
    serviceRef: { apiVersion: STANDARD_SERVICES_API_VERSION, protocol },
    satisfiable: host.satisfiableStandardServices.has(protocol),
  });
}
