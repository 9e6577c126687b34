/**
 * This worker thread's stop: aborted when the pool asks the thread to stop, so long work that can end early
 * (converting the model pack, warming) ends at its next step instead of being terminated in the middle of
 * native work, which aborts the whole process.
 */
const controller = new AbortController();

export const threadStopSignal: AbortSignal = controller.signal;

export function requestThreadStop(): void {
  controller.abort(new Error('the inference thread is stopping'));
}
