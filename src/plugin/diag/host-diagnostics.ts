// The one renderer that turns Host client failures into diagnostics: summary, the resource,
// the exact Form, the attribute path (from the Host's JSON Pointer), the Host code and
// request id, whether retrying can help, and one sentence saying what to do. Never the token.
import { pointerTokens } from '../../common/json-pointer.js';
import {
  AcceptedOutcomeUnknownError,
  HostApiError,
  ProtocolViolationError,
  TransportError,
  ConfigurationError,
  formatFormRef,
  type FormRef,
  type HostErrorCode,
} from '../../host-client/index.js';
import type { FieldMapping, ValueMapping } from '../schema/form-mapping.js';
import { snakeCase } from '../schema/names.js';
import { errorDiag, hclPath, warningDiag, type AttributePath, type Diagnostic, type PathStep } from './diagnostics.js';
import type { RefusalClass } from './refusal-class.js';

export interface ResourceContext {
  readonly typeName: string;
  readonly name: string;
  readonly space: string;
  readonly formRef: FormRef;
  readonly uid?: string;
  readonly generation?: string;
  readonly fields?: readonly FieldMapping[];
  /** The attribute holding the whole spec as one value (takoform_resource's `spec`). */
  readonly specAttribute?: string;
}

/** What to do about each Host code: a total record, so a code added to the taxonomy cannot lack one. */
export const REMEDY: Readonly<Record<HostErrorCode, string>> = {
  invalid_argument: 'Fix the value the Host names and run the command again.',
  artifact_invalid: 'The artifact the configuration names is not a valid manifest for this Form; rebuild or re-upload it and run the command again.',
  unauthenticated: 'Check the provider `token` (or TAKOFORM_TOKEN).',
  permission_denied: 'Ask the Host operator for access to this Form and space.',
  policy_denied: 'A Host policy refuses this change; see the message for which policy.',
  form_unknown: 'The Host does not have this exact Form; refresh the catalog with `terraform-provider-takoform catalog lock` or install the Form on the Host.',
  resource_not_found: 'The resource (or a resource it refers to) does not exist on the Host; create it first or fix the reference.',
  operation_not_found: 'The Host no longer knows the Operation this state follows; run plan again to read the resource as it is now.',
  artifact_missing:
    'The artifact the configuration names is not committed on the Host for your tenant; upload it (a takoform_artifact resource) and run the command again.',
  form_not_installed: 'The Host knows this Form but cannot run it; ask the Host operator to install it.',
  resource_busy: 'Another change to this resource is in progress; run the command again shortly.',
  import_conflict: 'The Host-native object is already adopted under another name; import that resource instead, or pick another native object.',
  operation_cancelled: 'The Host Operation was cancelled before it finished; run plan to see what it left, then apply again.',
  dependency_in_use:
    'Other resources still refer to this one (the Host names the dependent above); remove or re-point them first. When this resource is being replaced and the dependent is in this configuration, ' +
    'add `lifecycle { replace_triggered_by = [<this resource>.uid] }` to the dependent, so core replaces it together with this one.',
  migration_required:
    'The resource must be migrated to another Form version before this change; ask the Host operator how, or change the configuration to that version.',
  uid_mismatch: 'The name now belongs to another incarnation on the Host; import it or pick another name.',
  revision_conflict: 'The resource changed on the Host since plan — run plan again.',
  generation_conflict: 'The resource changed on the Host since plan (or the name is already taken) — run plan again.',
  unsupported_capability: 'This Host does not serve what the configuration asks for; change the configuration or the Host.',
  rate_limited: 'The Host is rate limiting; run the command again later.',
  internal_error: 'The Host failed; the outcome is unknown. Run plan to see the current state before retrying.',
  backend_unavailable: 'The Host backend is unavailable; run the command again later.',
  form_unavailable: 'The Form is temporarily not serving; run the command again later.',
  deadline_exceeded: 'The Host timed out; the outcome is unknown. Run plan to see the current state.',
};

