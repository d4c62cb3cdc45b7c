// `moved` between `takoform_resource` and the typed resource type of the same exact FormRef
// (MoveResourceState, protocol 6.5; OpenTofu >= 1.10, Terraform >= 1.8). The Host resource
// is untouched: only the state changes shape. A FormRef mismatch is refused, never guessed.
import { canonicalJson } from '../../common/digest.js';
import { formatFormRef, sameFormRef } from '../../host-client/index.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import { toSpec } from '../schema/form-mapping.js';
import { decodeStateJson } from '../values/state-json.js';
import { isObjectValue, objectValue, type TfObject } from '../values/tf-value.js';
import type { FormResourceType } from './form-resource-type.js';
import { newerStateDiagnostic, NO_FORM_ATTRIBUTES, RESOURCE_STATE_VERSION, upgradeStateJson } from './state-upgrade.js';
import { formRefOf, genericFromHostSpec, GENERIC_TYPE, GENERIC_TYPE_NAME } from './generic-resource.js';

export function moveState(
  sourceType: string,
  sourceVersion: number,
  sourceJson: Buffer | undefined,
  target: { generic: true } | { generic: false; rt: FormResourceType },
  typedSource: FormResourceType | undefined,
): { state: TfObject | null; diagnostics: Diagnostic[] } {
  if (!(sourceType === GENERIC_TYPE_NAME ? !target.generic : typedSource !== undefined && target.generic)) return unsupportedMove(sourceType);
  if (!sourceJson || sourceJson.length === 0) return { state: null, diagnostics: [errorDiag('Nothing to move', `The ${sourceType} state is empty.`)] };
  if (sourceVersion > RESOURCE_STATE_VERSION) return { state: null, diagnostics: [newerStateDiagnostic(sourceType, sourceVersion)] };
  // A source written under an older version is read in the current shape first.
  const upgraded = upgradeStateJson(sourceJson, sourceVersion, typedSource?.stateShape ?? NO_FORM_ATTRIBUTES);
  if ('problem' in upgraded) {
    const detail = `The ${sourceType} state (schema version ${sourceVersion}) cannot be read: ${upgraded.problem}. Restore the state file from a backup, or remove the resource from state (\`state rm\`) and import it under the new address.`;
    return { state: null, diagnostics: [errorDiag('Cannot move', detail)] };
  }
  const raw = upgraded.state;
  if (!raw) return { state: null, diagnostics: [errorDiag('Nothing to move', `The ${sourceType} state is empty.`)] };
  if (sourceType === GENERIC_TYPE_NAME && !target.generic) {
    const rt = target.rt;
    const src = decodeStateJson(raw, GENERIC_TYPE);
    if (!isObjectValue(src)) return { state: null, diagnostics: [errorDiag('Cannot move', 'The source state is not an object.')] };
    const ref = formRefOf(src);
    if (!sameFormRef(ref, rt.form.formRef)) {
      return {
        state: null,
        diagnostics: [
          errorDiag(
            'Cannot move between different Forms',
            `The source is ${formatFormRef(ref)}; ${rt.typeName} is ${formatFormRef(rt.form.formRef)}. A moved block only changes how the same resource is tracked.`,
          ),
        ],
      };
    }
    const spec = JSON.parse((src.spec_json as string) || '{}') as Record<string, never>;
    const desired = rt.desiredValues(spec);
    const names = new Set(Object.keys((rt.valueType as { attributes: Record<string, unknown> }).attributes));
    const base: [string, unknown][] = [
      ['id', src.id],
      ['name', src.name],
      ['space', src.space],
      ['uid', src.uid],
      ['generation', src.generation],
      ['revision', src.revision],
      ['form_ref', rt.formRefValue()],
      ['conditions_json', src.conditions_json],
      ['ready', src.ready],
      ['outputs_json', src.outputs_json],
      ['pending_operation', src.pending_operation ?? null],
      ['timeouts', src.timeouts ?? null],
      ...(names.has('outputs') ? [['outputs', null] as [string, unknown]] : []),
      ...Object.entries(desired),
    ];
    return { state: objectValue(base as [string, never][]), diagnostics: [] };
  }
  if (typedSource && target.generic) {
    const src = decodeStateJson(raw, typedSource.valueType);
    if (!isObjectValue(src)) return { state: null, diagnostics: [errorDiag('Cannot move', 'The source state is not an object.')] };
    const spec = toSpec(typedSource.fields, src);
    const ref = typedSource.form.formRef;
    return {
      state: objectValue([
        ['api_version', ref.apiVersion],
        ['kind', ref.kind],
        ['definition_version', ref.definitionVersion],
        ['schema_digest', ref.schemaDigest],
        ['name', src.name ?? null],
        ['space', src.space ?? null],
        ['spec', genericFromHostSpec(spec)],
        ['spec_json', canonicalJson(spec)],
        ['id', src.id ?? null],
        ['uid', src.uid ?? null],
        ['generation', src.generation ?? null],
        ['revision', src.revision ?? null],
        ['conditions_json', src.conditions_json ?? '[]'],
        ['ready', src.ready ?? false],
        ['outputs_json', src.outputs_json ?? '{}'],
        ['pending_operation', src.pending_operation ?? null],
        ['timeouts', src.timeouts ?? null],
      ]),
      diagnostics: [],
    };
  }
  return unsupportedMove(sourceType);
}

function unsupportedMove(sourceType: string): { state: null; diagnostics: Diagnostic[] } {
  return {
    state: null,
    diagnostics: [
      errorDiag('Unsupported move', `takoform can move between ${GENERIC_TYPE_NAME} and a typed resource type of the same Form; not from ${sourceType}.`),
    ],
  };
}
