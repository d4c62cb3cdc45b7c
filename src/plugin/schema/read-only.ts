// Configured values of attributes the provider alone sets (computed, not optional: `id`,
// `uid`, `outputs`, …). Neither CLI refuses them: core decodes every attribute of the schema
// from the configuration and leaves this check to the provider, so without it
// `uid = "x"` or `outputs = { … }` would be accepted and silently ignored (a plan of "no
// changes"). Refused at validate, with the attribute's path, as the plugin framework does.
import { errorDiag, hclPath, type AttributePath, type Diagnostic } from '../diag/diagnostics.js';
import { isObjectValue, type TfObject, type TfValue } from '../values/tf-value.js';
import type { Nesting, TfAttribute, TfBlock } from './tf-schema.js';

/** One error per configured read-only attribute of `config` (a resource or data source of `typeName`). */
export function readOnlyDiagnostics(typeName: string, block: TfBlock, config: TfObject): Diagnostic[] {
  const found: Diagnostic[] = [];
  const visit = (attributes: readonly TfAttribute[], value: TfObject, path: AttributePath): void => {
    for (const attribute of attributes) {
      const v = value[attribute.name] ?? null;
      if (v === null) continue;
      const at = [...path, attribute.name];
      if (attribute.computed && !attribute.optional && !attribute.required) {
        found.push(
          errorDiag(
            'Read-only attribute set in the configuration',
            `${typeName}: \`${hclPath(at)}\` is set by the provider from the Host; a configured value would be ignored. Remove \`${hclPath(at)}\` from the configuration (read it as ${typeName}.NAME.${hclPath(at)}).`,
            at,
          ),
        );
        continue;
      }
      if (attribute.nested)
        for (const [element, elementPath] of elementsOf(attribute.nested.nesting, v, at)) visit(attribute.nested.attributes, element, elementPath);
    }
  };
  visit(block.attributes, config, []);
  for (const nested of block.blocks ?? []) {
    const v = config[nested.typeName];
    if (v && isObjectValue(v)) visit(nested.block.attributes, v, [nested.typeName]);
  }
  return found;
}

/** The objects a nested attribute's value holds, with their paths (unknown parts skipped). */
function elementsOf(nesting: Nesting, value: TfValue, path: AttributePath): [TfObject, AttributePath][] {
  if (nesting === 'SINGLE') return isObjectValue(value) ? [[value, path]] : [];
  if (Array.isArray(value)) return value.flatMap((e, i) => (e !== null && isObjectValue(e) ? [[e, [...path, i]] as [TfObject, AttributePath]] : []));
  if (isObjectValue(value))
    return Object.entries(value).flatMap(([k, e]) => (e !== null && isObjectValue(e) ? [[e, [...path, { key: k }]] as [TfObject, AttributePath]] : []));
  return [];
}
