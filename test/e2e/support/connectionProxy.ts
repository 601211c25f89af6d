// A TCP proxy between the browser and code-server that a test can cut, to play a tab whose
// connection drops without the workbench saying goodbye (a closed laptop, a crashed or killed tab).
// A tab closed normally tells code-server, which ends its extension host at once (measured); a
// dropped one leaves the host running for code-server's reconnection grace, still owning Foreman.
import * as net from 'node:net';

export interface ConnectionProxy {
  /** The port to open pages on instead of code-server's. */
  readonly port: number;
  /** Destroys every connection and refuses new ones: the page behind it can no longer reach its host. */
  cut(): Promise<void>;
}

export async function startConnectionProxy(targetPort: number): Promise<ConnectionProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      // A cut connection errors on both ends; that is the point here.
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
