import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The flag itself stays unset in this worker: only the call is observed.
const setFlagsFromString = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString }));

const { Transport } = await import('../../src/host-client/transport.js');

describe("undici's WebAssembly HTTP parser is compiled by V8's baseline compiler only", () => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  let origin: URL;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const transport = () =>
    new Transport({
      origin,
      token: 't',
      userAgent: 'test',
      connections: 1,
      headersTimeoutMs: 5000,
      bodyTimeoutMs: 5000,
      maxResponseBytes: 1 << 20,
      maxAttempts: 1,
    });
  const get = (t: InstanceType<typeof Transport>) => t.send({ route: 'test', method: 'GET', path: '/', safeToRetry: true });

  it('sets --liftoff-only before the first Host request, once per process', async () => {
    expect(setFlagsFromString).not.toHaveBeenCalled(); // not at load: the code cache is made under default flags
    const [a, b] = [transport(), transport()];
    expect((await get(a)).body).toEqual({ ok: true });
    expect(setFlagsFromString).toHaveBeenCalledTimes(1);
    expect(setFlagsFromString).toHaveBeenCalledWith('--liftoff-only');
    await get(b);
    await get(a);
    expect(setFlagsFromString).toHaveBeenCalledTimes(1);
    await Promise.all([a.close(), b.close()]);
  });

  it('leaves the flags alone while install trains the code cache (a run-time flag enters its flag hash)', async () => {
    const { useBaselineWasmCompiler } = await import('../../src/host-client/wasm-baseline.js');
    setFlagsFromString.mockClear();
    vi.stubEnv('TAKOFORM_CODE_CACHE_TRAINING', '1');
    try {
      useBaselineWasmCompiler();
      expect(setFlagsFromString).not.toHaveBeenCalled();
    } finally {
      vi.unstubAllEnvs();
    }
    useBaselineWasmCompiler();
    expect(setFlagsFromString).toHaveBeenCalledWith('--liftoff-only');
  });
});