export function hostFailureDiagnostic(action: string, error: unknown, ctx: ResourceContext): Diagnostic {
  const where = `${ctx.typeName} "${ctx.name}" in space "${ctx.space}"`;
  const form = `Form: ${formatFormRef(ctx.formRef)}`;
  const incarnation = ctx.uid ? `\nIncarnation: uid ${ctx.uid}${ctx.generation ? `, generation ${ctx.generation}` : ''}` : '';
  if (error instanceof HostApiError) {
    const path = error.pointer ? requestPointerPath(error.pointer, ctx) : undefined;
    const detail = [
      `The Host refused to ${action} ${where}: ${hclMessage(error.hostMessage, ctx)}`,
      '',
      form + incarnation,
      `Host code: ${error.code} (HTTP ${error.status}, ${error.retryable ? 'retryable' : 'not retryable'}), request ${error.requestId}${error.hostCode ? `, host detail ${error.hostCode}` : ''}`,
      ...(path ? [`Attribute: ${hclPath(path)}`] : []),
      ...(error.pointer ? [`Field: ${error.pointer}`] : []),
      '',
      REMEDY[error.code],
    ].join('\n');
    return errorDiag(`Host refused: ${error.code}`, detail, path);
  }
  if (error instanceof ProtocolViolationError) {
    return errorDiag(
      'Host protocol violation',
      `While trying to ${action} ${where}, the Host answered outside Host API v1 (${error.route}): ${error.detail}\n\n${form}${incarnation}\n\nThe answer was not used. Report this to the Host operator; nothing was written to state from it.`,
    );
  }
  if (error instanceof AcceptedOutcomeUnknownError) {
    return errorDiag(
      'Host accepted the change; outcome unknown',
      `The Host accepted the request to ${action} ${where} as operation ${error.operationId}${error.uid ? ` (uid ${error.uid})` : ''}, but its outcome could not be learned: ${error.causeMessage}\n\n${form}${incarnation}\n\nRun plan again: the next run reads the resource and resumes; the change is not repeated blindly.`,
    );
  }
  if (error instanceof TransportError) {
    // An untrusted certificate is not a network problem: say what to configure instead.
    const tls = untrustedCertificate(error.causeMessage)
      ? "\n\nThe Host's TLS certificate is not trusted, so nothing was sent to it. For a Host with a private CA, set the provider `ca_file` (or TAKOFORM_CA_FILE) to that CA certificate (PEM); verification is never turned off."
      : '';
    return errorDiag(
      'Host unreachable',
      `Could not ${action} ${where}: ${error.causeMessage}${tls}\n\n${form}${incarnation}\n\nCheck the provider endpoint and the network, then run the command again; a retried change reuses its idempotency key, so it cannot happen twice.`,
    );
  }
  if (error instanceof ConfigurationError) {
    return errorDiag('Invalid provider configuration', `${error.message}\n\nFix the takoform provider block (or the TAKOFORM_* variables).`);
  }
  const message = error instanceof Error ? error.message : String(error);
  return errorDiag('Unexpected provider error', `While trying to ${action} ${where}: ${message}\n\nThis is a bug in the takoform provider; please report it.`);
}

/**
 * A refusal at plan time that depends on other resources (refusal-class.ts): a warning, on
 * the attribute the Host names, that says which rule and that apply checks it again.
 */
export function crossResourceWarning(error: HostApiError, cls: Extract<RefusalClass, { kind: 'cross-resource' }>, ctx: ResourceContext): Diagnostic {
  const path = error.pointer ? requestPointerPath(error.pointer, ctx) : undefined;
  const detail = [
    `The Host would refuse ${ctx.typeName} "${ctx.name}" in space "${ctx.space}" as things stand now: ${hclMessage(error.hostMessage, ctx)}`,
    '',
    `Rule: ${cls.rule}. It depends on other resources, which this run may change (create, replace, re-point or delete), ` +
      'so the plan does not fail on it: it continues from the configuration, and apply asks the Host again and refuses with this same error if it still holds.',
    '',
    `Form: ${formatFormRef(ctx.formRef)}`,
    `Host code: ${error.code} (HTTP ${error.status}), request ${error.requestId}`,
    ...(path ? [`Attribute: ${hclPath(path)}`] : []),
    ...(error.pointer ? [`Field: ${error.pointer}`] : []),
  ].join('\n');
  return warningDiag(`Checked again at apply: ${cls.rule}`, detail, path);
}

