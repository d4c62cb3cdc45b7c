// Bearer-token authentication (wire reference §3): a static token table maps each token to the
// authenticated tenant and principal. No path, query or body member ever names a tenant.
import { createHash } from 'node:crypto';
import { parseIJson } from '../common/ijson.js';
import { HostError } from './errors.js';
import { isJsonObject } from '../common/json-value.js';

export interface TokenEntry {
  token: string;
  tenant: string;
  principal: string;
}

export interface Caller {
  readonly tenant: string;
  readonly principal: string;
}

/** `required`: every route but discovery. `optional`: discovery (ambiguity A6). */
export type AuthenticationMode = 'required' | 'optional';

// RFC 6750 b64token, which covers every token a client can send in the header.
const TOKEN_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
const BEARER_PATTERN = /^Bearer +([^ ]+) *$/i;

export class TokenTable {
  // Keyed by the token's SHA-256, so a lookup never compares secret bytes position by position.
  private readonly callers = new Map<string, Caller>();

  constructor(entries: readonly TokenEntry[]) {
    for (const [index, entry] of entries.entries()) {
      if (!TOKEN_PATTERN.test(entry.token)) throw new Error(`tokens[${index}].token is not a valid bearer token`);
      if (entry.tenant.length === 0 || entry.principal.length === 0) {
        throw new Error(`tokens[${index}] needs a non-empty tenant and principal`);
      }
      const key = tokenKey(entry.token);
      if (this.callers.has(key)) throw new Error(`tokens[${index}].token is listed twice`);
      this.callers.set(key, { tenant: entry.tenant, principal: entry.principal });
    }
  }

  /**
   * The caller named by an Authorization header. A missing header is `unauthenticated` only when
   * the route requires a caller; a header that is present but names nobody is always
   * `unauthenticated`, on discovery too, so a misconfigured client fails at its first call.
   */
  authenticate(authorization: string | undefined, mode: AuthenticationMode): Caller | undefined {
    if (authorization === undefined) {
      if (mode === 'optional') return undefined;
      throw new HostError('unauthenticated', 'an Authorization: Bearer <token> header is required');
    }
    const token = BEARER_PATTERN.exec(authorization)?.[1];
    const caller = token === undefined ? undefined : this.callers.get(tokenKey(token));
    if (caller === undefined) throw new HostError('unauthenticated', 'the bearer token names no principal of this Host');
    return caller;
  }
}

/** Reads a tokens file: `{"tokens":[{"token":"…","tenant":"…","principal":"…"}]}` (closed objects). */
export function parseTokensFile(bytes: Uint8Array): TokenEntry[] {
  const document = parseIJson(bytes);
  if (!isJsonObject(document) || Object.keys(document).join() !== 'tokens' || !Array.isArray(document.tokens)) {
    throw new Error('a tokens file must be {"tokens": [ ... ]}');
  }
  return document.tokens.map((entry, index) => {
    if (
      !isJsonObject(entry) ||
      Object.keys(entry).sort().join() !== 'principal,tenant,token' ||
      typeof entry.token !== 'string' ||
      typeof entry.tenant !== 'string' ||
      typeof entry.principal !== 'string'
    ) {
      throw new Error(`tokens[${index}] must be {"token": string, "tenant": string, "principal": string}`);
    }
    return { token: entry.token, tenant: entry.tenant, principal: entry.principal };
  });
}

function tokenKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
