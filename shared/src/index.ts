export * from './time.js';
export * from './text.js';
export * from './limits.js';
export * from './errors.js';
export * from './catalogue.js';
export * from './internal-auth.js';
export * from './ids.js';
