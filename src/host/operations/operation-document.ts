// The Operation document (wire reference §13.1), closed: pending has neither result nor error,
// terminal has exactly one. The document identity stays operations.takoform.com/v1alpha1 (A3).
import type { JsonObject } from '../../common/json-value.js';
import type { HostError } from '../errors.js';

export const OPERATION_API_VERSION = 'operations.takoform.com/v1alpha1';

export function pendingOperation(id: string): JsonObject {
  return { apiVersion: OPERATION_API_VERSION, kind: 'Operation', id, done: false };
}

export function succeededOperation(id: string, result: JsonObject): JsonObject {
  return { apiVersion: OPERATION_API_VERSION, kind: 'Operation', id, done: true, result };
}

/** A terminal failure; retryable is always false inside an Operation. */
export function failedOperation(id: string, error: HostError, requestId: string): JsonObject {
  const body: JsonObject = { code: error.code, message: error.message || error.code, requestId, retryable: false };
  if (error.hostCode !== undefined) body.hostCode = error.hostCode;
  return { apiVersion: OPERATION_API_VERSION, kind: 'Operation', id, done: true, error: body };
}
