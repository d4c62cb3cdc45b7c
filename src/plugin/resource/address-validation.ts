// Offline checks of what names a Host resource: `name` and `space`. They use the Host's own
// grammars (src/common/grammar.ts), so `validate` refuses exactly what the Host's prepare
// would, with zero Host requests and a diagnostic on the attribute. Unknown and null values are left alone (decided later, or
// defaulted from the provider configuration).
import { resourceNameProblem, spaceIdProblem } from '../../common/grammar.js';
import { errorDiag, type Diagnostic } from '../diag/diagnostics.js';
import type { TfObject, TfValue } from '../values/tf-value.js';

/** Problems with `name` and `space` of a resource (or data source) configuration. */
export function addressDiagnostics(typeName: string, config: TfObject): Diagnostic[] {
  const found: Diagnostic[] = [];
  const name = text(config.name);
  if (name !== undefined) {
    const problem = resourceNameProblem(name);
    if (problem) {
      found.push(
        errorDiag(
          'Invalid resource name',
          `${typeName} name ${JSON.stringify(name)} is not a valid Host resource name: ${problem}. ` +
            'A name is a DNS label: 1 to 63 lower-case letters, digits and "-", starting with a letter and not ending with "-" (for example "web-1").',
          ['name'],
        ),
      );
    }
  }
  const space = text(config.space);
  if (space !== undefined) {
    const problem = spaceIdDiagnostic(typeName, space, ['space']);
    if (problem) found.push(problem);
  }
  return found;
}

/** A SpaceID problem as a diagnostic on `path` (also used for the provider's `space`). */
export function spaceIdDiagnostic(subject: string, space: string, path: string[]): Diagnostic | undefined {
  const problem = spaceIdProblem(space);
  if (!problem) return undefined;
  return errorDiag(
    'Invalid space',
    `${subject} space ${JSON.stringify(space)} is not a valid SpaceID: ${problem}. ` +
      'A SpaceID is 1 to 255 characters without "/", control characters, or white space at either end; it is used exactly as written.',
    path,
  );
}

function text(value: TfValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
