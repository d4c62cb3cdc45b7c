// Where to listen. A unix socket path longer than the kernel's sun_path (108 bytes with the
// terminating NUL) is silently truncated by libuv: the bind "works" at another path, core
// dials the advertised one and reports "Plugin did not respond" (G8). So we check the
// length, fall back to /tmp, and finally to TCP on loopback.
import { mkdtempSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const MAX_SOCKET_PATH_BYTES = 103;

export interface SocketPlan {
  /** grpc-js bind target. */
  readonly target: string;
  /** Called on exit to remove the socket directory. */
  cleanup(): void;
}

export function planListenSocket(env: NodeJS.ProcessEnv = process.env): SocketPlan {
  const candidates = [env.PLUGIN_UNIX_SOCKET_DIR, tmpdir(), '/tmp'].filter((d): d is string => !!d);
  for (const base of candidates) {
    const expected = path.join(base, 'tf-takoform-XXXXXX', 'plugin.sock');
    if (Buffer.byteLength(expected) > MAX_SOCKET_PATH_BYTES) continue;
    let dir: string;
    try {
      dir = mkdtempSync(path.join(base, 'tf-takoform-'));
    } catch {
      continue;
    }
    const socket = path.join(dir, 'plugin.sock');
    return { target: `unix://${socket}`, cleanup: () => removeSocketDir(dir, socket) };
  }
  return { target: '127.0.0.1:0', cleanup: () => undefined };
}

/**
 * The directory holds only our socket: unlink it and remove the directory, which costs a launch
 * less than a recursive rmSync (Node's rimraf). Anything else in it falls back to that.
 */
function removeSocketDir(dir: string, socket: string): void {
  try {
    unlinkSync(socket);
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}
