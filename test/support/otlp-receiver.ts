import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One received span, flattened: ids as hex, attribute values as plain values. */
export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  events: { name: string; attributes: Record<string, unknown> }[];
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** Start and end, in milliseconds since the epoch. */
  startMs: number;
  endMs: number;
};

export type OtlpReceiver = {
  /** The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (the exporters append /v1/traces). */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received, answered or not. */
  requests: number;
  /** From now on, hold every request without answering (a collector that hangs). */
  hang(): void;
  close(): Promise<void>;
};

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string }[];
  events?: { name: string; attributes?: KeyValue[] }[];
  status?: { code?: number };
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
};
type ExportRequest = {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
};

/**
 * A real OTLP/HTTP trace receiver on 127.0.0.1, as a collector's: it takes `POST /v1/traces` in OTLP JSON
 * (the exporters' `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps every span. It answers other paths and
 * other content types 415/404, so a misconfigured exporter shows up as missing spans, not as a pass.
 * `port`: listen there (a port the apps were first given while nothing listened on it).
 */
export async function startOtlpReceiver({ port = 0 }: { port?: number } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const sockets = new Set<Socket>();
  let hanging = false;
  const receiver = {
    url: '',
    spans,
    requests: 0,
    hang: () => {
      hanging = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
  const server = createServer((req, res) => void handle(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  async function handle(req: IncomingMessage, res: ServerResponse) {
    receiver.requests++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (hanging) return; // never answered; the socket is destroyed by close()
    if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
    if (!String(req.headers['content-type']).startsWith('application/json')) return void res.writeHead(415).end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(plain(resourceSpans.resource?.attributes ?? [])['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? []) spans.push(received(service, span));
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

function received(service: string, span: OtlpSpan): ReceivedSpan {
  return {
    service,
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: span.parentSpanId || undefined,
    name: span.name,
    kind: span.kind ?? 0,
    attributes: plain(span.attributes ?? []),
    links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
    events: (span.events ?? []).map((event) => ({ name: event.name, attributes: plain(event.attributes ?? []) })),
    status: span.status?.code ?? 0,
    startMs: nanosToMs(span.startTimeUnixNano),
    endMs: nanosToMs(span.endTimeUnixNano),
  };
}

function nanosToMs(nanos: string | undefined): number {
  return Number(BigInt(nanos ?? '0') / 1000n) / 1000;
}

/**
 * One trace as docs/tracing.md shows it: each span under its parent, with its service, its start from the
 * trace's start and its length in milliseconds, and the attributes that tell the story (`shown`; numbers to
 * one decimal). `queue` is written as `shownAs` (a test's queue has a name of its own).
 */
export function formatTrace(
  trace: ReceivedSpan[],
  shown: readonly string[],
  { queue, shownAs }: { queue: string; shownAs: string },
): string {
  const start = Math.min(...trace.map((s) => s.startMs));
  const ids = new Set(trace.map((s) => s.spanId));
  const lines: string[] = [];
  const visit = (span: ReceivedSpan, depth: number) => {
    const name = `${'  '.repeat(depth)}${span.name.replace(queue, shownAs)}`.padEnd(36);
    const at = `+${(span.startMs - start).toFixed(0)} ms`.padStart(9);
    const length = `${(span.endMs - span.startMs).toFixed(0)} ms`.padStart(8);
    const attributes = shown.flatMap((key) => {
      const value = span.attributes[key];
      if (value === undefined) return [];
      return [`${key}=${typeof value === 'number' && !Number.isInteger(value) ? value.toFixed(1) : value}`];
    });
    lines.push(`${span.service.padEnd(14)} ${name} ${at} ${length}   ${attributes.join(', ')}`.trimEnd());
    const children = trace.filter((s) => s.parentSpanId === span.spanId).sort((a, b) => a.startMs - b.startMs);
    for (const child of children) visit(child, depth + 1);
  };
  for (const root of trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId))) visit(root, 0);
  return lines.join('\n');
}

function plain(attributes: KeyValue[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));
}

function plainValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}
