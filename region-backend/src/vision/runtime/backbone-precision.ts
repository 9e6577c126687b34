/**
 * Which numeric precision the embedding backbone runs in: `int8` (default: the converted model statically
 * quantised with 7-bit weights, runtime/quantised-model.ts: 2.4× as fast and as accurate in the evaluations,
 * docs/models.md) or `float` (the conversion as it is), chosen with IRIS_BACKBONE_PRECISION. The main thread
 * reads it for the built-in embedder's identity, the worker threads to pick the model; both see the same
 * environment. No model runtime here.
 */
export type BackbonePrecision = 'int8' | 'float';

/** Part of the built-in embedder's id for the int8 backbone; bumped with the quantiser or its calibration set. */
export const INT8_BACKBONE_TAG = 'int8.qdq3';

/**
 * The quantisation key (runtime/quantised-model.ts: conversion, calibration set, quantiser and ONNX Runtime
 * versions) the tag above stands for. A test fails when the key changes: bump the tag with it, so indexes are
 * rebuilt with the new model.
 */
export const INT8_BACKBONE_KEY = '6e5a0d4ce4a8ed74';

export function backbonePrecision(): BackbonePrecision {
  const value = process.env.IRIS_BACKBONE_PRECISION?.trim() || 'int8';
  if (value !== 'int8' && value !== 'float') throw new Error(`IRIS_BACKBONE_PRECISION must be "int8" or "float", not "${value}"`);
  return value;
}

/** Names the backbone's numbers: `float`, or the int8 tag (caches of embeddings key on it). */
export function backboneTag(precision = backbonePrecision()): string {
  return precision === 'float' ? 'float' : INT8_BACKBONE_TAG;
}
