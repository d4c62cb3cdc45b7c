// HCL shared by the end-to-end suites: the provider requirement every test configuration starts with.
export const PROVIDER_BLOCK = `terraform {
  required_providers {
    takoform = { source = "registry.takoform.dev/takoform/takoform", version = "0.2.0" }
  }
}
provider "takoform" {}
`;
