// Maps method + path to a route name. A Form group is one ordinary path segment, and group, kind
// and name are told apart by their grammars (wire reference §2.2). Segments are percent-decoded
// one by one; a segment that decodes to contain "/" is never routed. Anything unmatched, an
// unknown method included, is answered resource_not_found by the dispatcher.
import { isFormGroup, isFormKind, isResourceName } from '../grammar.js';

export const DISCOVERY_PATH = '/.well-known/takoform/v1';
export const API_ROOT_PATH = '/apis/forms.takoform.com/v1';

export type RouteName =
  | 'discovery'
  | 'forms'
  | 'form-definition'
  | 'validate'
  | 'prepare'
  | 'apply'
  | 'read'
  | 'delete'
  | 'observe'
  | 'import'
  | 'operation'
  | 'operation-cancel'
  | 'support-forms'
  | 'support-form'
  | 'support-interface'
  | 'support-binding'
  | 'support-standard-service'
  | 'artifact-upload-start'
  | 'artifact-blob-upload'
  | 'artifact-commit'
  | 'artifact-manifest-read'
  | 'artifact-blob-head'
  | 'artifact-upload-abandon'
  | 'test-flip-ready'
  | 'test-remove';

export type PathParameter =
  'group' | 'kind' | 'name' | 'definitionVersion' | 'operationId' | 'contractName' | 'version' | 'protocol' | 'uploadId' | 'blobDigest' | 'manifestDigest';
export type PathParameters = Readonly<Partial<Record<PathParameter, string>>>;

export interface RouteMatch {
  readonly name: RouteName;
  readonly params: PathParameters;
}

interface Capture {
  readonly capture: PathParameter;
  readonly test: (segment: string) => boolean;
}

type Segment = string | Capture;

const GROUP: Capture = { capture: 'group', test: isFormGroup };
const KIND: Capture = { capture: 'kind', test: isFormKind };
const NAME: Capture = { capture: 'name', test: isResourceName };
// The version is checked by the route so a malformed one is invalid_argument, not "no route".
const VERSION: Capture = { capture: 'definitionVersion', test: (segment) => segment.length > 0 };

// Handles and contract names are checked by their routes (malformed is invalid_argument or 404 there).
const OPERATION_ID: Capture = { capture: 'operationId', test: (segment) => segment.length > 0 };
const CONTRACT_NAME: Capture = { capture: 'contractName', test: (segment) => segment.length > 0 };
const CONTRACT_VERSION: Capture = { capture: 'version', test: (segment) => segment.length > 0 };
const PROTOCOL: Capture = { capture: 'protocol', test: (segment) => segment.length > 0 };
const UPLOAD_ID: Capture = { capture: 'uploadId', test: (segment) => segment.length > 0 };
const BLOB_DIGEST: Capture = { capture: 'blobDigest', test: (segment) => segment.length > 0 };
// Only a digest-shaped segment reads a manifest, so /artifacts/uploads is never one.
const MANIFEST_DIGEST: Capture = { capture: 'manifestDigest', test: (segment) => segment.startsWith('sha256:') };

/** Test-only admin routes (served only with --enable-test-switches). */
export const TEST_ADMIN_PATH = '/_takoform-test/v1';

const API = API_ROOT_PATH.slice(1).split('/');
const TEST_ADMIN = TEST_ADMIN_PATH.slice(1).split('/');

const ROUTES: readonly { method: string; name: RouteName; segments: readonly Segment[] }[] = [
  { method: 'GET', name: 'discovery', segments: DISCOVERY_PATH.slice(1).split('/') },
  { method: 'GET', name: 'forms', segments: [...API, 'forms'] },
  { method: 'GET', name: 'form-definition', segments: [...API, 'form-definitions', GROUP, KIND] },
  { method: 'POST', name: 'validate', segments: [...API, 'resources', 'validate'] },
  { method: 'POST', name: 'prepare', segments: [...API, 'resources', 'prepare'] },
  { method: 'PUT', name: 'apply', segments: [...API, 'resources', GROUP, KIND, NAME] },
  { method: 'GET', name: 'read', segments: [...API, 'resources', GROUP, KIND, NAME] },
  { method: 'DELETE', name: 'delete', segments: [...API, 'resources', GROUP, KIND, NAME] },
  { method: 'POST', name: 'observe', segments: [...API, 'resources', GROUP, KIND, NAME, 'observe'] },
  { method: 'GET', name: 'support-forms', segments: [...API, 'support', 'forms'] },
  { method: 'GET', name: 'support-form', segments: [...API, 'support', 'forms', GROUP, KIND, VERSION] },
  { method: 'POST', name: 'import', segments: [...API, 'resources', GROUP, KIND, NAME, 'import'] },
  { method: 'GET', name: 'operation', segments: [...API, 'operations', OPERATION_ID] },
  { method: 'POST', name: 'operation-cancel', segments: [...API, 'operations', OPERATION_ID, 'cancel'] },
  { method: 'GET', name: 'support-interface', segments: [...API, 'support', 'interfaces', CONTRACT_NAME, CONTRACT_VERSION] },
  { method: 'GET', name: 'support-binding', segments: [...API, 'support', 'bindings', CONTRACT_NAME, CONTRACT_VERSION] },
  { method: 'GET', name: 'support-standard-service', segments: [...API, 'support', 'standard-services', PROTOCOL] },
  { method: 'POST', name: 'test-flip-ready', segments: [...TEST_ADMIN, 'flip-ready'] },
  { method: 'POST', name: 'test-remove', segments: [...TEST_ADMIN, 'remove'] },
  { method: 'POST', name: 'artifact-upload-start', segments: [...API, 'artifacts', 'uploads'] },
  { method: 'PUT', name: 'artifact-blob-upload', segments: [...API, 'artifacts', 'uploads', UPLOAD_ID, 'blobs', BLOB_DIGEST] },
  { method: 'POST', name: 'artifact-commit', segments: [...API, 'artifacts', 'uploads', UPLOAD_ID, 'commit'] },
  { method: 'DELETE', name: 'artifact-upload-abandon', segments: [...API, 'artifacts', 'uploads', UPLOAD_ID] },
  { method: 'GET', name: 'artifact-manifest-read', segments: [...API, 'artifacts', MANIFEST_DIGEST] },
  { method: 'HEAD', name: 'artifact-blob-head', segments: [...API, 'artifacts', 'blobs', BLOB_DIGEST] },
];

export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const segments = decodeSegments(path);
  if (segments === undefined) return undefined;
  for (const route of ROUTES) {
    if (route.method !== method || route.segments.length !== segments.length) continue;
    const params = matchSegments(route.segments, segments);
    if (params !== undefined) return { name: route.name, params };
  }
  return undefined;
}

function matchSegments(pattern: readonly Segment[], segments: readonly string[]): PathParameters | undefined {
  const params: Partial<Record<PathParameter, string>> = {};
  for (const [index, expected] of pattern.entries()) {
    const actual = segments[index];
    if (typeof expected === 'string') {
      if (actual !== expected) return undefined;
    } else {
      if (!expected.test(actual)) return undefined;
      params[expected.capture] = actual;
    }
  }
  return params;
}

function decodeSegments(path: string): string[] | undefined {
  if (!path.startsWith('/')) return undefined;
  const decoded: string[] = [];
  for (const raw of path.slice(1).split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    if (segment === '' || segment.includes('/')) return undefined;
    decoded.push(segment);
  }
  return decoded;
}
