// Entry points (HTTP server, Kafka consumers, relays, jobs) share one life cycle: started in
// order, stopped in reverse on SIGTERM/SIGINT. The HTTP entry point drains: it stops accepting
// connections, lets requests in flight finish (up to a bound) and closes idle keep-alive sockets.
// It also bounds slow clients (headers and whole requests within a deadline, a connection closed
// once a request still being sent has been answered) and answers protocol-level errors (malformed
// HTTP, oversized headers, timeouts, unmet `Expect`) in the API's JSON error shape with a request id.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, errorBody } from '@ordering/errors';
import type { Logger } from './logger';
import { REQUEST_ID_HEADER, newRequestId } from './request-id';

export interface EntryPoint {
  name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface HttpEntryPointOptions {
  port: number;
  /** Default: every interface. */
  host?: string;
  logger: Logger;
  /** How long requests in flight may take to finish once stopping began; default 10 s. */
  drainTimeoutMs?: number;
  /** Entry point name in logs; default 'http'. */
  name?: string;
  /** How long a client may take to send a request's headers; default 10 s (then 408). */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request, body included; default 30 s (then 408). */
  requestTimeoutMs?: number;
  /**
   * A request with `Expect: 100-continue` gets its `100 Continue` only when the app asks for the
   * body (`continueRequest`), so that a refusal (401, 413, 429...) goes out before the client
   * sends a body it would waste. Default: Node sends 100 before the app sees the request.
   */
  deferContinue?: boolean;
}

const AWAITS_CONTINUE = Symbol('awaitsContinue');
type AwaitingRequest = IncomingMessage & { [AWAITS_CONTINUE]?: boolean };

/**
 * The app is about to read the request's body: a client waiting for `100 Continue` (entry point
 * with `deferContinue`) gets it now, once. Does nothing for any other request.
 */
export function continueRequest(req: IncomingMessage, res: ServerResponse): void {
  const waiting = req as AwaitingRequest;
  if (!waiting[AWAITS_CONTINUE]) return;
  waiting[AWAITS_CONTINUE] = false;
  if (!res.headersSent) res.writeContinue();
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How long a connection closed after an early answer keeps reading what the client still sends. */
const LINGER_MS = 2_000;

/**
 * On every answer of every process, whatever produced it (a route, an error, a refusal of the
 * entry point): the body is exactly its declared Content-Type. The answers are JSON (and the
 * auth service's and the portal's pages HTML) that often echo what a client sent (an unknown path,
 * a parameter's value); a browser that sniffed such JSON as a page or a script would run it
 * (OWASP API8:2023, security directives sent to clients).
 */
const NOSNIFF = ['X-Content-Type-Options', 'nosniff'] as const;

/** The status, code and message a protocol-level error of a client is answered with. */
function clientErrorAnswer(err: NodeJS.ErrnoException): { status: number; code: string; message: string } {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return { status: 431, code: 'headers_too_large', message: 'The request headers are too large' };
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return { status: 408, code: 'request_timeout', message: 'The request was not received in time' };
  return { status: 400, code: 'malformed_request', message: 'The request is not valid HTTP/1.1' };
}

function jsonErrorBody(status: number, code: string, message: string, requestId: string): string {
  return JSON.stringify(errorBody(new AppError(status, 'invalid_request', code, message), requestId));
}

/**
 * Ends the connection after an answer, still reading (and dropping) what the client sends for a
 * moment: closing a socket with unread data would reset it and could destroy the answer in flight.
 */
function closeAfterAnswer(socket: Duplex): void {
  socket.on('error', () => {});
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/** The connection a response answers on, kept beyond `req.socket` (see onFinish). */
const CONNECTION = Symbol('connection');
type ConnectionResponse = ServerResponse & { [CONNECTION]: Socket };

/** A protocol-level error (the request never reached the app): answered as JSON, then closed. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, log: Logger): void {
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  answerOnSocket(clientErrorAnswer(err), err.code, socket, log);
}

/**
 * CONNECT (authority-form target): no API tunnels. Without a listener Node drops the connection
 * without a word; it gets the 400 of any request that is not HTTP the API speaks.
 */
function answerConnect(_req: IncomingMessage, socket: Duplex, log: Logger): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const answer = { status: 400, code: 'malformed_request', message: 'CONNECT is not supported' };
  answerOnSocket(answer, 'CONNECT', socket, log);
}

function answerOnSocket(
  { status, code, message }: { status: number; code: string; message: string },
  errCode: string | undefined,
  socket: Duplex,
  log: Logger,
): void {
  const requestId = newRequestId();
  const body = jsonErrorBody(status, code, message, requestId);
  log.info({ request_id: requestId, status, err_code: errCode }, 'client error');
  socket.write(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
      `${NOSNIFF[0]}: ${NOSNIFF[1]}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  closeAfterAnswer(socket);
}

/** `Expect` other than 100-continue: 417 in the API's error shape. */
function answerExpectationFailed(_req: IncomingMessage, res: ServerResponse): void {
  answerAndClose(res, 417, 'expectation_failed', 'Only `Expect: 100-continue` is supported');
}

/**
 * What is wrong with the request line that Node lets through: a version other than HTTP/1.0 or
 * HTTP/1.1 (Node parses `HTTP/2.0` and `HTTP/0.9` as if they were HTTP/1.x; RFC 9110 15.6.6: 505),
 * and a fragment in the request target (RFC 9112 3.2: `#` is not part of any request-target form;
 * Node would hand `/v1/orders#x` to the app as the path).
 */
function requestLineProblem(
  req: IncomingMessage,
): { status: number; code: string; message: string } | undefined {
  if (req.httpVersionMajor !== 1 || (req.httpVersionMinor !== 0 && req.httpVersionMinor !== 1)) {
    return {
      status: 505,
      code: 'http_version_not_supported',
      message: 'Only HTTP/1.1 and HTTP/1.0 are supported',
    };
  }
  if (req.url !== undefined && req.url.includes('#')) {
    return {
      status: 400,
      code: 'malformed_request',
      message: 'The request target must not carry a fragment (#)',
    };
  }
  return undefined;
}

/**
 * What is wrong with the request's `Host` (RFC 9112 3.2: 400 for an HTTP/1.1 request without one,
 * and for any request with more than one, which Node would otherwise accept, keeping the first).
 */
function hostProblem(req: IncomingMessage): string | undefined {
  if (req.headers.host === undefined) {
    return req.httpVersionMajor === 1 && req.httpVersionMinor === 1
      ? 'An HTTP/1.1 request must carry a Host header'
      : undefined;
  }
  let hosts = 0;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts++;
  }
  return hosts > 1 ? 'A request must carry one Host header, not several' : undefined;
}

/** A refusal of the entry point itself, in the API's error shape; the connection then closes. */
function answerAndClose(res: ServerResponse, status: number, code: string, message: string): void {
  const requestId = newRequestId();
  const body = jsonErrorBody(status, code, message, requestId);
  res.shouldKeepAlive = false;
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    [REQUEST_ID_HEADER]: requestId,
    [NOSNIFF[0]]: NOSNIFF[1],
  });
  res.end(body);
}

