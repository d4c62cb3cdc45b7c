// Offline validation of a resource configuration against the Form's desired JSON Schema
// (2020-12, with ajv), so that `tofu validate` and plan report enum, pattern and bounds
// violations with the attribute path before anything reaches the Host. Values that are not
// known yet are left out, and checks that could only fail because of a left-out value
// (required members and their kin) are not reported; the Host's prepare covers them later.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { errorDiag, hclPath, hclValue, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { documentPath, pointerToPath } from '../diag/host-diagnostics.js';
import { isWhollyKnown, type TfObject, type TfValue } from '../values/tf-value.js';
import { SpecConversionError, toSpec, type FieldMapping } from './form-mapping.js';
import { appendPointer } from '../../common/json-pointer.js';
import { materializeDefaults } from '../../common/json-schema-defaults.js';
import type { JsonObject } from '../../host-client/wire-types.js';

const PRESENCE_KEYWORDS = new Set(['required', 'dependentRequired', 'dependentSchemas', 'minProperties']);

export class ConfigValidator {
  private compiled: ValidateFunction | undefined;

  constructor(
    private readonly typeName: string,
    private readonly schema: JsonObject,
    private readonly fields: readonly FieldMapping[],
  ) {}

  async validate(config: TfObject): Promise<Diagnostic[]> {
    const diagnostics: Diagnostic[] = [];
    const known: Record<string, TfValue> = {};
    let complete = true;
    for (const f of this.fields) {
      const v = config[f.attribute] ?? null;
      if (isWhollyKnown(v)) known[f.attribute] = v;
      else complete = false;
    }
    let doc: JsonObject;
    try {
      doc = toSpec(this.fields, known);
    } catch (e) {
      if (e instanceof SpecConversionError) return [errorDiag('Invalid value', `${this.typeName}: ${e.message}.`, e.path)];
      throw e;
    }
    const validate = await this.compile();
    // Judged as the Host judges it: after its defaults are filled in. Two list items that
    // differ only in a defaulted member are duplicates to the Host's uniqueItems check.
    if (validate(materializeDefaults(this.schema, doc))) return diagnostics;
    for (const error of validate.errors ?? []) {
      if (PRESENCE_KEYWORDS.has(error.keyword) && (!complete || error.keyword !== 'required')) continue;
      const path = pointerToPath(pointerOf(error), this.fields);
      diagnostics.push(errorDiag('Value not allowed by the Form', `${this.typeName}: ${refusal(error, path ? hclPath(path) : undefined)}.`, path));
    }
    return diagnostics;
  }

  /**
   * Checks a whole spec document as written (the `spec` of takoform_resource); `pathOf`
   * turns a JSON Pointer into the spec into the attribute path to report.
   */
  async validateDocument(doc: JsonObject, pathOf: (pointer: string) => AttributePath): Promise<Diagnostic[]> {
    const validate = await this.compile();
    if (validate(materializeDefaults(this.schema, doc))) return [];
    return (validate.errors ?? []).map((error) => {
      const path = pathOf(pointerOf(error));
      const [attribute] = path;
      const where = typeof attribute === 'string' ? hclPath(documentPath(attribute, pointerOf(error))) : undefined;
      return errorDiag('Value not allowed by the Form', `${this.typeName}: ${refusal(error, where)}.`, path);
    });
  }

  private async compile(): Promise<ValidateFunction> {
    if (!this.compiled) {
      // Loaded on first use: most provider launches never validate, and start-up matters.
      const { Ajv2020 } = await import('ajv/dist/2020.js');
      // validateSchema: false — the Form schema was validated by the Host that serves it;
      // checking it against the 2020-12 meta-schema again means compiling that meta-schema
      // (~50 ms) in every provider process that validates a configuration. meta: false — and
      // then the meta-schemas need not even be added (~10 ms uncompiled): nothing checks a
      // schema against them, and `$schema` in a Form schema is not resolved while compiling.
      const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: false, meta: false });
      this.compiled = ajv.compile(this.schema);
    }
    return this.compiled;
  }
}

function pointerOf(error: ErrorObject): string {
  if (error.keyword === 'required' && typeof error.params.missingProperty === 'string') {
    return appendPointer(error.instancePath, error.params.missingProperty);
  }
  if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string') {
    return `${error.instancePath}/${error.params.additionalProperty}`;
  }
  return error.instancePath;
}

/**
 * One refusal in the words of the configuration: the HCL attribute path, what the value must
 * be (values in HCL syntax), and the schema rule, so the user can find it in the Form.
 */
function refusal(error: ErrorObject, where: string | undefined): string {
  const at = where ?? (pointerOf(error) ? `the Form field ${pointerOf(error)}` : 'the resource');
  return `${at} ${describe(error)} (JSON Schema rule \`${error.keyword}\` of the Form)`;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
    return `must be one of ${error.params.allowedValues.map((v: unknown) => hclValue(v)).join(', ')}`;
  }
  if (error.keyword === 'const') return `must be ${hclValue(error.params.allowedValue)}`;
  if (error.keyword === 'required') return 'must be set';
  if (error.keyword === 'additionalProperties') return 'is not part of the Form';
  return error.message ?? 'is not allowed';
}
