// Long-running Operations (wire reference §13): a 202 answer names an Operation that is
// polled until it is done, honouring Retry-After, with jittered backoff and an overall
// deadline. A terminal failure becomes the same HostApiError a direct refusal would be; a
// poll that cannot finish becomes AcceptedOutcomeUnknownError, so callers can persist the
// operation id and resume instead of repeating the mutation.
import { createHash } from 'node:crypto';
import { AcceptedOutcomeUnknownError, ERROR_CODES, HostApiError, HostClientError, isHostErrorCode, ProtocolViolationError } from './errors.js';
import { readOperation, Reader, type OperationDocument } from './decode.js';
import { expectStatus, seg, type HostConnection } from './connection.js';
import { firstHeader, parseRetryAfter } from './transport.js';

export class OperationsApi {
  constructor(private readonly conn: HostConnection) {}

  /** GET {api}/operations/{id}: the current Operation document. */
  async get(id: string): Promise<{ operation: OperationDocument; retryAfterMs?: number }> {
    const route = 'operation';
    const api = await this.conn.api();
    const res = await this.conn.transport.send({ route, method: 'GET', path: `${api}/operations/${seg(id)}`, safeToRetry: true });
    expectStatus(route, res, [200]);
    const operation = readOperation(new Reader(route), res.body);
    if (operation.id !== id) throw new ProtocolViolationError(route, `asked for operation ${id}, got ${operation.id}`);
    const retryAfterMs = parseRetryAfter(firstHeader(res.headers['retry-after']));
    return { operation, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  /** POST {api}/operations/{id}/cancel. A cancelled Operation is terminal with operation_cancelled. */
  async cancel(id: string): Promise<OperationDocument> {
    const route = 'operation-cancel';
    const api = await this.conn.api();
    const key = `takoform-cancel-${createHash('sha256').update(id).digest('hex')}`;
    const res = await this.conn.transport.send({
      route,
      method: 'POST',
      path: `${api}/operations/${seg(id)}/cancel`,
      headers: { 'idempotency-key': key },
      safeToRetry: true,
    });
    expectStatus(route, res, [200]);
    const operation = readOperation(new Reader(route), res.body);
    if (operation.id !== id) throw new ProtocolViolationError(route, `cancelled operation ${id}, got ${operation.id}`);
    return operation;
  }

  /**
   * Polls until the Operation is done and returns its `result`; a terminal error is thrown
   * as HostApiError. Anything that stops the wait early is AcceptedOutcomeUnknownError.
   */
  async waitForResult(
    route: string,
    accepted: OperationDocument,
    firstRetryAfterMs: number | undefined,
    uid: string | undefined,
    timeoutMs = this.conn.operationTimeoutMs,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let current = accepted;
    let delay = firstRetryAfterMs ?? 250;
    let attempt = 0;
    const knownUid = () => uid ?? current.target?.uid;
    const stop = this.conn.stopSignal;
    const stopped = () => new AcceptedOutcomeUnknownError(route, accepted.id, knownUid(), 'the wait was stopped (the CLI was interrupted)', true);
    while (!current.done) {
      if (stop?.aborted) throw stopped();
      if (Date.now() + delay > deadline) {
        throw new AcceptedOutcomeUnknownError(route, accepted.id, knownUid(), `still running after ${Math.round(timeoutMs / 1000)} s`);
      }
      await sleep(delay, stop);
      if (stop?.aborted) throw stopped();
      try {
        const polled = await this.get(accepted.id);
        current = polled.operation;
        attempt++;
        // Retry-After wins; otherwise exponential backoff with full jitter, capped at 15 s.
        delay = polled.retryAfterMs ?? Math.min(15_000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
      } catch (e) {
        if (e instanceof HostApiError && e.code === 'operation_not_found') {
          throw new AcceptedOutcomeUnknownError(
            route,
            accepted.id,
            knownUid(),
            'the Host no longer has the operation record; read the resource to learn the outcome',
          );
        }
        throw new AcceptedOutcomeUnknownError(route, accepted.id, knownUid(), e instanceof HostClientError ? e.message : String(e));
      }
    }
    if (current.error) {
      const code = current.error.code;
      if (!isHostErrorCode(code)) throw new ProtocolViolationError('operation', `terminal error code ${code} is not in the v1 taxonomy`);
      throw new HostApiError(route, code, ERROR_CODES[code], false, current.error.requestId, current.error.message, current.error.hostCode);
    }
    return current.result ?? {};
  }
}

/** Waits `ms`, or less if `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Reads a 202 body: `{"operation": {...}}` with a pending (or already done) Operation. */
export function readAccepted(route: string, body: unknown): OperationDocument {
  const r = new Reader(route);
  const envelope = r.object(body, 'accepted response', ['operation']);
  return readOperation(r, envelope.operation);
}
