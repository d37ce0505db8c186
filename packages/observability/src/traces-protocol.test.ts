import { expect, it } from 'vitest';
import { defaultTracesProtocol } from './traces-protocol.ts';

it('exports OTLP JSON unless the operator names a protocol, for traces or for every signal', () => {
  const unset: NodeJS.ProcessEnv = { OTEL_EXPORTER_OTLP_PROTOCOL: ' ' };
  defaultTracesProtocol(unset);
  expect(unset.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL).toBe('http/json');

  const protobuf: NodeJS.ProcessEnv = { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
  defaultTracesProtocol(protobuf);
  expect(protobuf).toEqual({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' });

  const grpc: NodeJS.ProcessEnv = { OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' };
  defaultTracesProtocol(grpc);
  expect(grpc).toEqual({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
});
