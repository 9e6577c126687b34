/** The vision classify services: pornography, scene, general tagging. */
import type { AnyAnalysisHandler } from '../analysis-registry.js';
import { pornHandler } from './porn.handler.js';
import { sceneHandler } from './scene.handler.js';
import { taggingHandler } from './tagging.handler.js';

export const VISION_CLASSIFY_HANDLERS: AnyAnalysisHandler[] = [pornHandler, sceneHandler, taggingHandler];
