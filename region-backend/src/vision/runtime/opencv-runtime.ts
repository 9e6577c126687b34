/**
 * OpenCV (opencv.js, WebAssembly) for logo matching: loaded once per worker thread, on first use only, so a
 * backend without registered logos never pays for it (about 0.5–1.2 s and ~130 MB of wasm memory per thread).
 *
 * The package's own typings are loose; `Cv` below declares only what the logo code uses.
 */
import { createRequire } from 'node:module';

export interface CvMat {
  readonly rows: number;
  readonly cols: number;
  readonly data: Uint8Array;
  readonly data32F: Float32Array;
  readonly data64F: Float64Array;
  empty(): boolean;
  delete(): void;
}

export interface CvKeyPoint {
  pt: { x: number; y: number };
  size: number;
  angle: number;
  response: number;
  octave: number;
  class_id: number;
}

interface CvVector<T> {
  size(): number;
  get(index: number): T;
  push_back(value: T): void;
  delete(): void;
}

export type CvKeyPointVector = CvVector<CvKeyPoint>;
export interface CvDMatch {
  queryIdx: number;
  trainIdx: number;
  distance: number;
}
export type CvDMatchVectorVector = CvVector<CvVector<CvDMatch>>;

export interface CvOrb {
  setMaxFeatures(n: number): void;
  setScaleFactor(f: number): void;
  setNLevels(n: number): void;
  setEdgeThreshold(n: number): void;
  setPatchSize(n: number): void;
  detect(image: CvMat, keypoints: CvKeyPointVector, mask: CvMat): void;
  compute(image: CvMat, keypoints: CvKeyPointVector, descriptors: CvMat): void;
  detectAndCompute(image: CvMat, mask: CvMat, keypoints: CvKeyPointVector, descriptors: CvMat): void;
  delete(): void;
}

export interface CvBfMatcher {
  knnMatch(query: CvMat, train: CvMat, matches: CvDMatchVectorVector, k: number): void;
  delete(): void;
}

export interface Cv {
  Mat: { new (): CvMat; new (rows: number, cols: number, type: number): CvMat; new (rows: number, cols: number, type: number, scalar: number[]): CvMat };
  Size: new (width: number, height: number) => unknown;
  Scalar: new (...values: number[]) => number[];
  KeyPointVector: new () => CvKeyPointVector;
  DMatchVectorVector: new () => CvDMatchVectorVector;
  ORB: new (nfeatures?: number) => CvOrb;
  BFMatcher: new (normType: number, crossCheck: boolean) => CvBfMatcher;
  matFromArray(rows: number, cols: number, type: number, values: ArrayLike<number>): CvMat;
  cvtColor(src: CvMat, dst: CvMat, code: number): void;
  resize(src: CvMat, dst: CvMat, size: unknown, fx: number, fy: number, interpolation: number): void;
  flip(src: CvMat, dst: CvMat, flipCode: number): void;
  copyMakeBorder(src: CvMat, dst: CvMat, top: number, bottom: number, left: number, right: number, borderType: number, value: number[]): void;
  GaussianBlur(src: CvMat, dst: CvMat, size: unknown, sigmaX: number): void;
  findHomography(src: CvMat, dst: CvMat, method: number, threshold: number, mask: CvMat, maxIters: number, confidence: number): CvMat;
  exceptionFromPtr(ptr: number): { msg: string };
  CV_8U: number;
  CV_8UC1: number;
  CV_8UC3: number;
  CV_8UC4: number;
  CV_32FC2: number;
  CV_64F: number;
  COLOR_RGB2GRAY: number;
  COLOR_RGBA2GRAY: number;
  INTER_AREA: number;
  INTER_LINEAR: number;
  INTER_CUBIC: number;
  BORDER_CONSTANT: number;
  BORDER_REPLICATE: number;
  NORM_HAMMING: number;
  RANSAC: number;
}

export interface LoadedCv {
  cv: Cv;
  /** Milliseconds the first load took on this thread. */
  loadMs: number;
}

let loading: Promise<LoadedCv> | null = null;

/**
 * The thread's OpenCV instance. The emscripten module object is itself a thenable (`Module.then`), so it is
 * never resolved directly from a promise: it is wrapped in `{cv}`.
 */
export function opencv(): Promise<LoadedCv> {
  loading ??= new Promise<LoadedCv>((resolve, reject) => {
    const started = performance.now();
    try {
      const required = createRequire(import.meta.url)('@techstark/opencv-js') as Cv & { onRuntimeInitialized?: () => void };
      const done = () => resolve({ cv: required, loadMs: performance.now() - started });
      if (typeof (required as { Mat?: unknown }).Mat === 'function') done();
      else required.onRuntimeInitialized = done;
    } catch (err) {
      loading = null;
      reject(err instanceof Error ? new Error(`OpenCV failed to load: ${err.message.slice(0, 200)}`) : err);
    }
  });
  return loading;
}

/** OpenCV throws C++ exceptions as bare pointers; turn them into readable errors. */
export function cvError(cv: Cv, err: unknown): Error {
  if (typeof err === 'number') return new Error(`OpenCV: ${cv.exceptionFromPtr(err).msg.trim()}`);
  if (err instanceof Error) return new Error(err.message.slice(0, 500));
  return new Error(String(err));
}

/** Collects OpenCV objects created during a computation so one `finally` frees them all. */
export class CvScope {
  private readonly objects: { delete(): void }[] = [];

  keep<T extends { delete(): void }>(object: T): T {
    this.objects.push(object);
    return object;
  }

  release(): void {
    for (const object of this.objects.splice(0).reverse()) object.delete();
  }
}
