// Fault switches for tests (off by default). They are honoured only when the Host was started
// with --enable-test-switches; otherwise the headers are ignored and the admin routes answer like
// unknown routes. Selected per request, so a test (or a fault-injecting proxy) can aim them:
//
//   Takoform-Test-Fault: code=backend_unavailable   answer that error code (fixed status, retryable
//                                                   when the code allows) before the route runs
//   Takoform-Test-Fault: delay=500                  wait 500 ms before executing (inside the
//                                                   idempotency in-flight window on mutating routes)
//   Takoform-Test-Fault: drop-after-commit          execute and commit, then drop the connection
//                                                   without answering
//   Takoform-Test-Async: 1                          answer this mutation with 202 + Operation
//
// Several faults combine with commas: "delay=300, drop-after-commit".
import type { IncomingHttpHeaders } from 'node:http';
import { HOST_ERROR_CODES, HostError, invalidArgument, type HostErrorCode } from './errors.js';
import type { HostContext } from './host-context.js';
import { headerValue } from './http/preconditions.js';

export const TEST_FAULT_HEADER = 'Takoform-Test-Fault';
export const TEST_ASYNC_HEADER = 'Takoform-Test-Async';
const MAXIMUM_DELAY_MS = 60_000;

export interface FaultPlan {
  readonly code: HostErrorCode | undefined;
  readonly delayMs: number;
  readonly dropAfterCommit: boolean;
}

export const NO_FAULT: FaultPlan = { code: undefined, delayMs: 0, dropAfterCommit: false };

export function readFaultPlan(host: HostContext, headers: IncomingHttpHeaders): FaultPlan {
  if (!host.testSwitches) return NO_FAULT;
  const value = headerValue(headers, TEST_FAULT_HEADER);
  if (value === undefined) return NO_FAULT;
  let code: HostErrorCode | undefined;
  let delayMs = 0;
  let dropAfterCommit = false;
  for (const part of value.split(',').map((piece) => piece.trim())) {
    const [name, argument] = part.split('=', 2);
    if (name === 'code' && (HOST_ERROR_CODES as readonly string[]).includes(argument ?? '')) {
      code = argument as HostErrorCode;
    } else if (name === 'delay' && /^[0-9]{1,5}$/.test(argument ?? '') && Number(argument) <= MAXIMUM_DELAY_MS) {
      delayMs = Number(argument);
    } else if (part === 'drop-after-commit') {
      dropAfterCommit = true;
    } else {
      throw invalidArgument(`${TEST_FAULT_HEADER} has an unknown fault "${part}"`, undefined, { header: TEST_FAULT_HEADER });
    }
  }
  return { code, delayMs, dropAfterCommit };
}

/** The error a `code=` fault answers with. */
export function injectedError(code: HostErrorCode): HostError {
  return new HostError(code, `fault injected by ${TEST_FAULT_HEADER}`, { retryable: true, hostCode: 'test.fault' });
}

export function delay(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether this mutation should be answered asynchronously (202 + Operation). */
export function wantsAsync(host: HostContext, headers: IncomingHttpHeaders, group: string, kind: string): boolean {
  if (host.asyncForms.has(kind) || host.asyncForms.has(`${group}/${kind}`)) return true;
  return host.testSwitches && headerValue(headers, TEST_ASYNC_HEADER) === '1';
}
