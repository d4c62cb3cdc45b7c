# A small platform: a shared sequence, reservations that point at it, a counter pair built
# by a module, and an existing Host resource adopted with an import block.
# Connection settings come from TAKOFORM_ENDPOINT / TAKOFORM_TOKEN / TAKOFORM_SPACE.

terraform {
  required_providers {
    takoform = {
      source  = "registry.takoform.dev/takoform/takoform"
      version = "0.2.0"
    }
  }
}

provider "takoform" {}

variable "environment" {
  type    = string
  default = "staging"
}

resource "takoform_range_sequence" "shared" {
  name  = "${var.environment}-shared"
  lower = 1
  upper = 10
  # mode is left to the Host default ("safe")
}

# References are written as the target's name: this orders the two resources.
resource "takoform_counter_reservation" "primary" {
  name   = "${var.environment}-primary"
  target = takoform_range_sequence.shared.name
}

module "counters" {
  source = "./modules/counter-pair"
  prefix = var.environment
  lower  = takoform_range_sequence.shared.lower
  upper  = takoform_range_sequence.shared.upper
}

# Adopt a resource that already exists on the Host (created out of band).
import {
  to = takoform_range_gauge.legacy
  id = "${var.environment}-legacy-gauge"
}

resource "takoform_range_gauge" "legacy" {
  name  = "${var.environment}-legacy-gauge"
  lower = 0
  upper = 100
}

data "takoform_forms" "available" {}

output "shared_mode" {
  description = "The default the Host filled in."
  value       = takoform_range_sequence.shared.mode
}

output "reservation_ready" {
  value = takoform_counter_reservation.primary.ready
}

output "counter_uids" {
  value = module.counters.uids
}

output "form_types" {
  value = sort([for f in data.takoform_forms.available.forms : f.type_name if f.type_name != null])
}
