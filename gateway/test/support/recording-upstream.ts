// A service behind the gateway: a real HTTP server on port 0 that records what reaches it and
// answers with what it saw, unless a test gives it another behaviour.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort } from '@ordering/testing';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type UpstreamBehaviour = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

/** Default: 200 with `{ service, method, url }`. */
const echo =
  (name: string): UpstreamBehaviour =>
  (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ service: name, method: req.method, url: req.url }));
  };

export class RecordingUpstream {
  readonly received: ReceivedRequest[] = [];
  /** Client ports of the connections requests arrived on since the last reset. */
  readonly connections = new Set<number>();
  behaviour: UpstreamBehaviour;
  private server?: http.Server;
  url = '';

  constructor(readonly name: string) {
    this.behaviour = echo(name);
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        this.received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        this.connections.add(req.socket.remotePort ?? -1);
        this.behaviour(req, res, body);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get last(): ReceivedRequest | undefined {
    return this.received[this.received.length - 1];
  }

  reset(): void {
    this.received.length = 0;
    this.connections.clear();
    this.behaviour = echo(this.name);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A port nothing listens on (bound, then released). */
export const closedPort = freePort;
