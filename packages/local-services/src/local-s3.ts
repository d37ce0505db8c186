import { mkdirSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import { freePort } from './free-port.ts';

export type LocalS3 = {
  /** The endpoint to give S3_ENDPOINT, such as http://127.0.0.1:4568. */
  endpoint: string;
  port: number;
  /** s3rver accepts only these keys (they sign requests as with AWS); set them as AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY. */
  accessKeyId: string;
  secretAccessKey: string;
  stop: () => Promise<void>;
};

type S3rverApp = { callback(): RequestListener };
type S3rverClass = new (options: Record<string, unknown>) => S3rverApp;

/**
 * An S3-compatible server in this process (s3rver), keeping buckets and objects as files under `dir`, so
 * they survive a restart on the same folder. For the embedded default and for tests; clients must use
 * path-style URLs and `requestChecksumCalculation: 'WHEN_REQUIRED'` (see @forms/object-storage).
 */
export async function startLocalS3({ dir, port }: { dir: string; port?: number }): Promise<LocalS3> {
  mkdirSync(dir, { recursive: true });
  const chosen = port ?? (await freePort());
  // s3rver is CommonJS without types; loading it lazily keeps its Koa 2 and winston out of every import.
  const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass;
  const app = new S3rver({ directory: dir, silent: true, vhostBuckets: false });
  // Our own HTTP server rather than s3rver's run(): its listen() has no 'error' listener, so a taken port
  // would crash the whole process instead of rejecting here.
  const http = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    http.once('error', (err) => reject(new Error(`local S3 could not listen on 127.0.0.1:${chosen}: ${err.message}`)));
    http.listen(chosen, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${chosen}`,
    port: chosen,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async stop() {
      if (!http.listening) return;
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      // Clients keep sockets alive; without this, close() would wait for them to time out.
      http.closeAllConnections();
      await closed;
    },
  };
}
