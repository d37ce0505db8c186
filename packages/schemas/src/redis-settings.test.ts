import { expect, it } from 'vitest';
import { queueKey, redisSettings } from './redis-settings.ts';

it('keeps a single Redis on BullMQ key names from before cluster support', () => {
  expect(redisSettings({})).toEqual({ mode: 'single', url: 'redis://127.0.0.1:6379', prefix: 'bull' });
  expect(queueKey(redisSettings({}), 'submissions', 'contact', 'ab12')).toBe('bull:submissions:contact:ab12');
});

it('chooses a cluster from REDIS_CLUSTER_NODES, with a hash-tagged prefix and the first entry credentials', () => {
  const settings = redisSettings({
    REDIS_CLUSTER_NODES: ['rediss://app:s%40cret@10.0.0.1:7000', '10.0.0.2:7001'],
  });
  expect(settings).toEqual({
    mode: 'cluster',
    nodes: [
      { host: '10.0.0.1', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
    ],
    username: 'app',
    password: 's@cret',
    tls: true,
    prefix: '{forms}',
  });
  expect(queueKey(settings, 'submissions', 'contact', 'ab12')).toBe('{forms}:submissions:contact:ab12');
});

it('refuses a cluster prefix without a hash tag, and both REDIS_URL and REDIS_CLUSTER_NODES', () => {
  expect(() => redisSettings({ REDIS_CLUSTER_NODES: ['127.0.0.1:7000'], QUEUE_PREFIX: 'bull' })).toThrow(
    /QUEUE_PREFIX must hold a hash tag/,
  );
  expect(() => redisSettings({ REDIS_CLUSTER_NODES: ['127.0.0.1:7000'], REDIS_URL: 'redis://x:6379' })).toThrow(
    /REDIS_URL and REDIS_CLUSTER_NODES/,
  );
});
