# Two RangeCounters spanning a range, one in each mode.

terraform {
  required_providers {
    takoform = {
      source = "registry.takoform.dev/takoform/takoform"
    }
  }
}

variable "prefix" {
  type = string
}

variable "lower" {
  type = number
}

variable "upper" {
  type = number
}

resource "takoform_range_counter" "safe" {
  name  = "${var.prefix}-counter-safe"
  lower = var.lower
  upper = var.upper
}

resource "takoform_range_counter" "fast" {
  name  = "${var.prefix}-counter-fast"
  lower = var.lower
  upper = var.upper
  mode  = "fast"
}

output "uids" {
  value = [takoform_range_counter.safe.uid, takoform_range_counter.fast.uid]
}
