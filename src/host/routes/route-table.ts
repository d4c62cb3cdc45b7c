// What each route needs before its handler runs: whether a caller is required, whether it takes
// a JSON body or none, and which query keys it understands (anything else is refused).
import type { AuthenticationMode } from '../auth.js';
import type { HostContext } from '../host-context.js';
import type { HostResponse } from '../http/response.js';
import type { RouteRequest } from '../http/route-request.js';
import type { RouteName } from '../http/router.js';
import { EXACT_RESOURCE_QUERY_KEYS } from '../resources/exact-resource.js';
import { handleApply } from './apply.js';
import { handleDelete } from './delete.js';
import { handleDiscovery } from './discovery.js';
import { FORM_DEFINITION_QUERY_KEYS, handleFormDefinition } from './form-definitions.js';
import { FORMS_QUERY_KEYS, handleForms } from './forms.js';
import { handleObserve } from './observe.js';
import { handlePrepare } from './prepare.js';
import { handleRead } from './read.js';
import { handleSupportForm, handleSupportForms } from './support-forms.js';
import { handleValidate } from './validate.js';

export interface RouteDefinition {
  readonly authentication: AuthenticationMode;
  readonly body: 'json' | 'none';
  readonly queryKeys: readonly string[];
  readonly handle: (host: HostContext, request: RouteRequest) => HostResponse;
}

export const ROUTE_TABLE: Readonly<Record<RouteName, RouteDefinition>> = {
  // Ambiguity A6: discovery answers with or without a token.
  discovery: { authentication: 'optional', body: 'none', queryKeys: [], handle: handleDiscovery },
  forms: { authentication: 'required', body: 'none', queryKeys: FORMS_QUERY_KEYS, handle: handleForms },
  'form-definition': {
    authentication: 'required',
    body: 'none',
    queryKeys: FORM_DEFINITION_QUERY_KEYS,
    handle: handleFormDefinition,
  },
  validate: { authentication: 'required', body: 'json', queryKeys: [], handle: handleValidate },
  prepare: { authentication: 'required', body: 'json', queryKeys: [], handle: handlePrepare },
  apply: { authentication: 'required', body: 'json', queryKeys: [], handle: handleApply },
  read: { authentication: 'required', body: 'none', queryKeys: EXACT_RESOURCE_QUERY_KEYS, handle: handleRead },
  observe: { authentication: 'required', body: 'none', queryKeys: EXACT_RESOURCE_QUERY_KEYS, handle: handleObserve },
  delete: { authentication: 'required', body: 'none', queryKeys: EXACT_RESOURCE_QUERY_KEYS, handle: handleDelete },
  'support-forms': { authentication: 'required', body: 'none', queryKeys: [], handle: handleSupportForms },
  'support-form': { authentication: 'required', body: 'none', queryKeys: [], handle: handleSupportForm },
};
