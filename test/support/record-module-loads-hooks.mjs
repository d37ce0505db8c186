// The ES module half of record-module-loads.mjs: Node's module hooks, which run on their own thread.
import { appendFileSync } from 'node:fs';

let log;
export function initialize(data) {
  log = data.log;
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, `import ${resolved.url}\n`);
  return resolved;
}
