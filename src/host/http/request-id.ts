// Request ids for error envelopes and logs. A random per-process prefix keeps ids unique across
// restarts of a Host on the same database (recorded error bodies keep the id they were made with).
import { randomBytes } from 'node:crypto';

export function createRequestIdSource(): () => string {
  const prefix = randomBytes(4).toString('hex');
  let counter = 0;
  return () => {
    counter += 1;
    return `req_${prefix}_${counter.toString(36)}`;
  };
}
