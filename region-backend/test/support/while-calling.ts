/**
 * Runs `work` while a caller makes one call after the other (`call`), as a sequential client of another
 * account would; the caller stops once `work` settles and its last call has answered.
 */
export async function whileCalling<T>(call: () => Promise<unknown>, work: () => Promise<T>): Promise<T> {
  let calling = true;
  const caller = (async () => {
    while (calling) await call();
  })();
  try {
    return await work();
  } finally {
    calling = false;
    await caller;
  }
}