/**
 * A Host message in the words of the configuration: JSON Pointers into the spec become HCL
 * attribute paths (`/spec/externalServices/0/name` → `external_services[0].name`) where they
 * map completely, and JSON members in remedies become HCL (`"required": false` →
 * `required = false`). The Host's own pointer stays in the `Field:` line.
 */
export function hclMessage(message: string, ctx: ResourceContext): string {
  const paths = message.replace(/\/(?:spec|metadata)(?:\/[A-Za-z0-9_.~*-]+)*/g, (pointer) => {
    const tokens = pointer.split('/').slice(2);
    if (ctx.specAttribute && pointer.startsWith('/spec')) return hclPath(documentPath(ctx.specAttribute, pointer.slice('/spec'.length)));
    const path = requestPointerPath(pointer, ctx);
    return path && (pointer.startsWith('/metadata/') || path.length === tokens.length) ? hclPath(path) : pointer;
  });
  return paths.replace(
    /"([A-Za-z_][A-Za-z0-9_]*)": (true|false|null|-?\d+(?:\.\d+)?|"[^"]*")/g,
    (_m, name: string, value: string) => `${ctx.specAttribute ? name : snakeCase(name)} = ${value}`,
  );
}

/**
 * The path into a document attribute (takoform_resource `spec`, whose members keep the Form's
 * names): the attribute, then one step per pointer token, array indexes as numbers.
 */
export function documentPath(attribute: string, pointer: string): AttributePath {
  return [attribute, ...(pointerTokens(pointer) ?? []).map((t) => (/^(0|[1-9][0-9]*)$/.test(t) ? Number(t) : t))];
}

/**
 * The attribute path for a Host pointer into the request document: the envelope's name and
 * space are attributes too, and takoform_resource holds the whole spec in one attribute.
 */
export function requestPointerPath(pointer: string, ctx: ResourceContext): AttributePath | undefined {
  if (pointer === '/metadata/name') return ['name'];
  if (pointer === '/metadata/space') return ['space'];
  if (ctx.specAttribute && (pointer === '/spec' || pointer.startsWith('/spec/'))) return [ctx.specAttribute];
  return pointerToPath(pointer, ctx.fields ?? []);
}

/** Maps a JSON Pointer into the spec to the Terraform attribute path, as far as it maps. */
export function pointerToPath(pointer: string, fields: readonly FieldMapping[]): AttributePath | undefined {
  // Hosts point into the request document (/spec/upper); the attributes map the spec.
  const specPointer = pointer.startsWith('/spec/') ? pointer.slice('/spec'.length) : pointer;
  const tokens = pointerTokens(specPointer);
  if (!tokens) return undefined;
  const path: PathStep[] = [];
  let objectFields: readonly FieldMapping[] | undefined = fields;
  let mapping: ValueMapping | undefined;
  for (const token of tokens) {
    if (objectFields) {
      const field: FieldMapping | undefined = objectFields.find((f) => f.property === token);
      if (!field) break;
      path.push(field.attribute);
      mapping = field.mapping;
    } else if (mapping?.kind === 'list' && /^\d+$/.test(token)) {
      path.push(parseInt(token, 10));
      mapping = mapping.element;
    } else if (mapping?.kind === 'map') {
      path.push({ key: token });
      mapping = mapping.element;
    } else break;
    const next: ValueMapping = mapping;
    objectFields = next.kind === 'object' ? next.fields : undefined;
  }
  return path.length ? path : undefined;
}

/** Node's TLS verification failures (codes such as DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID). */
export function untrustedCertificate(causeMessage: string): boolean {
  return /(^|[\s:])(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)\b/.test(
    causeMessage,
  );
}
