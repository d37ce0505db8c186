export { createApp, type GatewayDeps } from './app.ts';
export { loadConfig, type GatewayConfig } from './config.ts';
export { createProducerRedis, createSubmissionQueue } from './queue.ts';
export { startGateway, type RunningGateway } from './start-gateway.ts';
