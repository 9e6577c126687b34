/**
 * ONNX Runtime (CPU) sessions, created once per worker thread and model. Threads are sized with the pool:
 * the pool runs one task per worker thread, and each session uses IRIS_INTRA_OP_THREADS threads (default 1),
 * so workers × intra-op threads = cores keeps every core busy under load without oversubscribing them.
 */
import * as ort from 'onnxruntime-node';

const sessions = new Map<string, Promise<ort.InferenceSession>>();

export function intraOpThreads(): number {
  const n = Number(process.env.IRIS_INTRA_OP_THREADS ?? 1);
  return Number.isInteger(n) && n >= 1 && n <= 64 ? n : 1;
}

export function sessionOptions(): ort.InferenceSession.SessionOptions {
  const threads = intraOpThreads();
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    // Every thread holds a session of every model it runs; with the arena each session keeps its largest run's
    // activations for good (250 MB for the OCR detector at 640 px), which doubled a warmed thread's memory; the
    // speed without it is measured against the bare session with it (`npm run bench -- onnx-runtime`).
    enableCpuMemArena: false,
    // Spinning threads would steal the core a sibling worker is using.
    ...(threads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
  };
}

/** A session for a file, or for model bytes under a stable key (converted models). */
export function onnxSession(file: string, bytes?: () => Uint8Array): Promise<ort.InferenceSession> {
  let session = sessions.get(file);
  if (!session) {
    session = bytes ? ort.InferenceSession.create(bytes(), sessionOptions()) : ort.InferenceSession.create(file, sessionOptions());
    // A file that failed to load may be fixed by the operator; do not cache the failure.
    session.catch(() => sessions.delete(file));
    sessions.set(file, session);
  }
  return session;
}

export { ort };
