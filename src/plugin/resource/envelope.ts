// The state envelope: the attributes every resource kind has, whatever its Form — what names
// the Host resource (name, space), which incarnation the state tracks (id, uid), its counters,
// status and the Operation still being followed. Declared once here (schema attributes, the
// typed reader, what a change makes unknown), so the lifecycle reads `envelope.uid` instead of
// `state.uid as string` in many places.
import type { Condition, FormRef, ResourceResponse } from '../../host-client/index.js';
import { canonicalJson } from '../../common/digest.js';
import type { TfAttribute } from '../schema/tf-schema.js';
import { T } from '../values/tf-type.js';
import { isUnknown, objectValue, type TfObject, type TfValue } from '../values/tf-value.js';

/** The typed shape of one condition, as the `takoform_resource` data source reports it. */
export const CONDITION_TYPE = T.object({
  type: T.string,
  status: T.string,
  reason: T.string,
  message: T.string,
  host_reason: T.string,
  last_transition_time: T.string,
});

const computedString = (name: string, description: string): TfAttribute => ({ name, type: T.string, computed: true, description });

/** Envelope attributes in schema order, split where kinds put their own attributes between. */
export const ENVELOPE_ATTRIBUTES = {
  id: computedString('id', 'State key: `space/apiVersion/kind/uid` of the incarnation this state tracks.'),
  name: {
    name: 'name',
    type: T.string,
    required: true,
    description: 'Resource name (`metadata.name`), a DNS label. Changing it creates a new resource.',
  } as TfAttribute,
  space: {
    name: 'space',
    type: T.string,
    optional: true,
    computed: true,
    description: 'Space of the resource; defaults to the provider `space`. Changing it creates a new resource.',
  } as TfAttribute,
  status: [
    computedString('uid', 'Host-issued identity of this incarnation; a re-created resource gets a new uid.'),
    computedString('generation', 'Desired-state generation; moves only when the materialized spec changes.'),
    computedString('revision', 'Representation revision; moves on every change, including status.'),
  ] as readonly TfAttribute[],
  observed: [
    // One string rather than a list of objects: every copy core makes of a state instance
    // carries it, and a list of six-attribute objects cost 11-18 % of a plan or destroy of a
    // thousand resources on the state floor (docs/performance.md, "Conditions as one JSON
    // string"). The same values, as outputs_json keeps the outputs; `ready` is the attribute
    // to gate on. State version 0 had the list (state-upgrade.ts rewrites it).
    computedString(
      'conditions_json',
      'Canonical JSON of the status conditions reported by the Host (`status.conditions`), each with `type`, `status`, `reason`, `message`, `hostReason` (null when the Host gives none) and `lastTransitionTime`; read with `jsondecode`.',
    ),
    { name: 'ready', type: T.bool, computed: true, description: 'True when the Ready condition is True.' },
    computedString('outputs_json', 'Canonical JSON of the Host outputs (`status.outputs`), `{}` when the Form has none.'),
    computedString(
      'pending_operation',
      'Id of a Host Operation that accepted a change whose end was not seen yet; the next refresh follows it. Null otherwise.',
    ),
  ] as readonly TfAttribute[],
} as const;

/** Attributes a change of the desired spec may move (planned unknown until the Host answers). */
export const COMPUTED_ON_CHANGE = ['generation', 'revision', 'conditions_json', 'ready', 'outputs_json', 'pending_operation'] as const;
/** Attributes only a new incarnation changes. */
export const COMPUTED_ON_CREATE = ['id', 'uid'] as const;

/** The envelope of a state or planned value, read once with checked types. */
export interface Envelope {
  readonly name: string;
  readonly space: string;
  /** "" while a create's outcome is unknown (recorded with a pending Operation). */
  readonly uid: string;
  readonly generation: string;
  readonly pendingOperation: string | undefined;
  readonly timeouts: TfValue;
}

/** Reads the envelope of a state that core holds for us; a missing name or space is a bug upstream. */
export function readEnvelope(state: TfObject): Envelope {
  const text = (k: string): string | undefined => (typeof state[k] === 'string' ? (state[k] as string) : undefined);
  const name = text('name');
  const space = text('space');
  if (name === undefined || space === undefined) throw new Error('the resource state has no known name or space');
  return {
    name,
    space,
    uid: text('uid') ?? '',
    generation: text('generation') ?? '',
    pendingOperation: text('pending_operation'),
    timeouts: state.timeouts ?? null,
  };
}

export function stateId(space: string, apiVersion: string, kind: string, uid: string): string {
  return `${space}/${apiVersion}/${kind}/${uid}`;
}

/** The envelope values for a Host resource, in schema order. */
export function envelopeValues(resource: ResourceResponse): {
  id: TfValue;
  name: TfValue;
  space: TfValue;
  status: [string, TfValue][];
  observed: [string, TfValue][];
} {
  const m = resource.metadata;
  const ref = resource.form.formRef;
  return {
    id: stateId(m.space, ref.apiVersion, ref.kind, m.uid),
    name: m.name,
    space: m.space,
    status: [
      ['uid', m.uid],
      ['generation', m.generation],
      ['revision', m.revision],
    ],
    observed: [
      ['conditions_json', conditionsJson(resource.status.conditions)],
      ['ready', resource.status.conditions.find((c) => c.type === 'Ready')?.status === 'True'],
      ['outputs_json', canonicalJson(resource.status.outputs ?? {})],
      ['pending_operation', null],
    ],
  };
}

/**
 * The `conditions_json` of a resource: canonical JSON of the conditions the Host sent, each
 * with all six members. `message` and `hostReason` are null where the Host left them out, so
 * that every decoded condition has the same attributes and `c.message` reads in HCL
 * (an attribute missing from an object is an error there, a null is not).
 */
export function conditionsJson(conditions: readonly Condition[]): string {
  return canonicalJson(
    conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message ?? null,
      hostReason: c.hostReason ?? null,
      lastTransitionTime: c.lastTransitionTime,
    })),
  );
}

export function conditionValues(conditions: readonly Condition[]): TfObject[] {
  return conditions.map((c) =>
    objectValue([
      ['type', c.type],
      ['status', c.status],
      ['reason', c.reason],
      ['message', c.message ?? null],
      ['host_reason', c.hostReason ?? null],
      ['last_transition_time', c.lastTransitionTime],
    ]),
  );
}

/**
 * The envelope of a state recorded while the Host is still working on an accepted change
 * (HTTP 202 whose end was not seen): what was known before, the Operation to follow.
 */
export function pendingEnvelope(prior: TfObject | null, formRef: FormRef, space: string, uid: string, operationId: string): Record<string, TfValue> {
  const known = (v: TfValue | undefined, fallback: TfValue): TfValue => (v === undefined || v === null || isUnknown(v) ? fallback : v);
  return {
    id: uid ? stateId(space, formRef.apiVersion, formRef.kind, uid) : known(prior?.id, ''),
    uid,
    generation: known(prior?.generation, ''),
    revision: known(prior?.revision, ''),
    conditions_json: known(prior?.conditions_json, '[]'),
    ready: false,
    outputs_json: known(prior?.outputs_json, '{}'),
    pending_operation: operationId,
  };
}
