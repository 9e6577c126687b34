/** Limits shared by the vision detect services. */

/** Smallest accepted picture side: below 16 pixels no detector here finds anything (400008). */
export const DETECT_MIN_SIDE = 16;

/**
 * Lowest detector score reported. CenterNet's centre heatmap peaks rarely exceed 0.7 even for obvious objects;
 * 0.25 keeps the real objects of the evaluation photos while dropping most spurious peaks (docs/vision-services.md).
 */
export const OBJECT_MIN_SCORE = 0.25;
