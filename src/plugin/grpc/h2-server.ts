// The gRPC server of the plugin, on node:http2 directly: unary, server-streaming and
// client-streaming calls with length-prefixed protobuf messages (the pre-generated codecs of
// generated/protocol.ts), status in trailers. That is all go-plugin's client and core use.
//
// Why not @grpc/grpc-js's server: core starts the provider 3-5 times per command, and loading
// grpc-js (client and server halves: 65 modules) was the largest share of start-up left after
// the protocol was pre-generated; per call, its interceptor and channelz machinery cost 20-30%
// of the CPU of a unary call (0.38 vs 0.26 ms for an empty call, same client). Handlers
// keep grpc-js's call shape (`call.request`, `callback(err, value)`, `call.write`/`end`,
// 'data'/'end'/'cancelled' events), so the provider service is written as for grpc-js, and the
// test clients still are grpc-js clients.
import { EventEmitter } from 'node:events';
import http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { pinClientCertificate, type ClientCertificateCheck } from './client-certificate-pin.js';

export const GrpcStatus = { OK: 0, CANCELLED: 1, UNKNOWN: 2, INTERNAL: 13, UNIMPLEMENTED: 12, RESOURCE_EXHAUSTED: 8 } as const;

/** What a handler may pass as the error of `callback` (grpc-js's ServiceError shape). */
export interface CallError {
  readonly code?: number;
  readonly details?: string;
  readonly message?: string;
}

type MethodDefinition = ServiceDefinition[string];
type Callback = (error: CallError | null, value?: unknown) => void;
type Handler = (call: ServerCall, callback: Callback) => void;

interface Route {
  readonly method: MethodDefinition;
  readonly handler: Handler;
}

/** A call as handlers see it: the request, or a stream of requests, and a way to answer. */
export class ServerCall extends EventEmitter {
  request: unknown = undefined;
  cancelled = false;
  private headersSent = false;
  private finished = false;
  /** Status trailers of a call that fails after its headers went out. */
  private failure: Record<string, string> | undefined;

  constructor(
    private readonly stream: http2.ServerHttp2Stream,
    private readonly method: MethodDefinition,
  ) {
    super();
  }

  /** Server streaming: sends one message. */
  write(message: unknown): boolean {
    if (this.finished || !this.open()) return false;
    let frame: Buffer;
    try {
      frame = messageFrame(this.method.responseSerialize(message));
    } catch (e) {
      this.fail(GrpcStatus.INTERNAL, `cannot serialize the response: ${describe(e)}`);
      return false;
    }
    this.sendHeaders();
    return this.stream.write(frame);
  }

  /** Server streaming: ends the call with status OK. */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    if (!this.open()) return;
    this.sendHeaders();
    this.stream.end();
  }

  /** Unary and client streaming: the one answer, or a status. */
  answer(error: CallError | null, value?: unknown): void {
    if (this.finished) return;
    if (error) {
      this.fail(typeof error.code === 'number' ? error.code : GrpcStatus.UNKNOWN, error.details ?? error.message ?? 'unknown error');
      return;
    }
    let frame: Buffer;
    try {
      frame = messageFrame(this.method.responseSerialize(value));
    } catch (e) {
      this.fail(GrpcStatus.INTERNAL, `cannot serialize the response: ${describe(e)}`);
      return;
    }
    this.finished = true;
    if (!this.open()) return;
    this.sendHeaders();
    this.stream.end(frame);
  }

  /** Ends the call with a status other than OK (a trailers-only response when nothing was sent). */
  fail(code: number, message: string): void {
    if (this.finished && this.headersSent) return;
    this.finished = true;
    if (!this.open()) return;
    const status = { 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) };
    if (this.headersSent) {
      this.failure = status;
      this.stream.end();
      return;
    }
    this.headersSent = true;
    trailersOnly(this.stream, code, message);
  }

  private sendHeaders(): void {
    if (this.headersSent) return;
    this.headersSent = true;
    this.stream.respond({ ':status': 200, 'content-type': 'application/grpc+proto' }, { waitForTrailers: true });
    this.stream.once('wantTrailers', () => {
      if (this.open()) this.stream.sendTrailers(this.failure ?? { 'grpc-status': '0' });
    });
  }

  private open(): boolean {
    return !this.stream.destroyed && !this.stream.closed;
  }
}

