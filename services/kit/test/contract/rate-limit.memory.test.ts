import { createMemoryRateLimiter } from '../../src/adapters/rate-limit.memory.js';
import { rateLimitContract } from './rate-limit.contract.js';

rateLimitContract('memory', (spec) => createMemoryRateLimiter(spec));
