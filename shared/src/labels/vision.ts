/** Label tables of the vision detect and classify services (one import for the barrel in ../index.ts). */
export * from './label-table.js';
export * from './coco.js';
export * from './people.js';
export * from './furniture.js';
export * from './fashion-detect.js';
export * from './porn.js';
export * from './scene.js';
export * from './tagging.js';
