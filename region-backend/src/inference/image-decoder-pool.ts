/**
 * The one decode path for untrusted image bytes, used by every entry point (analysis, search queries,
 * data-set downloads, batch, custom classifier inference, logo references): format probe → size and pixel
 * check → decode, on a small pool of decode threads with a time limit. A decoder trap (a hostile header, a
 * libvips corner case) costs one terminated thread and a "cannot be decoded" error, never the event loop.
 */
import type { RgbImage } from '../images/rgb-image.js';
import type { DecodedReference } from '../vision/logo/reference-image.js';
import type { DecodeOptions, StorageOptions, StoredImage } from '../images/image-decoder.js';
import { isApiError } from '@iris/shared';
import { IMAGE_DECODE_ERROR_KINDS, ImageDecodeError, type ImageDecodeErrorKind } from '../images/image-errors.js';
import { InferencePool, InferenceTaskError, InferenceTimeoutError, STOP_GRACE_MS, type PoolObserver, type Priority } from './inference-pool.js';
import type { ImageDecodePayload } from './tasks/image-decode.task.js';

export interface DecoderLimits {
  /** IRIS_MAX_IMAGE_PIXELS: larger images are refused from their header, before any pixel is decoded. */
  maxPixels: number;
  /** IRIS_DECODE_TIMEOUT_MS: a decode running longer is stopped (its thread terminated). */
  timeoutMs: number;
  /** IRIS_FIRST_TIER_PRIORITY_BOOST, as for inference (default FIRST_TIER_BOOST). */
  firstTierBoost?: number;
}

function kindOf(code: string | undefined): ImageDecodeErrorKind | null {
  const kind = code?.startsWith('image-') ? code.slice('image-'.length) : '';
  return (IMAGE_DECODE_ERROR_KINDS as readonly string[]).includes(kind) ? (kind as ImageDecodeErrorKind) : null;
}

/** Errors of a decode thread as ImageDecodeError; the pool being closed (shutdown) passes through. */
function asDecodeError(err: unknown): unknown {
  if (err instanceof InferenceTaskError) {
    const kind = kindOf(err.code);
    if (kind) return new ImageDecodeError(kind, err.message, { cause: err });
    return new ImageDecodeError('undecodable', 'the image data is corrupt or not a supported image', { cause: err });
  }
  if (err instanceof InferenceTimeoutError) {
    return new ImageDecodeError('undecodable', `decoding the image took longer than ${err.timeoutMs / 1000} s`, { cause: err });
  }
  if (err instanceof Error && /closed/.test(err.message)) return err;
  // The account's decode queue is full: the caller answers "busy" (503), the image is not at fault.
  if (isApiError(err)) return err;
  // The thread crashed or ran out of memory on these bytes: the input's fault, the thread is replaced.
  return new ImageDecodeError('undecodable', 'the image could not be decoded', { cause: err });
}

/** Beyond the stop grace: the terminated thread's last copy into the slot (a few MB) has long ended. */
const SLOT_MARGIN_MS = 5_000;

export class ImageDecoderPool {
  private readonly pool: InferencePool;

  constructor(
    threads: number,
    readonly limits: DecoderLimits,
  ) {
    // Two tiers, as for inference, so an account's single decode never waits behind another's flood. libvips
    // decodes on the process's shared libuv threads, whose priority a decode thread cannot lower, so one
    // account still holds at most half the threads: more decodes in flight would only add contention.
    this.pool = new InferencePool(threads, {
      taskTimeoutMs: limits.timeoutMs,
      accountThreads: Math.max(1, Math.ceil(threads / 2)),
      ...(limits.firstTierBoost === undefined ? {} : { firstTierBoost: limits.firstTierBoost }),
    });
  }

  /** Told when a decode starts and ends (the usage counters' thread time). */
  get observer(): PoolObserver | undefined {
    return this.pool.observer;
  }
  set observer(observer: PoolObserver | undefined) {
    this.pool.observer = observer;
  }

  private async run<T>(payload: ImageDecodePayload, priority: Priority, accountId?: number): Promise<T> {
    try {
      // The op decides which member of the result union comes back.
      return (await this.pool.run('image-decode', payload, { priority, ...(accountId === undefined ? {} : { accountId }) })) as T;
    } catch (err) {
      throw asDecodeError(err);
    }
  }

  /**
   * 8-bit RGB, upright, first frame, optionally cropped (`loc`) and scaled down to `maxSide`. With the
   * calling account, its decodes take turns with other accounts' within its share of the threads (one
   * account's flood of uploads does not queue in front of another's call).
   */
  rgb(bytes: Uint8Array, options: Omit<DecodeOptions, 'maxPixels'> = {}, priority: Priority = 'interactive', accountId?: number): Promise<RgbImage> {
    return this.run({ op: 'rgb', bytes, options: { ...options, maxPixels: this.limits.maxPixels } }, priority, accountId);
  }

  /**
   * The normalised JPEG copy kept in the blob store (with its pixels when it is the downloaded JPEG itself,
   * written into `pixelsInto` when given and of their size). A `pixelsInto` slot may still be written after a
   * decode fails by its time limit (the thread finishes its call before it stops): see `slotFreeAfter`.
   */
  forStorage(bytes: Uint8Array, options: Omit<StorageOptions, 'maxPixels'> = {}, priority: Priority = 'background'): Promise<StoredImage> {
    return this.run({ op: 'store', bytes, options: { ...options, maxPixels: this.limits.maxPixels } }, priority);
  }

  /**
   * How long after a decode failed with `err` the `pixelsInto` slot it was given may be handed to anything
   * else: at once when the decode thread answered (the error is the task's own) or never got the call (busy);
   * otherwise (over its time limit, a crash) once the thread has surely stopped: a thread asked to stop
   * finishes its call first, and is terminated only after the stop grace.
   */
  slotFreeAfter(err: unknown): number {
    const answered = err instanceof ImageDecodeError ? err.cause instanceof InferenceTaskError : isApiError(err);
    return answered ? 0 : STOP_GRACE_MS + SLOT_MARGIN_MS;
  }

  /** Logo reference artwork: upright RGBA and its PNG copy. */
  async reference(bytes: Uint8Array): Promise<DecodedReference> {
    const decoded = await this.run<DecodedReference>({ op: 'reference', bytes, maxPixels: this.limits.maxPixels }, 'interactive');
    return { rgba: decoded.rgba, png: Buffer.from(decoded.png.buffer, decoded.png.byteOffset, decoded.png.byteLength) };
  }

  /** Calls each account has in flight (see InferencePool.callsInFlight). */
  set callsInFlight(count: ((account: string) => number) | undefined) {
    this.pool.callsInFlight = count;
  }

  /** Decodes waiting for a thread. */
  get waiting(): number {
    const w = this.pool.waiting;
    return w.interactive + w.background;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
