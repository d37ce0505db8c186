import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const require = createRequire(import.meta.url);
type Json = Record<string, any>;

// The lists the document names for work-email endpoints, read here from the same packages, as a client
// following the document would.
const PERSONAL = new Set<string>([
  ...(require('free-email-domains/domains.json') as string[]),
  ...(require('disposable-email-domains/index.json') as string[]),
]);

function personalDomain(email: string): boolean {
  const labels = email
    .trim()
    .toLowerCase()
    .slice(email.trim().lastIndexOf('@') + 1)
    .split('.');
  for (let i = 0; i < labels.length - 1; i++) if (PERSONAL.has(labels.slice(i).join('.'))) return true;
  return false;
}

function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    max = Math.max(max, depth);
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Object members and array items in all, at any depth (what the document's member limit counts). */
function membersOf(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const children = Object.values(node);
    count += children.length;
    stack.push(...children);
  }
  return count;
}

export type Operation = {
  path: string;
  method: string;
  /** The request body's schema name in components.schemas. */
  schemaName: string;
  schema: Json;
  workEmailField?: string;
  /** The body limit the document states for the route, in bytes. */
  bodyLimit: number;
};

export type Verdict = { accept: true } | { accept: false; status: number; reason: string };

/**
 * What /openapi.json says the gateway must answer a body: ajv (draft 2020-12, with ajv-formats, as a client
 * would run it) on the request schema, plus the rules the operation's description states
 * in words: the body limit and the work-email lists.
 */
export function documentOracle(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const ref: string | undefined = op.requestBody?.content?.['application/json']?.schema?.$ref;
      if (!ref || !path.startsWith('/api/') || path === '/api/mcp') continue;
      const schemaName = ref.split('/').pop()!;
      const description: string = op.description ?? '';
      const work = /`(\w+)` must be a work address/.exec(description)?.[1];
      const limit = /over (\d+) KiB/.exec(description)?.[1] ?? /over (\d+) MiB/.exec(description)?.[1];
      operations.push({
        path,
        method: method.toUpperCase(),
        schemaName,
        schema: doc.components.schemas[schemaName],
        ...(work ? { workEmailField: work } : {}),
        bodyLimit: /over \d+ MiB/.test(description) ? Number(limit) * 1024 * 1024 : Number(limit ?? 16) * 1024,
      });
    }
  }
  const maxDepth = Number(/nested more than (\d+) levels/.exec(JSON.stringify(doc.paths))?.[1]);
  const maxMembers = Number(/more than (\d+) members and items/.exec(JSON.stringify(doc.paths))?.[1]);
  const validators = new Map(
    operations.map((o) => [o, ajv.getSchema(`openapi.json#/components/schemas/${o.schemaName}`)!]),
  );

  return {
    operations,
    judge(op: Operation, raw: string): Verdict {
      if (Buffer.byteLength(raw) > op.bodyLimit) return { accept: false, status: 413, reason: 'over the body limit' };
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return { accept: false, status: 400, reason: 'not JSON' };
      }
      return this.judgeBody(op, body);
    },
    /**
     * A form post, judged as the document states it: the limit on the bytes sent, then the schema on the
     * object the documented form convention reads them into (`read`, made by the test as the guide says).
     */
    judgeForm(op: Operation, bytes: number, read: unknown): Verdict {
      if (bytes > op.bodyLimit) return { accept: false, status: 413, reason: 'over the body limit' };
      return this.judgeBody(op, read);
    },
    judgeBody(op: Operation, body: unknown): Verdict {
      if (depthOf(body) > maxDepth) return { accept: false, status: 400, reason: `nested deeper than ${maxDepth}` };
      if (membersOf(body) > maxMembers) return { accept: false, status: 400, reason: `over ${maxMembers} members` };
      const validate = validators.get(op)!;
      if (!validate(body)) return { accept: false, status: 400, reason: ajv.errorsText(validate.errors) };
      const email = op.workEmailField ? (body as Json)[op.workEmailField] : undefined;
      if (typeof email === 'string' && personalDomain(email))
        return { accept: false, status: 400, reason: 'a personal address on a work-email endpoint' };
      return { accept: true };
    },
  };
}
