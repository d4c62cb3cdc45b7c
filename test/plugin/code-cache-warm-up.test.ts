import { describe, expect, it } from 'vitest';
import { warmUpForCodeCache } from '../../src/plugin/code-cache-warm-up.js';

// The warm-up runs only while install trains the code cache; what matters is that it finishes
// (a hang would stall install until its 30 s timeout) and leaves nothing open behind it.
describe('code-cache warm-up', () => {
  it('completes its loopback request and validation, and closes what it opened', async () => {
    const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length;
    await expect(warmUpForCodeCache()).resolves.toBeUndefined();
    await new Promise((r) => setTimeout(r, 50));
    expect((process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().length).toBeLessThanOrEqual(handles);
  });
});
