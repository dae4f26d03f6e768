/**
 * A static web server on loopback, as any web server publishes an APT repository's folder
 * (docs/fleet.md): GET and HEAD of files, 404 for the rest. Counts what it served.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, normalize } from 'node:path';

export interface StaticServer {
  url: string;
  served: string[];
  close: () => Promise<void>;
}

export async function serveFolder(root: string): Promise<StaticServer> {
  const served: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(root, path);
    let size: number;
    try {
      const s = statSync(file);
      if (!s.isFile() || path.includes('..')) throw new Error('not a file');
      size = s.size;
    } catch {
      res.writeHead(404).end();
      return;
    }
    served.push(path);
    res.writeHead(200, { 'content-length': size, 'content-type': 'application/octet-stream' });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
