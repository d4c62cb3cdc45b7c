// Planned private data: the Host's review binding from plan-time prepare, carried by core
// from PlanResourceChange to ApplyResourceChange (it is stored in saved plan files, so it
// holds digests only, never a credential).

export interface PlannedPrivate {
  readonly prepareDigest: string;
  readonly specDigest: string;
}

export function encodePrivate(p: PlannedPrivate | undefined): Buffer {
  return p ? Buffer.from(JSON.stringify({ v: 1, prepareDigest: p.prepareDigest, specDigest: p.specDigest })) : Buffer.alloc(0);
}

export function decodePrivate(bytes: Uint8Array | undefined): PlannedPrivate | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  try {
    const o = JSON.parse(Buffer.from(bytes).toString('utf8')) as Record<string, unknown>;
    if (o.v === 1 && typeof o.prepareDigest === 'string' && typeof o.specDigest === 'string') return { prepareDigest: o.prepareDigest, specDigest: o.specDigest };
  } catch {
    // Unreadable private data is treated as absent: apply then prepares again.
  }
  return undefined;
}
