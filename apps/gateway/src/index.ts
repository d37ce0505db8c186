export { createApp, type GatewayDeps } from './app.ts';
export { type GatewayConfig, loadConfig } from './config.ts';
export { type RunningGateway, startGateway } from './start-gateway.ts';
export { createProducerRedis, createSubmissionQueue, type ProducerRedis, submissionKeys } from './submissions/index.ts';
