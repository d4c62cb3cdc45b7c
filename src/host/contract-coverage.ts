// Start-up warnings for installed Forms whose contracts nothing installed can satisfy: a
// reference requiring an Interface no installed Form provides, a reference accepting only
// exact FormRefs none of which is installed, an accepted Binding whose Binding Definition is
// not installed (or whose target Interface nobody provides). Such a Form installs (another
// Host may be configured later with the missing pieces, and resources without that relation
// still work), but a spec using the relation can only be refused, so the operator is told.
import type { FormCatalog } from './catalog.js';
import { describeContractRef, sameContractRef, type ContractRef } from './contract-ref.js';
import type { ContractCatalog } from './contract-documents.js';
import { describeFormRef } from './form-ref.js';

export function unsatisfiedContracts(
  catalog: FormCatalog,
  contracts: ContractCatalog,
  directoryOf: (formKey: string) => string | undefined = () => undefined,
): string[] {
  const forms = catalog.all();
  const provided = (ref: ContractRef) => forms.some((form) => form.definition.providedInterfaces.some((p) => sameContractRef(p, ref)));
  const warnings: string[] = [];
  for (const form of forms) {
    const missing: string[] = [];
    for (const relation of form.relations) {
      if (relation.requiredInterface !== undefined && !provided(relation.requiredInterface)) {
        missing.push(`${relation.relation} requires Interface ${describeContractRef(relation.requiredInterface)}, which no installed Form provides`);
      }
      if (relation.targetFormRefs !== undefined && !relation.targetFormRefs.some((ref) => catalog.exact(ref) !== undefined)) {
        missing.push(`${relation.relation} accepts only ${relation.targetFormRefs.map(describeFormRef).join(', ')}, none of which is installed`);
      }
    }
    for (const accepted of form.definition.acceptedBindings) {
      const binding = contracts.exactBinding(accepted);
      if (binding === undefined) missing.push(`accepts Binding ${describeContractRef(accepted)}, whose Binding Definition is not installed`);
      else if (!provided(binding.targetInterface)) {
        missing.push(
          `Binding ${describeContractRef(accepted)} targets Interface ${describeContractRef(binding.targetInterface)}, which no installed Form provides`,
        );
      }
    }
    if (missing.length > 0) {
      const where = directoryOf(describeFormRef(form.formRef));
      warnings.push(`${where ? `${where}: ` : ''}${describeFormRef(form.formRef)} installed, but nothing installed satisfies: ${missing.join('; ')}`);
    }
  }
  return warnings;
}
