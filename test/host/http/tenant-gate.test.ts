// The large-body gate: one tenant's large requests are worked on one at a time, other tenants
// are not held back by them, and a failed request does not block the tenant's next one.
import { describe, expect, it } from 'vitest';
import { TenantGate } from '../../../src/host/http/tenant-gate.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TenantGate', () => {
  it('runs one piece of work per tenant at a time, tenants side by side', async () => {
    const gate = new TenantGate();
    const active = new Map<string, number>();
    const most = new Map<string, number>();
    let together = 0;
    let mostTogether = 0;
    const work =
      (tenant: string, fail = false) =>
      async () => {
        active.set(tenant, (active.get(tenant) ?? 0) + 1);
        together += 1;
        most.set(tenant, Math.max(most.get(tenant) ?? 0, active.get(tenant)!));
        mostTogether = Math.max(mostTogether, together);
        await sleep(5);
        active.set(tenant, active.get(tenant)! - 1);
        together -= 1;
        if (fail) throw new Error('refused');
        return tenant;
      };
    const results = await Promise.allSettled([
      gate.run('a', work('a')),
      gate.run('a', work('a', true)),
      gate.run('a', work('a')),
      gate.run('b', work('b')),
      gate.run('b', work('b')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(most.get('a')).toBe(1);
    expect(most.get('b')).toBe(1);
    expect(mostTogether).toBe(2);
  });
});
