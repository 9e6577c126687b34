/** The vision detect services: faces, bodies, people, furniture, fashion. */
import type { AnyAnalysisHandler } from '../analysis-registry.js';
import { bodiesHandler } from './bodies.handler.js';
import { facesHandler } from './faces.handler.js';
import { fashionHandler } from './fashion.handler.js';
import { furnitureHandler } from './furniture.handler.js';
import { peopleHandler } from './people.handler.js';

export const VISION_DETECT_HANDLERS: AnyAnalysisHandler[] = [facesHandler, bodiesHandler, peopleHandler, furnitureHandler, fashionHandler];
