/**
 * Imported first by server.ts, before anything touches the libuv thread pool: decoding (sharp), file
 * writes of uploads and WebCrypto (the edge-signature check of every request) share that pool, and its
 * default of 4 threads lets 50 concurrent uploads queue an ordinary request's signature check behind them.
 * Host names of client URLs are not resolved on it (images/dns-resolver.ts).
 */
process.env.UV_THREADPOOL_SIZE ??= '16';
