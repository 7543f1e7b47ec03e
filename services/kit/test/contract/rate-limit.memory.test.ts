import { createMemoryRateLimiter } from '../../src/adapters/rate-limit.memory.js';
import { rateLimitContract } from '../../src/contract/rate-limit.contract.js';

rateLimitContract('memory', (spec) => createMemoryRateLimiter(spec));
