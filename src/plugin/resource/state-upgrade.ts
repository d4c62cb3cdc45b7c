// Resource state versions, and how a state written under an older one becomes the current one
// (UpgradeResourceState, and MoveResourceState from an older source). Every resource type of
// this provider, typed or generic, shares one envelope and so one version history:
//
//   0  the first release: the Host's conditions as a list of objects, `conditions`
//      (`type`, `status`, `reason`, `message`, `host_reason`, `last_transition_time`);
//   1  the same conditions as one string of canonical JSON, `conditions_json`, in the Host's
//      own shape (envelope.ts says why);
//   2  the name `outputs` reserved for every Form (names.ts): a Form property `outputs` is the
//      attribute `spec_outputs`. Before, it was `outputs` when the lock had no outputSchema for
//      the Form, and clashed with the typed outputs when it had one.
//
// The upgrade works on the JSON object core stores. It is read as strict I-JSON, which refuses
// what JSON.parse would silently change (a duplicate member, a number beyond a double). Numbers
// are read as doubles: exact for every number this provider writes, since a Form's numbers must
// be exact doubles (form-mapping.ts) and the Host holds only I-JSON; only a state edited by hand
// could hold a finite number with more digits than a double keeps. A state that cannot be read
// is refused with a diagnostic, never upgraded into something else.
//
// Version 1 also reserved the name `conditions_json`: a Form property that mapped to it before
// is `spec_conditions_json` since, so its value moves there (names.ts). Version 2's rename is
// the only one that depends on the resource type (StateShape): whether an `outputs` in the
// stored state was a Form property or the typed outputs.
import type { Condition } from '../../host-client/index.js';
import { parseIJson } from '../../common/ijson.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { conditionsJson } from './envelope.js';

/** The state version every resource type writes. */
export const RESOURCE_STATE_VERSION = 2;

/** What an upgrade needs to know of the resource type it upgrades a state for. */
export interface StateShape {
  /** The Form has a desired property `outputs` (the attribute `spec_outputs` since version 2). */
  readonly outputsProperty: boolean;
  /** The type has typed outputs (the attribute `outputs`). */
  readonly typedOutputs: boolean;
}

/** A type without Form properties of its own (`takoform_resource`). */
export const NO_FORM_ATTRIBUTES: StateShape = { outputsProperty: false, typedOutputs: false };

/** A state of a version this provider does not know yet (UpgradeResourceState and moves alike). */
export function newerStateDiagnostic(typeName: string, version: number, current = RESOURCE_STATE_VERSION): Diagnostic {
  return errorDiag(
    'State written by a newer provider',
    `The ${typeName} state has schema version ${version}; this provider writes version ${current}. Upgrade the provider.`,
  );
}

/** `state` null: a stored null (no object to upgrade), handed on as null. */
export type UpgradeResult = { readonly state: Record<string, unknown> | null } | { readonly problem: string };

/** Reads a stored state (RawState.json) of `version` and returns it in the current version. */
export function upgradeStateJson(json: Uint8Array, version: number, shape: StateShape): UpgradeResult {
  let value: unknown;
  try {
    value = parseIJson(json);
  } catch (e) {
    return { problem: `it is not strict JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (value === null) return { state: null };
  if (typeof value !== 'object' || Array.isArray(value)) return { problem: 'it is not a JSON object' };
  return upgradeStateObject(value as Record<string, unknown>, version, shape);
}

/** The same, for a state already parsed. */
export function upgradeStateObject(state: Record<string, unknown>, version: number, shape: StateShape): UpgradeResult {
  let current = state;
  if (version < 1) {
    const converted = conditionsFromVersion0(current.conditions);
    if (typeof converted !== 'string' && converted !== null) return converted;
    const { conditions: _dropped, conditions_json: formField, ...rest } = current;
    current = { ...rest, ...(formField !== undefined ? { spec_conditions_json: formField } : {}), conditions_json: converted };
  }
  if (version < 2 && shape.outputsProperty && 'outputs' in current && !('spec_outputs' in current)) {
    // The stored `outputs` is the property's value. Typed outputs, if the type has them now,
    // start empty and are filled by the next refresh, which reads them from the Host.
    const { outputs: formField, ...rest } = current;
    current = { ...rest, spec_outputs: formField, ...(shape.typedOutputs ? { outputs: null } : {}) };
  }
  return { state: current };
}

/** Version 0's `conditions` list as version 1's `conditions_json` (null stays null). */
function conditionsFromVersion0(value: unknown): string | null | { problem: string } {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value)) return { problem: 'its `conditions` is not a list' };
  const conditions: Condition[] = [];
  for (const [i, item] of value.entries()) {
    const c = item as Record<string, unknown> | null;
    const text = (k: string) => (typeof c?.[k] === 'string' ? (c[k] as string) : undefined);
    const type = text('type');
    const status = text('status');
    const reason = text('reason');
    const lastTransitionTime = text('last_transition_time');
    if (!type || (status !== 'True' && status !== 'False' && status !== 'Unknown') || !reason || !lastTransitionTime) {
      return { problem: `its \`conditions[${i}]\` is not a condition (type, status True, False or Unknown, reason, last_transition_time)` };
    }
    const message = text('message');
    const hostReason = text('host_reason');
    conditions.push({
      type,
      status,
      reason,
      lastTransitionTime,
      ...(message !== undefined ? { message } : {}),
      ...(hostReason !== undefined ? { hostReason } : {}),
    });
  }
  return conditionsJson(conditions);
}
