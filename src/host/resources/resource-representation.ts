// The wire rendering of a stored resource (wire reference §8.2): exactly the members the closed
// resourceResponse allows, never null; and the status objects the Host writes (§9): every status
// has exactly one Ready condition, reasons only from the v1 type/reason matrix.
import type { JsonObject } from '../../common/json-value.js';
import { formRefJson } from '../form-ref.js';
import type { StoredResource } from '../store/store.js';
import { formatTimestamp } from './counters.js';

export type ConditionReason = 'Available' | 'Provisioning' | 'ExternalChange' | 'DependencyMissing' | 'UnsupportedCapability';

/** Why a resource is not Ready; hostReason is the non-portable detail (1-256 characters). */
export interface NotReady {
  readonly reason: 'ExternalChange' | 'DependencyMissing';
  readonly hostReason: string;
  readonly message: string;
}

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
 * The status of a resource this Host has converged: one condition, Ready=True/Available. The
 * reference Host has no backend, so desired state is reached the moment it is stored. When the
 * previous status was already Ready=True its transition time is kept (nothing transitioned).
 */
export function readyStatus(generation: string, now: Date, outputs: JsonObject | undefined, previous?: JsonObject): JsonObject {
  const earlier = readyCondition(previous);
  const since = earlier?.status === 'True' && typeof earlier.lastTransitionTime === 'string' ? earlier.lastTransitionTime : formatTimestamp(now);
  const status: JsonObject = {
    observedGeneration: generation,
    conditions: [{ type: 'Ready', status: 'True', reason: 'Available', lastTransitionTime: since }],
  };
  if (outputs !== undefined) status.outputs = outputs;
  return status;
}

/** Ready=False for a relation problem (or a flipped observation), keeping observedGeneration and outputs. */
export function notReadyStatus(previous: JsonObject, problem: NotReady, now: Date, drifted = false): JsonObject {
  const earlier = readyCondition(previous);
  const unchanged = earlier?.status === 'False' && earlier.reason === problem.reason && typeof earlier.lastTransitionTime === 'string';
  const since = unchanged ? (earlier.lastTransitionTime as string) : formatTimestamp(now);
  const conditions: JsonObject[] = [
    {
      type: 'Ready',
      status: 'False',
      reason: problem.reason,
      lastTransitionTime: since,
      hostReason: problem.hostReason.slice(0, 256),
      message: problem.message.slice(0, 4096),
    },
  ];
  if (drifted) conditions.push({ type: 'Drifted', status: 'True', reason: 'ExternalChange', lastTransitionTime: since });
  const status: JsonObject = { observedGeneration: previous.observedGeneration ?? '1', conditions };
  if (previous.outputs !== undefined) status.outputs = previous.outputs;
  return status;
}

function readyCondition(status: JsonObject | undefined): JsonObject | undefined {
  const conditions = status?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const ready = conditions.find((condition) => typeof condition === 'object' && condition !== null && !Array.isArray(condition) && condition.type === 'Ready');
  return ready as JsonObject | undefined;
}
