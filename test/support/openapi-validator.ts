import { buildOpenApi } from '@forms/schemas';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, any>;
export type ResponseCheck = (method: string, url: string, status: number, headers: Headers, body: string) => void;

function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+');
  return new RegExp(`^${escaped}$`);
}

/**
 * Checks a response against /openapi.json: the path and method are described, the status is listed, the
 * content type is the documented one, and a JSON body validates against the response schema.
 */
export function openApiResponseCheck(doc: Json = buildOpenApi({ baseUrl: 'http://127.0.0.1' })): ResponseCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const routes = Object.entries<Json>(doc.paths).map(([template, item]) => ({
    template,
    pattern: pathPattern(template),
    item,
  }));

  return (method, url, status, headers, body) => {
    const path = new URL(url).pathname;
    const where = `${method} ${path} → ${status}`;
    const route = routes.find((r) => r.pattern.test(path));
    if (!route) throw new Error(`${where}: path not in /openapi.json`);
    const op = route.item[method.toLowerCase() === 'head' ? 'get' : method.toLowerCase()];
    if (!op) {
      // A method the path does not take: the answer must be the documented 405 of the path's other operations.
      if (status !== 405) throw new Error(`${where}: method not in /openapi.json`);
      return;
    }
    const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    if (!response)
      throw new Error(`${where}: status not in /openapi.json (listed: ${Object.keys(op.responses).join(', ')})`);
    if (!response.content || method === 'HEAD' || status === 304) {
      if (body !== '' && method !== 'HEAD') throw new Error(`${where}: documented without a body, but got one`);
      return;
    }
    const type = (headers.get('content-type') ?? '').split(';')[0]!.trim();
    const media = response.content[type];
    if (!media)
      throw new Error(`${where}: content type ${type} not documented (${Object.keys(response.content).join(', ')})`);
    if (type !== 'application/json') return;
    const validate = media.schema.$ref ? ajv.getSchema(`openapi.json${media.schema.$ref}`)! : ajv.compile(media.schema);
    if (!validate(JSON.parse(body)))
      throw new Error(
        `${where}: body does not match ${media.schema.$ref ?? 'schema'}: ${ajv.errorsText(validate.errors)}\n${body.slice(0, 500)}`,
      );
  };
}

/** A fetch that checks every response it receives against /openapi.json before handing it back. */
export function checkedFetch(check: ResponseCheck, seen: string[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await fetch(request);
    // An event stream never ends, so it cannot be read whole; the server never opens one anyway.
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      throw new Error(`${request.method} ${request.url}: unexpected event stream`);
    const body = await response.clone().text();
    check(request.method, request.url, response.status, response.headers, body);
    seen.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`);
    return response;
  };
}
