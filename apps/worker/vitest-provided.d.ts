// Types what the test tiers' global setups hand to inject(): the test Redis's URL.
import type {} from '@forms/local-services/vitest-redis-setup';
