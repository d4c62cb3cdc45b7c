// RFC 8785 (JCS) canonical JSON and the "sha256:<hex>" digests that Host API v1 uses for
// schemaDigest, packageDigest, specDigest and manifestDigest. Shared by the reference Host
// and the Host client, which must agree on these bytes without depending on each other.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** The canonical (RFC 8785) serialization of an I-JSON value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) {
    throw new TypeError('value has no JSON representation');
  }
  return text;
}

/** `sha256:` + lowercase hex SHA-256 of the canonical serialization of `value`. */
export function jcsDigest(value: unknown): string {
  return sha256Digest(Buffer.from(canonicalJson(value), 'utf8'));
}

/** `sha256:` + lowercase hex SHA-256 of raw bytes (package files, artifact blobs). */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
