/**
 * A file written chunk by chunk with back-pressure. A bare `fs.WriteStream` throws its errors at the process
 * when nobody listens: a full disk, or a write still in flight when the stream is destroyed (a client that
 * drops its upload mid-write) would stop the process for every caller. Here they reach the writer instead.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';

export class FileSink {
  readonly #stream: WriteStream;
  #error: Error | null = null;

  constructor(filePath: string) {
    this.#stream = createWriteStream(filePath);
    this.#stream.on('error', (err) => {
      this.#error ??= err;
    });
  }

  /** Writes a chunk, waiting while the stream's buffer is full; fails once the file has failed or was destroyed. */
  async write(chunk: Buffer | string): Promise<void> {
    this.#throwIfUnusable();
    if (this.#stream.write(chunk)) return;
    // An error destroys the stream, so 'close' follows it: waiting for drain or close never waits forever.
    await new Promise<void>((resolve) => {
      const done = () => {
        this.#stream.off('drain', done);
        this.#stream.off('close', done);
        resolve();
      };
      this.#stream.on('drain', done);
      this.#stream.on('close', done);
    });
    this.#throwIfUnusable();
  }

  /** Ends the file and waits until its bytes are handed to the system (or its failure). */
  async end(): Promise<void> {
    this.#throwIfUnusable();
    this.#stream.end();
    await finished(this.#stream);
  }

  /** Closes the file whatever its state; a write in flight then fails quietly. */
  destroy(): void {
    this.#stream.destroy();
  }

  #throwIfUnusable(): void {
    if (this.#error) throw this.#error;
    if (this.#stream.destroyed) throw new Error('the file was closed');
  }
}
