/** Every domain the backend serves. Add a domain here to mount its routes and job types. */
import type { Domain } from './domain.js';
import { badCasesDomain } from './bad-cases/bad-case.routes.js';

export const DOMAINS: Domain[] = [badCasesDomain];