export type HttpEntryPoint = EntryPoint & { url(): string; server(): http.Server | undefined };

export function httpEntryPoint(app: RequestListener, options: HttpEntryPointOptions): HttpEntryPoint {
  const name = options.name ?? 'http';
  const drainTimeoutMs = options.drainTimeoutMs ?? 10_000;
  const log = options.logger.child({ entry_point: name });
  let server: http.Server | undefined;
  let stopping: Promise<void> | undefined;
  const inFlight = new Set<http.ServerResponse>();

  // One listener of each for every response (no closures per request); a response emits each
  // event once.
  function onFinish(this: ConnectionResponse) {
    // Answered before the client finished sending (an error, a timeout upstream): the rest of the
    // request is not waited for; the connection closes. Its socket as the request arrived on it:
    // a client (undici) that gave up on the request as a body has destroyed it detached from its
    // socket (`req.socket` is null then), and the client may still be sending.
    if (!this.req.complete) closeAfterAnswer(this[CONNECTION]);
  }
  function onClose(this: http.ServerResponse) {
    inFlight.delete(this);
    // A keep-alive socket that just finished its last request while draining: close it now.
    if (stopping) server?.closeIdleConnections();
  }

  const handler: RequestListener = (req, res) => {
    (res as ConnectionResponse)[CONNECTION] = req.socket;
    inFlight.add(res);
    res.on('finish', onFinish);
    res.on('close', onClose);
    res.setHeader(...NOSNIFF);
    // A request that arrives on an open keep-alive socket while draining is served, then the
    // socket closes.
    if (stopping) res.setHeader('Connection', 'close');
    const badLine = requestLineProblem(req);
    if (badLine !== undefined) {
      answerAndClose(res, badLine.status, badLine.code, badLine.message);
      return;
    }
    const badHost = hostProblem(req);
    if (badHost !== undefined) {
      answerAndClose(res, 400, 'malformed_request', badHost);
      return;
    }
    app(req, res);
  };

  function url(): string {
    const address = server?.address();
    if (!address || typeof address === 'string') throw new Error(`${name} entry point is not listening`);
    const { address: host, port, family } = address as AddressInfo;
    const wildcard = host === '::' || host === '0.0.0.0';
    const shown = wildcard ? '127.0.0.1' : family === 'IPv6' ? `[${host}]` : host;
    return `http://${shown}:${port}`;
  }

  async function start(): Promise<void> {
    if (server) throw new Error(`${name} entry point already started`);
    const s = http.createServer(
      {
        headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
        requestTimeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
        // How often those deadlines are checked (Node's default, 30 s, would stretch them).
        connectionsCheckingInterval: 1_000,
        // Checked by the handler, which answers in the API's error shape (Node's 400 has no body).
        requireHostHeader: false,
      },
      handler,
    );
    // Let the load balancer's keep-alive outlive ours rather than the reverse (idle connections
    // between requests; the deadlines above run only while a request is being received).
    s.keepAliveTimeout = 65_000;
    s.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerClientError(err, socket, log));
    s.on('checkExpectation', answerExpectationFailed);
    if (options.deferContinue) {
      s.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
        (req as AwaitingRequest)[AWAITS_CONTINUE] = true;
        handler(req, res);
      });
    }
    s.on('connect', (req: IncomingMessage, socket: Duplex) => answerConnect(req, socket, log));
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(options.port, options.host, () => {
        s.off('error', reject);
        resolve();
      });
    });
    server = s;
    log.info({ url: url() }, 'listening');
  }

  function stop(): Promise<void> {
    if (stopping) return stopping;
    const s = server;
    if (!s) return Promise.resolve();
    stopping = new Promise<void>((resolve) => {
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      const timer = setTimeout(() => {
        log.warn(
          { in_flight: inFlight.size },
          'requests still running after the drain timeout; closing their connections',
        );
        s.closeAllConnections();
      }, drainTimeoutMs);
      s.close(() => {
        clearTimeout(timer);
        log.info('stopped');
        resolve();
      });
      s.closeIdleConnections();
    });
    return stopping;
  }

  return { name, start, stop, url, server: () => server };
}

