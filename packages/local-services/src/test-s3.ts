import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalS3 } from './local-s3.ts';
import { containerRuntimeAnswers } from './test-redis.ts';

export type TestS3 = {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment both apps read, for a given bucket. */
  env: (bucket: string) => Record<string, string>;
  stop: () => Promise<void>;
};

/**
 * An S3-compatible server for tests: Adobe's S3Mock in a container when a container runtime answers
 * (maintained, path-style, accepts any credentials), else s3rver in this process on a temporary folder.
 * The probe is bounded so a machine without Docker falls back within about two seconds.
 */
export async function startTestS3(): Promise<TestS3> {
  if (await containerRuntimeAnswers()) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('adobe/s3mock:4.7.0')
      .withExposedPorts(9090)
      .withWaitStrategy(Wait.forHttp('/', 9090).forStatusCodeMatching((status) => status < 500))
      .start();
    return withEnv({
      endpoint: `http://${container.getHost()}:${container.getMappedPort(9090)}`,
      accessKeyId: 'test',
      secretAccessKey: 'test',
      stop: async () => {
        await container.stop();
      },
    });
  }
  const dir = mkdtempSync(join(tmpdir(), 'forms-s3-'));
  const local = await startLocalS3({ dir });
  return withEnv({
    endpoint: local.endpoint,
    accessKeyId: local.accessKeyId,
    secretAccessKey: local.secretAccessKey,
    stop: async () => {
      await local.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}

function withEnv(s3: Omit<TestS3, 'env'>): TestS3 {
  return {
    ...s3,
    env: (bucket) => ({
      S3_ENDPOINT: s3.endpoint,
      S3_BUCKET: bucket,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    }),
  };
}
