/**
 * ONNX Runtime (CPU) sessions, cached per worker thread and file. One intra-op thread per session: the
 * pool already runs one task per core, so more threads per session would only fight over the same cores.
 */
import * as ort from 'onnxruntime-node';

const sessions = new Map<string, Promise<ort.InferenceSession>>();

export function onnxSession(file: string): Promise<ort.InferenceSession> {
  let session = sessions.get(file);
  if (!session) {
    session = ort.InferenceSession.create(file, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    // A file that failed to load may be fixed by the operator; do not cache the failure.
    session.catch(() => sessions.delete(file));
    sessions.set(file, session);
  }
  return session;
}

export { ort };
