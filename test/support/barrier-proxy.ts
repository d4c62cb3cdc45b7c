// A pass-through HTTP proxy that can hold creates in pairs, so that two clients' creates reach
// the Host together (only the Host's commit can then decide a race). Several proxies (one per
// Host process) may share one Barrier: a pair then meets across processes.
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Pair {
  readonly suffixes: string[];
  readonly waiting: (() => void)[];
  met: boolean;
  opened: boolean;
  timer?: NodeJS.Timeout;
}

/**
 * Held pairs of PUT path suffixes. A PUT whose path ends with one of a held pair's suffixes
 * waits until every suffix of the pair has arrived (or 15 s pass: the other side may never send
 * it), then all go on together.
 */
export class Barrier {
  private readonly pairs: Pair[] = [];

  hold(suffixes: string[]): void {
    this.pairs.push({ suffixes, waiting: [], met: false, opened: false });
  }

  /** Drops every pair (letting anything still held through); says which pairs met. */
  release(): boolean[] {
    const met = this.pairs.map((p) => p.met);
    for (const p of this.pairs.splice(0)) this.open(p);
    return met;
  }

  /** Resolves when a request with this method and path may go on. */
  async pass(method: string | undefined, pathOnly: string): Promise<void> {
    const pair = method === 'PUT' ? this.pairs.find((p) => p.suffixes.some((sfx) => pathOnly.endsWith(sfx))) : undefined;
    if (!pair || pair.opened) return;
    await new Promise<void>((go) => {
      pair.waiting.push(go);
      if (pair.waiting.length >= pair.suffixes.length) {
        pair.met = true;
        this.open(pair);
      } else pair.timer ??= setTimeout(() => this.open(pair), 15_000);
    });
  }

  private open(pair: Pair): void {
    // Once open, later requests (a client's retry) pass straight through.
    pair.opened = true;
    clearTimeout(pair.timer);
    for (const go of pair.waiting.splice(0)) go();
  }
}

/** Forwards everything to the Host through a Barrier. Nothing is changed on the way. */
export class BarrierProxy {
  private constructor(
    private readonly server: Server,
    private readonly upstream: URL,
    private readonly barrier: Barrier,
    readonly url: string,
  ) {}

  static async start(upstream: string, barrier = new Barrier()): Promise<BarrierProxy> {
    let proxy: BarrierProxy | undefined;
    const server = createHttpServer((req, res) => void proxy!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new BarrierProxy(server, new URL(upstream), barrier, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return proxy;
  }

  hold(suffixes: string[]): void {
    this.barrier.hold(suffixes);
  }

  release(): boolean[] {
    return this.barrier.release();
  }

  close(): Promise<void> {
    this.barrier.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    await this.barrier.pass(req.method, (req.url ?? '').split('?')[0]!);
    const out = httpRequest({ host: this.upstream.hostname, port: this.upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => req.socket.destroy());
    out.end(Buffer.concat(chunks));
  }
}
