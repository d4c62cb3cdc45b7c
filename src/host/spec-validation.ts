// Desired-spec admission for one installed Definition: default materialization, then JSON
// Schema 2020-12 validation of the materialized spec, then the declared constraints. The schema
// is compiled once, when the Definition is installed, so a Definition whose schema does not
// compile is refused at start-up rather than at the first request.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { canonicalJson, sha256Digest } from '../common/digest.js';
import { checkSpecConstraints } from './constraints.js';
import { materializeDefaults } from '../common/json-schema-defaults.js';
import type { FormDefinition } from './form-definition.js';
import { appendPointer } from '../common/json-pointer.js';
import type { JsonObject } from '../common/json-value.js';
import type { SpecProblem } from './spec-problem.js';

export interface DesiredSpecCheck {
  /** The materialized spec in canonical member order: what is digested, stored and echoed. */
  readonly spec: JsonObject;
  /** JCS digest of `spec` (wire reference §6.3). */
  readonly specDigest: string;
  /** Empty when the spec is admissible. Pointers are relative to the spec. */
  readonly problems: readonly SpecProblem[];
}

/** validate answers at most 256 diagnostics; more would say nothing new. */
const MAXIMUM_PROBLEMS = 256;

export class DesiredSpecChecker {
  private readonly validateSchema: ValidateFunction;

  constructor(private readonly definition: FormDefinition) {
    // One Ajv per Definition: schemas from different publishers may reuse an `$id`, and each
    // Definition must be judged by its own bytes only. `strict: false` because Definitions carry
    // x-takoform-* annotation keywords that Ajv does not know.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    this.validateSchema = ajv.compile(definition.desiredSchema);
  }

  check(input: JsonObject): DesiredSpecCheck {
    // Canonical member order makes every echo of one desired state byte-identical, whatever
    // order the client wrote it in (prepare, apply and read all render this object).
    const canonical = canonicalJson(materializeDefaults(this.definition.desiredSchema, input));
    const spec = JSON.parse(canonical) as JsonObject;
    const specDigest = sha256Digest(Buffer.from(canonical, 'utf8'));
    if (!this.validateSchema(spec)) {
      const problems = (this.validateSchema.errors ?? []).map(problemFromSchemaError);
      return { spec, specDigest, problems: problems.slice(0, MAXIMUM_PROBLEMS) };
    }
    // Constraints assume the shape the schema guarantees, so they run only on a schema-valid spec.
    return { spec, specDigest, problems: checkSpecConstraints(this.definition.constraints, spec) };
  }
}

function problemFromSchemaError(error: ErrorObject): SpecProblem {
  const params: Record<string, unknown> = error.params;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    return {
      pointer: appendPointer(error.instancePath, params.additionalProperty),
      message: "is not a member the Form's desiredSchema allows",
    };
  }
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    return { pointer: appendPointer(error.instancePath, params.missingProperty), message: 'is required' };
  }
  return { pointer: error.instancePath, message: error.message ?? `fails the "${error.keyword}" rule` };
}
