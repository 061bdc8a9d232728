// A TCP port on 127.0.0.1 that is free right now: bound and released at once. For a process the
// test starts on it, or, as it is, for a port nothing listens on (connections are refused).
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
