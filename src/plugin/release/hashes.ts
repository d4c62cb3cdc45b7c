// The two package hashes of a lock file (`.terraform.lock.hcl`) and of a network mirror's
// `<version>.json`, computed the way tofu/terraform compute them:
//   h1: Go's dirhash Hash1 over the files of the package (for a zip: its file entries) —
//       sorted lines "<sha256 hex>  <name>\n", sha256 of their concatenation, base64;
//   zh: the sha256 (hex) of the zip file itself, the "legacy" zip hash registries publish.
import { createHash } from 'node:crypto';

export interface PackageFile {
  /** Path inside the package, with `/`. */
  readonly name: string;
  readonly data: Uint8Array;
}

export function h1Hash(files: readonly PackageFile[]): string {
  // Go sorts the names byte-wise; for the ASCII names of a package that is JS's default order.
  const lines = [...files]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => `${createHash('sha256').update(f.data).digest('hex')}  ${f.name}\n`)
    .join('');
  return `h1:${createHash('sha256').update(lines).digest('base64')}`;
}

export function zhHash(zip: Uint8Array): string {
  return `zh:${sha256Hex(zip)}`;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
