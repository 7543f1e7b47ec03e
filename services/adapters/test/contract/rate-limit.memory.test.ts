import { createMemoryRateLimiter } from '../../src/memory/rate-limit.memory.js';
import { rateLimitContract } from '@pylon/kit/contract/rate-limit.contract';

rateLimitContract('memory', (spec) => createMemoryRateLimiter(spec));