export interface ListenTarget {
  /** A unix socket path, or undefined for TCP on 127.0.0.1 with any free port. */
  readonly socketPath?: string;
}

export interface TlsSettings {
  readonly certPem: string;
  readonly keyPem: string;
  /** The only certificate a client may present (go-plugin's AutoMTLS). */
  readonly clientCertPem: string;
}

export class GrpcH2Server {
  private readonly routes = new Map<string, Route>();
  /** Open sessions, each of a client that presented core's certificate (any client without TLS). */
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private server: http2.Http2Server | http2.Http2SecureServer | undefined;

  constructor(private readonly maxMessageBytes: number) {}

  /** Registers a service's handlers, by method name as grpc-js does (or by its lower-case alias). */
  addService(service: ServiceDefinition, implementation: object): void {
    const impl = implementation as Record<string, Handler | undefined>;
    for (const [name, method] of Object.entries(service)) {
      const handler = impl[name] ?? (method.originalName ? impl[method.originalName] : undefined);
      if (handler) this.routes.set(method.path, { method, handler });
    }
  }

  /** Listens; resolves the TCP port (0 for a unix socket). */
  listen(target: ListenTarget, tls: TlsSettings | undefined): Promise<number> {
    // grpc-js's choices: no per-session memory cap (Node degrades badly when it is reached;
    // schema responses can be large) and no cap on header blocks.
    const common = { maxSessionMemory: Number.MAX_SAFE_INTEGER, maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER };
    let isCoresCertificate: ClientCertificateCheck | undefined;
    try {
      isCoresCertificate = tls && pinClientCertificate(tls.clientCertPem);
    } catch (e) {
      return Promise.reject(new Error(`PLUGIN_CLIENT_CERT is not a usable certificate: ${describe(e)}`));
    }
    // The client certificate is requested, and checked against core's when the session starts
    // (client-certificate-pin.ts: `ca` would cost every launch a parse of Node's root store).
    // `ca: []` keeps the context without any trust store: nothing verifies against it.
    const server = tls
      ? http2.createSecureServer({ ...common, cert: tls.certPem, key: tls.keyPem, ca: [], requestCert: true, rejectUnauthorized: false })
      : http2.createServer(common);
    this.server = server;
    // A client that fails TLS or drops a connection must never crash the provider.
    server.on('secureConnection', (socket: TLSSocket) => socket.on('error', () => undefined));
    server.on('tlsClientError', () => undefined);
    server.on('sessionError', () => undefined);
    server.on('session', (session: http2.ServerHttp2Session) => {
      // Emitted as the TLS handshake completes, before the session reads a frame: a client
      // without core's certificate is cut off before any call can reach a handler.
      if (isCoresCertificate && !isCoresCertificate(session.socket as TLSSocket)) {
        session.destroy();
        return;
      }
      this.sessions.add(session);
      session.on('error', () => undefined);
      session.on('close', () => this.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => this.onStream(stream, headers));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      const ready = () => {
        server.off('error', reject);
        server.on('error', () => undefined);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      };
      if (target.socketPath !== undefined) server.listen(target.socketPath, ready);
      else server.listen(0, '127.0.0.1', ready);
    });
  }

  /** Closes the listener and every connection now (core is done with us). */
  forceShutdown(): void {
    this.server?.close();
    for (const session of this.sessions) session.destroy();
    this.sessions.clear();
  }

