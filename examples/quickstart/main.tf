# Quickstart: one RangeSequence on a Takoform Host.
# The provider reads TAKOFORM_ENDPOINT, TAKOFORM_TOKEN and TAKOFORM_SPACE, so no secret
# is written here. Resource types come from .takoform.lock.json beside this file.

terraform {
  required_providers {
    takoform = {
      source  = "registry.takoform.dev/takoform/takoform"
      version = "0.2.0"
    }
  }
}

provider "takoform" {}

variable "upper" {
  type    = number
  default = 6
}

resource "takoform_range_sequence" "example" {
  name  = "quickstart-range"
  lower = 3
  upper = var.upper
  # `mode` is left out: the Host fills in its default ("safe") and the plan shows it.
}

output "uid" {
  value = takoform_range_sequence.example.uid
}

output "mode" {
  value = takoform_range_sequence.example.mode
}
