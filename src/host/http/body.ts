// Reads a request body into memory with a hard cap (8 MiB, as the v1beta1 reference host did).
// The cap is checked against Content-Length before reading and against the bytes as they arrive.
// On overflow the rest is discarded, not read into memory; the dispatcher answers with
// Connection: close, which ends the upload. (Breaking out of `for await` would destroy the
// socket before the refusal could be written, hence the explicit listeners.)
import type { IncomingMessage } from 'node:http';
import { invalidArgument } from '../errors.js';

export const MAX_REQUEST_BODY_BYTES = 8 * 1024 * 1024;
/** A blob may be as large as a manifest entry may declare (§14.1: sizes 0..268435456). */
export const MAX_BLOB_BODY_BYTES = 268_435_456;

export function readRequestBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.resume();
      reject(tooLarge(limit));
    };
    const onEnd = (): void => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      stop();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function tooLarge(limit: number): Error {
  return invalidArgument(`the request body exceeds ${limit} bytes`);
}
