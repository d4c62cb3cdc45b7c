// What each route needs before its handler runs: whether a caller is required, whether it takes
// a JSON body or none, which query keys it understands (anything else is refused), whether it is
// idempotency-keyed (test delays then run inside the in-flight window), and whether it is a
// test-only admin route (served only with --enable-test-switches).
import type { AuthenticationMode } from '../auth.js';
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteName } from '../http/router.js';
import { EXACT_RESOURCE_QUERY_KEYS } from '../resources/exact-resource.js';
import { handleApply } from './apply.js';
import { handleBlobHead, handleBlobUpload, handleManifestRead, handleUploadAbandon, handleUploadCommit, handleUploadStart } from './artifacts.js';
import { handleDelete } from './delete.js';
import { handleDiscovery } from './discovery.js';
import { FORM_DEFINITION_QUERY_KEYS, handleFormDefinition } from './form-definitions.js';
import { FORMS_QUERY_KEYS, handleForms } from './forms.js';
import { handleImport } from './import.js';
import { handleObserve } from './observe.js';
import { handleOperation, handleOperationCancel } from './operations.js';
import { handlePrepare } from './prepare.js';
import { handleRead } from './read.js';
import { handleSupportBinding, handleSupportInterface, handleSupportStandardService } from './support-contracts.js';
import { handleSupportForm, handleSupportForms } from './support-forms.js';
import { handleFlipReady, handleRemove } from './test-admin.js';
import { handleValidate } from './validate.js';

export interface RouteDefinition {
  readonly authentication: AuthenticationMode;
  /** 'bytes': raw bytes handed over unparsed (blob uploads). */
  readonly body: 'json' | 'none' | 'bytes';
  readonly queryKeys: readonly string[];
  readonly idempotent: boolean;
  readonly testOnly: boolean;
  readonly handle: (host: HostContext, request: RouteRequest) => HostResponse | Promise<HostResponse>;
}

type Handler = RouteDefinition['handle'];

function route(body: RouteDefinition['body'], handle: Handler, options: Partial<RouteDefinition> = {}): RouteDefinition {
  return { authentication: 'required', body, queryKeys: [], idempotent: false, testOnly: false, handle, ...options };
}

export const ROUTE_TABLE: Readonly<Record<RouteName, RouteDefinition>> = {
  // Ambiguity A6: discovery answers with or without a token.
  discovery: route('none', handleDiscovery, { authentication: 'optional' }),
  forms: route('none', handleForms, { queryKeys: FORMS_QUERY_KEYS }),
  'form-definition': route('none', handleFormDefinition, { queryKeys: FORM_DEFINITION_QUERY_KEYS }),
  validate: route('json', handleValidate),
  prepare: route('json', handlePrepare),
  apply: route('json', handleApply, { idempotent: true }),
  read: route('none', handleRead, { queryKeys: EXACT_RESOURCE_QUERY_KEYS }),
  import: route('json', handleImport, { idempotent: true }),
  observe: route('none', handleObserve, { queryKeys: EXACT_RESOURCE_QUERY_KEYS }),
  delete: route('none', handleDelete, { queryKeys: EXACT_RESOURCE_QUERY_KEYS, idempotent: true }),
  operation: route('none', handleOperation),
  'operation-cancel': route('none', handleOperationCancel, { idempotent: true }),
  'support-forms': route('none', handleSupportForms),
  'support-form': route('none', handleSupportForm),
  'support-interface': route('none', handleSupportInterface),
  'support-binding': route('none', handleSupportBinding),
  'support-standard-service': route('none', handleSupportStandardService),
  'artifact-upload-start': route('json', handleUploadStart, { idempotent: true }),
  'artifact-blob-upload': route('bytes', handleBlobUpload),
  'artifact-commit': route('none', handleUploadCommit, { idempotent: true }),
  'artifact-manifest-read': route('none', handleManifestRead),
  'artifact-blob-head': route('none', handleBlobHead),
  'artifact-upload-abandon': route('none', handleUploadAbandon, { idempotent: true }),
  'test-flip-ready': route('json', handleFlipReady, { testOnly: true }),
  'test-remove': route('json', handleRemove, { testOnly: true }),
};
