import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_SOCKET_PATH_BYTES, planListenSocket } from '../../../src/plugin/handshake/socket-path.js';

describe('listen socket (lesson G8: long paths are truncated silently by libuv)', () => {
  it('uses PLUGIN_UNIX_SOCKET_DIR when short enough, and cleans up', () => {
    const plan = planListenSocket({ PLUGIN_UNIX_SOCKET_DIR: '/tmp' });
    expect(plan.target.startsWith('unix:///tmp/tf-takoform-')).toBe(true);
    const dir = plan.target.slice('unix://'.length).replace(/\/plugin\.sock$/, '');
    expect(existsSync(dir)).toBe(true);
    plan.cleanup();
    expect(existsSync(dir)).toBe(false);
  });
  it('falls back from a directory whose socket path would be too long', () => {
    const long = '/tmp/' + 'x'.repeat(120);
    const plan = planListenSocket({ PLUGIN_UNIX_SOCKET_DIR: long, TMPDIR: long });
    const socket = plan.target.slice('unix://'.length);
    expect(plan.target.startsWith('unix://')).toBe(true);
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
    plan.cleanup();
  });
});
