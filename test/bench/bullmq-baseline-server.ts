/**
 * The ceiling `pnpm bench:gateway` compares the gateway with: bare node:http, `JSON.parse`, and one
 * `await queue.add(name, body)` per request on the same Redis, with ioredis and BullMQ at their defaults.
 * Run as its own process (argv: Redis URL, port, queue name, and optionally a number of processes to run
 * it as, with node:cluster, as GATEWAY_PROCESSES runs the gateway) so it has an event loop to itself.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

const [redisUrl, port, queueName, processes = '1'] = process.argv.slice(2) as [string, string, string, string?];
if (Number(processes) > 1 && cluster.isPrimary) {
  for (let i = 0; i < Number(processes); i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    process.exit(0);
  });
} else {
  await serve();
}

async function serve() {
  const queue = new Queue(queueName, { connection: new Redis(redisUrl, { maxRetriesPerRequest: null }) });
  await queue.waitUntilReady();

  createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        await queue.add('contact.v1', body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"success":true}');
      } catch {
        res.writeHead(500);
        res.end();
      }
    });
  }).listen(Number(port), '127.0.0.1', () => console.log('listening'));
}
