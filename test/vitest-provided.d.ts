// Types what the test tiers' global setups hand to inject(): the test Redis's URL, the postgres tier's template.
import type {} from '@forms/local-services/vitest-redis-setup';
import type {} from './support/postgres-template-setup.ts';
