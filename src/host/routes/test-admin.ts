// Test-only admin routes under /_takoform-test/v1 (served only with --enable-test-switches; the
// caller's own tenant is the only one they can touch). They simulate what happens to a real
// backend out of band:
//   POST /_takoform-test/v1/flip-ready {"apiVersion","kind","name","space","ready":"False"|"True"}
//     flips the observed status: Ready=False/ExternalChange plus Drifted=True, or back to
//     Ready=True/Available. The revision moves; the generation does not. Answers {"resource": …}.
//   POST /_takoform-test/v1/remove {"apiVersion","kind","name","space"}
//     removes the resource as an operator would behind the Host's back, ignoring relations that
//     pin it, so its dependents turn Ready=False/DependencyMissing. Answers 204.
import type { JsonObject } from '../../common/json-value.js';
import { expectMembers, expectObject, expectString } from '../closed-document.js';
import { HostError, invalidArgument } from '../errors.js';
import { FORM_GROUP_GRAMMAR, FORM_KIND_GRAMMAR } from '../form-ref.js';
import { isResourceName, isSpaceId } from '../grammar.js';
import type { HostContext } from '../host-context.js';
import { etagOfRevision, jsonResponse, noContentResponse, type HostResponse } from '../http/response.js';
import { requireCaller, type RouteRequest } from '../http/route-request.js';
import { nextCounter } from '../resources/counters.js';
import { removeIncarnation } from '../resources/delete-resource.js';
import { notReadyStatus, readyStatus, renderResource } from '../resources/resource-representation.js';
import type { ResourceAddress } from '../store/store.js';

export async function handleFlipReady(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const document = expectObject(request.body, '');
  const address = readAddress(request, document, ['ready']);
  const ready = expectString(document, 'ready', '');
  if (ready !== 'True' && ready !== 'False') throw invalidArgument('/ready must be "True" or "False"', '/ready');
  return host.store.transaction(async (tx) => {
    const resource = await tx.findResource(address);
    if (resource === undefined) throw new HostError('resource_not_found', 'no such resource');
    const outputs = resource.status.outputs as JsonObject | undefined;
    const status =
      ready === 'True'
        ? readyStatus(resource.generation, host.now(), outputs)
        : notReadyStatus(
            resource.status,
            { reason: 'ExternalChange', hostReason: 'test switch: observed state flipped', message: 'the observed backend departed from the desired state' },
            host.now(),
            true,
          );
    const flipped = { ...resource, status, revision: nextCounter(resource.revision) };
    await tx.updateResource(flipped);
    return jsonResponse(200, { resource: renderResource(flipped) }, etagOfRevision(flipped.revision));
  });
}

export async function handleRemove(host: HostContext, request: RouteRequest): Promise<HostResponse> {
  const address = readAddress(request, expectObject(request.body, ''), []);
  return host.store.transaction(async (tx) => {
    const resource = await tx.findResource(address);
    if (resource === undefined) throw new HostError('resource_not_found', 'no such resource');
    await removeIncarnation(host, tx, resource);
    return noContentResponse();
  });
}

function readAddress(request: RouteRequest, document: JsonObject, extra: readonly string[]): ResourceAddress {
  expectMembers(document, '', ['apiVersion', 'kind', 'name', 'space', ...extra]);
  return {
    tenant: requireCaller(request).tenant,
    group: expectString(document, 'apiVersion', '', FORM_GROUP_GRAMMAR),
    kind: expectString(document, 'kind', '', FORM_KIND_GRAMMAR),
    name: expectString(document, 'name', '', { test: isResourceName, describe: 'a resource name' }),
    space: expectString(document, 'space', '', { test: isSpaceId, describe: 'a SpaceID' }),
  };
}
