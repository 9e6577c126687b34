/**
 * The backend's one pixel type: decoded pixels as packed 8-bit RGB, row-major, `width * height * 3` bytes,
 * no alpha. The decoder produces it, worker tasks take it (it crosses the thread boundary as is), and every
 * model and algorithm reads it.
 */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * The pixels in memory JavaScript allocated, for a thread to hand them on: memory sharp (libvips) allocated
 * cannot be detached, so postMessage copies it on the receiving thread (the main thread, for pixels coming back
 * from a decode or an inference thread) even when it is in the transfer list; this copies it once here instead.
 */
export function movablePixels(image: RgbImage): RgbImage {
  return { data: new Uint8Array(image.data), width: image.width, height: image.height };
}
