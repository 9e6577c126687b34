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
