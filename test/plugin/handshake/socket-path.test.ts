import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
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
  it('cleans up the socket directory whatever it holds (the socket, more files, or nothing)', () => {
    for (const fill of [
      (socket: string) => writeFileSync(socket, ''),
      (socket: string) => {
        writeFileSync(socket, '');
        mkdirSync(path.join(path.dirname(socket), 'more'));
        writeFileSync(path.join(path.dirname(socket), 'more', 'file'), 'x');
      },
      () => undefined,
    ]) {
      const plan = planListenSocket({ PLUGIN_UNIX_SOCKET_DIR: '/tmp' });
      const socket = plan.target.slice('unix://'.length);
      fill(socket);
      plan.cleanup();
      expect(existsSync(path.dirname(socket))).toBe(false);
    }
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
