// The wire rendering of a stored resource (wire reference §8.2): exactly the members the closed
// resourceResponse allows, never null. status.outputs never appears: Definitions with an
// outputSchema are refused at install until outputs are implemented (installability.ts).
import { formRefJson } from '../form-ref.js';
import type { JsonObject } from '../json-value.js';
import type { StoredResource } from '../store/store.js';
import { formatTimestamp } from './counters.js';

export function renderResource(resource: StoredResource): JsonObject {
  const form: JsonObject = { formRef: formRefJson(resource.formRef) };
  if (resource.packageDigest !== undefined) form.packageDigest = resource.packageDigest;
  return {
    apiVersion: resource.formRef.apiVersion,
    kind: resource.formRef.kind,
    form,
    metadata: {
      name: resource.address.name,
      space: resource.address.space,
      uid: resource.uid,
      generation: resource.generation,
      revision: resource.revision,
    },
    spec: resource.spec,
    status: resource.status,
  };
}

/**
 * The status of a resource this Host has converged: exactly one condition, Ready=True/Available.
 * The reference Host has no backend, so desired state is reached the moment it is stored.
 */
export function readyStatus(generation: string, since: Date): JsonObject {
  return {
    observedGeneration: generation,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: formatTimestamp(since) }],
  };
}
