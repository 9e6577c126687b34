/** The logo library as posted to the inference threads (built by domains/logos/logo-library.ts). */

/** One reference image of the library, as posted to the inference threads. */
export interface LibraryReference {
  id: number;
  brandId: number;
  width: number;
  height: number;
  outline: [number, number, number, number];
  /** First keypoint of this reference in the library's `points` / `descriptors`. */
  offset: number;
  count: number;
  /** The reference's template: `2 × width × height` bytes from `offset` in the library's `templates`. */
  template: { offset: number; width: number; height: number };
}

/**
 * The whole reference library. `points` and `descriptors` live in SharedArrayBuffers, so posting the library
 * with every query costs nothing and threads read it in place. `key` changes whenever the library does.
 */
export interface LibraryPayload {
  key: string;
  references: LibraryReference[];
  points: Float32Array;
  descriptors: Uint8Array;
  templates: Uint8Array;
}