export interface RunServiceOptions {
  service: string;
  logger: Logger;
  entryPoints: EntryPoint[];
  /** Bound on stopping every entry point; past it the process exits 1. Default 15 s. */
  shutdownTimeoutMs?: number;
  /** Signals that stop the service; default SIGTERM and SIGINT. */
  signals?: NodeJS.Signals[];
  /** How the process ends after a signal; default `process.exit`. */
  exit?: (code: number) => void;
}

export interface RunningService {
  /** Stops every entry point in reverse order (once); does not exit the process. */
  stop(): Promise<void>;
}

async function stopAll(entryPoints: EntryPoint[], logger: Logger): Promise<boolean> {
  let ok = true;
  for (const ep of [...entryPoints].reverse()) {
    try {
      await ep.stop();
    } catch (err) {
      ok = false;
      logger.error({ err, entry_point: ep.name }, 'entry point failed to stop');
    }
  }
  return ok;
}

/**
 * Starts the entry points in order (stopping those already started if one fails) and stops them
 * in reverse on the first SIGTERM/SIGINT, then exits 0, or 1 when stopping failed or timed out.
 */
export async function runService(options: RunServiceOptions): Promise<RunningService> {
  const { logger, entryPoints } = options;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 15_000;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const started: EntryPoint[] = [];
  for (const ep of entryPoints) {
    try {
      await ep.start();
      started.push(ep);
    } catch (err) {
      logger.error({ err, entry_point: ep.name }, 'entry point failed to start; stopping the others');
      await stopAll(started, logger);
      throw err;
    }
  }
  logger.info({ entry_points: entryPoints.map((e) => e.name) }, `${options.service} started`);

  let stopping: Promise<boolean> | undefined;
  let signalled = false;
  const removeListeners = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  const stopOnce = (): Promise<boolean> => {
    stopping ??= stopAll(started, logger);
    return stopping;
  };

  function onSignal(signal: NodeJS.Signals): void {
    // The listener stays while stopping so that a repeated signal cannot kill the process mid-drain.
    if (signalled) {
      logger.info({ signal }, `${options.service} is already stopping`);
      return;
    }
    signalled = true;
    logger.info({ signal }, `${options.service} stopping`);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), shutdownTimeoutMs);
    });
    void Promise.race([stopOnce(), timedOut]).then((result) => {
      clearTimeout(timer);
      const code = result === true ? 0 : 1;
      if (result === 'timeout') logger.error({ timeout_ms: shutdownTimeoutMs }, 'stopping timed out');
      logger.info({ exit_code: code }, `${options.service} stopped`);
      removeListeners();
      logger.flush(() => exit(code));
    });
  }
  for (const signal of signals) process.on(signal, onSignal);

  return {
    stop: async () => {
      removeListeners();
      if (!(await stopOnce())) throw new Error(`${options.service}: an entry point failed to stop`);
    },
  };
}
