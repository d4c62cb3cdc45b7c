// Fairness between tenants for requests with large bodies. Parsing and validating a large body is
// synchronous work on the one event loop every tenant shares; three such requests in flight run
// back to back, and another tenant's request waits for all three. Through this gate a tenant has
// at most one large-body request being worked on at a time: its others wait (bodies already
// read), and everyone else waits for at most one of them. Small requests never pass the gate.
export const LARGE_BODY_BYTES = 64 * 1024;

export class TenantGate {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` after the tenant's earlier gated work has settled. */
  run<T>(tenant: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(tenant) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(tenant, tail);
    void tail.then(() => {
      if (this.tails.get(tenant) === tail) this.tails.delete(tenant);
    });
    return result;
  }
}
