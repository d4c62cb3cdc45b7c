# Artifacts: local files uploaded as content-addressed artifacts (Host API §14) and referenced
# by bundle-shaped Forms through their manifest digest. The digest is computed at plan time
# from the files, so a code change shows in the plan of every bundle that uses it; apply
# uploads only the files the Host does not hold yet. The state keeps digests, never bytes.
# Resource types come from .takoform.lock.json beside this file (the Host serves the
# WorkerBundle, StaticAssetBundle and SQLiteMigrationSet Forms).

terraform {
  required_providers {
    takoform = {
      source  = "registry.takoform.dev/takoform/takoform"
      version = "0.2.0"
    }
  }
}

provider "takoform" {}

# A worker: every module under worker/, index.js first to run.
resource "takoform_artifact" "worker" {
  kind        = "WorkerBundle"
  source_dir  = "${path.module}/worker"
  exclude     = ["**/*.md"]
  main_module = "index.js"
}

resource "takoform_worker_bundle" "api" {
  name            = "api"
  manifest_digest = takoform_artifact.worker.manifest_digest
}

# A static site: the whole site/ directory.
resource "takoform_artifact" "site" {
  kind       = "StaticAssetBundle"
  source_dir = "${path.module}/site"
}

resource "takoform_static_asset_bundle" "site" {
  name            = "site"
  manifest_digest = takoform_artifact.site.manifest_digest
}

# Migrations, listed explicitly: the list order is the order they are applied in.
resource "takoform_artifact" "schema" {
  kind = "MigrationBundle"
  files = [
    { path = "0001_create_items.sql", source = "${path.module}/migrations/0001_create_items.sql" },
    { path = "0002_add_price.sql", source = "${path.module}/migrations/0002_add_price.sql" },
  ]
}

resource "takoform_sqlite_migration_set" "schema" {
  name            = "schema"
  manifest_digest = takoform_artifact.schema.manifest_digest
}

output "worker_manifest_digest" {
  value = takoform_artifact.worker.manifest_digest
}

output "site_files" {
  value = length(takoform_artifact.site.inventory)
}