  private onStream(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders): void {
    stream.on('error', () => undefined);
    if (!this.sessions.has(stream.session as http2.ServerHttp2Session)) {
      stream.session?.destroy(); // unreachable: such sessions are destroyed as they start
      return;
    }
    const route = this.routes.get(String(headers[':path']));
    const contentType = headers['content-type'];
    if (typeof contentType !== 'string' || !contentType.startsWith('application/grpc')) {
      stream.respond(
        { ':status': 415, 'grpc-status': String(GrpcStatus.INTERNAL), 'grpc-message': encodeGrpcMessage('content-type must be application/grpc') },
        { endStream: true },
      );
      return;
    }
    if (!route) {
      trailersOnly(stream, GrpcStatus.UNIMPLEMENTED, `The server does not implement the method ${String(headers[':path'])}`);
      return;
    }
    const { method, handler } = route;
    const call = new ServerCall(stream, method);
    stream.on('close', () => {
      if (stream.rstCode !== undefined && stream.rstCode !== http2.constants.NGHTTP2_NO_ERROR) {
        call.cancelled = true;
        call.emit('cancelled');
      }
    });
    const messages: unknown[] = [];
    const reader = new FrameReader(this.maxMessageBytes);
    const deserialize = (bytes: Buffer): unknown => method.requestDeserialize(bytes);
    if (method.requestStream) {
      // Client streaming: the handler runs first and receives the messages as events.
      try {
        handler(call, (error, value) => call.answer(error, value));
      } catch (e) {
        call.fail(GrpcStatus.UNKNOWN, describe(e));
        return;
      }
    }
    stream.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = reader.push(chunk);
      } catch (e) {
        call.fail(e instanceof FrameError ? e.code : GrpcStatus.INTERNAL, describe(e));
        stream.destroy();
        return;
      }
      for (const frame of frames) {
        let message: unknown;
        try {
          message = deserialize(frame);
        } catch (e) {
          call.fail(GrpcStatus.INTERNAL, `cannot deserialize the request: ${describe(e)}`);
          return;
        }
        if (method.requestStream) call.emit('data', message);
        else messages.push(message);
      }
    });
    stream.on('end', () => {
      if (method.requestStream) {
        call.emit('end');
        return;
      }
      if (messages.length !== 1 || reader.pending()) {
        call.fail(GrpcStatus.INTERNAL, `expected exactly one request message, got ${messages.length}`);
        return;
      }
      call.request = messages[0];
      try {
        if (method.responseStream) (handler as (c: ServerCall) => void)(call);
        else handler(call, (error, value) => call.answer(error, value));
      } catch (e) {
        call.fail(GrpcStatus.UNKNOWN, describe(e));
      }
    });
  }
}

class FrameError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** Splits the request body into gRPC messages (1 byte compressed flag, 4 bytes length, bytes). */
class FrameReader {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly maxMessageBytes: number) {}

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.length < 5) return out;
      const head = this.chunks.length === 1 ? this.chunks[0]! : this.flatten();
      if (head.length < 5) return out;
      if (head[0] !== 0) throw new FrameError('compressed messages are not supported (no grpc-encoding was offered)', GrpcStatus.UNIMPLEMENTED);
      const size = head.readUInt32BE(1);
      if (size > this.maxMessageBytes) throw new FrameError(`request message larger than ${this.maxMessageBytes} bytes`, GrpcStatus.RESOURCE_EXHAUSTED);
      if (this.length < 5 + size) return out;
      const all = this.flatten();
      out.push(all.subarray(5, 5 + size));
      const rest = all.subarray(5 + size);
      this.chunks = rest.length ? [rest] : [];
      this.length = rest.length;
    }
  }

  pending(): boolean {
    return this.length > 0;
  }

  private flatten(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }
}

/** A status without any message: one HEADERS frame that ends the stream. */
function trailersOnly(stream: http2.ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  stream.respond(
    { ':status': 200, 'content-type': 'application/grpc+proto', 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) },
    { endStream: true },
  );
}

function messageFrame(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  message.copy(frame, 5);
  return frame;
}

/** grpc-message is percent-encoded: bytes outside printable ASCII, and '%' itself. */
function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
