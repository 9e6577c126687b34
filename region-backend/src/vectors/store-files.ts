/**
 * On-disk layout of a saved vector store (one directory per store):
 *
 *   manifest.json          the commit point: format, kind, metadata, and name + size + CRC-32 of each data file
 *   sidecar-<gen>.bin      ids per slot, tags, tag set per slot, the JS-side vectors (binary sections)
 *   index-<gen>.hnsw       the native graph (hnswlib for HNSW stores, usearch for usearch stores)
 *
 * A save writes the data files of a new generation under temporary names, fsyncs and renames them, then
 * replaces manifest.json the same way and only then deletes the previous generation. A crash at any point
 * leaves either the old or the new manifest, each naming complete files. Loading checks sizes and CRCs before
 * anything is parsed (hnswlib trusts its file blindly), so a torn or altered file reads as `corrupt`.
 */
import { constants, createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fsyncDirectory, fsyncFile } from '../util/durable-files.js';
import type { LoadResult, VectorStoreMeta } from './vector-store.js';

export const STORE_FORMAT = 'iris-vector-store';
export const STORE_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';
const MAGIC = Buffer.from('IRISVEC\u0001', 'latin1');
const DATA_FILE = /^(?:index|sidecar)-\d+\.(?:hnsw|bin)(?:\.tmp)?$/;

export interface FileEntry {
  name: string;
  bytes: number;
  crc32: number;
}

export interface Manifest {
  format: typeof STORE_FORMAT;
  formatVersion: number;
  kind: 'hnsw' | 'exact' | 'usearch';
  generation: number;
  savedAt: string;
  littleEndian: boolean;
  meta: VectorStoreMeta;
  size: number;
  slots: number;
  /** Build parameters (M, efConstruction, …) so a reader can tell how the file was made. */
  params: Record<string, string | number>;
  files: { sidecar: FileEntry; index?: FileEntry };
}

export interface SidecarSection {
  name: string;
  /** The section's bytes in order. A lazy source (a file-backed slab) may reuse one buffer: each chunk is written before the next is asked for. */
  chunks: Iterable<Uint8Array>;
  /** Total bytes of `chunks`; required when they are not an array. */
  bytes?: number;
}

export interface SaveInput {
  kind: Manifest['kind'];
  meta: VectorStoreMeta;
  size: number;
  slots: number;
  params: Manifest['params'];
  /** JSON-serialisable part of the sidecar (tag dictionary, tag sets). */
  header: Record<string, unknown>;
  sections: SidecarSection[];
  /** Writes the native index to the given path (HNSW stores). */
  writeIndex?: (file: string) => Promise<void>;
}

export interface SectionLocation {
  offset: number;
  bytes: number;
}

export interface LoadedFiles {
  manifest: Manifest;
  header: Record<string, unknown>;
  sidecarFile: string;
  sections: Map<string, SectionLocation>;
  indexFile: string | undefined;
}

export interface LoadExpectation {
  kind: Manifest['kind'];
  dimension: number;
  embeddingVersion: string;
}

export async function saveStoreFiles(dir: string, input: SaveInput): Promise<Manifest> {
  await mkdir(dir, { recursive: true });
  const previous = await readManifest(dir).catch(() => undefined);
  const generation = Math.max(Date.now(), (previous?.generation ?? 0) + 1);

  const sidecar = await writeAtomically(dir, `sidecar-${generation}.bin`, (file) => writeSidecar(file, input));
  let index: FileEntry | undefined;
  if (input.writeIndex) {
    const writeIndex = input.writeIndex;
    index = await writeAtomically(dir, `index-${generation}.hnsw`, async (file) => {
      await writeIndex(file);
      await fsyncFile(file);
      return fileEntry(file);
    });
  }
  const manifest: Manifest = {
    format: STORE_FORMAT,
    formatVersion: STORE_FORMAT_VERSION,
    kind: input.kind,
    generation,
    savedAt: new Date().toISOString(),
    littleEndian: os.endianness() === 'LE',
    meta: { ...input.meta },
    size: input.size,
    slots: input.slots,
    params: input.params,
    files: index ? { sidecar, index } : { sidecar },
  };
  await writeAtomically(dir, MANIFEST, async (file) => {
    await writeWhole(file, Buffer.from(JSON.stringify(manifest, null, 2)));
    return fileEntry(file);
  });
  await fsyncDirectory(dir);
  await removeStaleFiles(dir, manifest);
  return manifest;
}

/** Reads and verifies a saved store; anything unusable is reported as a LoadResult for the owner to rebuild. */
export async function loadStoreFiles(dir: string, expect: LoadExpectation): Promise<LoadedFiles | Exclude<LoadResult, { status: 'loaded' }>> {
  let manifest: Manifest;
  try {
    manifest = await readManifest(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing' };
    return { status: 'corrupt', reason: `manifest unreadable: ${(err as Error).message}` };
  }
  const mismatch = incompatibility(manifest, expect);
  if (mismatch) return { status: 'incompatible', reason: mismatch };

  const entries = [manifest.files.sidecar, manifest.files.index].filter((e): e is FileEntry => e !== undefined);
  if (expect.kind !== 'exact' && !manifest.files.index) return { status: 'corrupt', reason: 'manifest names no index file' };
  for (const entry of entries) {
    const problem = await verifyFile(dir, entry);
    if (problem) return { status: 'corrupt', reason: problem };
  }
  try {
    const sidecarFile = path.join(dir, manifest.files.sidecar.name);
    const { header, sections } = await readSidecarLayout(sidecarFile, manifest.files.sidecar.bytes);
    return {
      manifest,
      header,
      sidecarFile,
      sections,
      indexFile: manifest.files.index ? path.join(dir, manifest.files.index.name) : undefined,
    };
  } catch (err) {
    return { status: 'corrupt', reason: `sidecar unreadable: ${(err as Error).message}` };
  }
}

/** Which store saved the directory's current files, for which embedding version; undefined when none is readable. */
export async function savedStoreOf(dir: string): Promise<{ kind: Manifest['kind']; embeddingVersion: string } | undefined> {
  const manifest = await readManifest(dir).catch(() => undefined);
  if (!manifest || manifest.format !== STORE_FORMAT || typeof manifest.meta?.embeddingVersion !== 'string') return undefined;
  return { kind: manifest.kind, embeddingVersion: manifest.meta.embeddingVersion };
}

function incompatibility(m: Manifest, expect: LoadExpectation): string | undefined {
  if (m.format !== STORE_FORMAT) return `not a vector store manifest (${String(m.format)})`;
  if (m.formatVersion !== STORE_FORMAT_VERSION) return `format version ${m.formatVersion}, expected ${STORE_FORMAT_VERSION}`;
  if (m.kind !== expect.kind) return `saved by a ${m.kind} store, expected ${expect.kind}`;
  if (m.littleEndian !== (os.endianness() === 'LE')) return 'saved on a machine of other byte order';
  if (m.meta?.dimension !== expect.dimension) return `dimension ${m.meta?.dimension}, expected ${expect.dimension}`;
  if (m.meta.embeddingVersion !== expect.embeddingVersion) {
    return `embedding version ${JSON.stringify(m.meta.embeddingVersion)}, expected ${JSON.stringify(expect.embeddingVersion)}`;
  }
  return undefined;
}

async function readManifest(dir: string): Promise<Manifest> {
  const parsed = JSON.parse(await readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
  if (!parsed || typeof parsed !== 'object' || !parsed.files?.sidecar) throw new Error('manifest lacks its file list');
  return parsed;
}

async function verifyFile(dir: string, entry: FileEntry): Promise<string | undefined> {
  if (path.basename(entry.name) !== entry.name || !DATA_FILE.test(entry.name)) return `bad file name ${entry.name}`;
  const file = path.join(dir, entry.name);
  const info = await stat(file).catch(() => undefined);
  if (!info) return `${entry.name} is missing`;
  if (info.size !== entry.bytes) return `${entry.name} has ${info.size} bytes, manifest says ${entry.bytes}`;
  const crc = await crcOfFile(file);
  if (crc !== entry.crc32) return `${entry.name} fails its checksum`;
  return undefined;
}

async function writeAtomically(dir: string, name: string, write: (file: string) => Promise<FileEntry>): Promise<FileEntry> {
  const final = path.join(dir, name);
  const temporary = `${final}.tmp`;
  await rm(temporary, { force: true });
  try {
    const entry = await write(temporary);
    await rename(temporary, final);
    return { ...entry, name };
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

async function writeSidecar(file: string, input: SaveInput): Promise<FileEntry> {
  const header = Buffer.from(
    JSON.stringify({ ...input.header, sections: input.sections.map((s) => ({ name: s.name, bytes: sectionBytes(s) })) }),
  );
  const lead = Buffer.alloc(MAGIC.length + 4);
  MAGIC.copy(lead);
  lead.writeUInt32LE(header.length, MAGIC.length);
  function* parts(): Generator<Uint8Array> {
    yield* [lead, header, padding(lead.length + header.length)];
    for (const section of input.sections) {
      const expected = sectionBytes(section);
      let written = 0;
      for (const chunk of section.chunks) {
        written += chunk.length;
        yield chunk;
      }
      if (written !== expected) throw new Error(`section ${section.name} gave ${written} bytes, announced ${expected}`);
      yield padding(expected);
    }
  }
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
  let crc = 0;
  let bytes = 0;
  try {
    for (const part of parts()) {
      if (part.length === 0) continue;
      await writeAll(handle, part);
      crc = zlib.crc32(part, crc);
      bytes += part.length;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  return { name: path.basename(file), bytes, crc32: crc };
}

/** Reads the sidecar's header and section table; the sections themselves are read later, into place. */
async function readSidecarLayout(file: string, fileBytes: number): Promise<{ header: Record<string, unknown>; sections: Map<string, SectionLocation> }> {
  const handle = await open(file, constants.O_RDONLY);
  try {
    const lead = Buffer.alloc(MAGIC.length + 4);
    await readExactly(handle, lead, 0);
    if (!lead.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('bad magic');
    const headerBytes = lead.readUInt32LE(MAGIC.length);
    if (lead.length + headerBytes > fileBytes) throw new Error('header runs past the end');
    const headerText = Buffer.alloc(headerBytes);
    await readExactly(handle, headerText, lead.length);
    const header = JSON.parse(headerText.toString('utf8')) as Record<string, unknown>;
    let offset = align8(lead.length + headerBytes);
    const sections = new Map<string, SectionLocation>();
    const list = header.sections;
    if (!Array.isArray(list)) throw new Error('no section table');
    for (const s of list as { name: string; bytes: number }[]) {
      if (!Number.isSafeInteger(s.bytes) || s.bytes < 0 || offset + s.bytes > fileBytes) throw new Error(`section ${s.name} runs past the end`);
      sections.set(s.name, { offset, bytes: s.bytes });
      offset = align8(offset + s.bytes);
    }
    if (offset !== fileBytes) throw new Error('trailing bytes after the last section');
    return { header, sections };
  } finally {
    await handle.close();
  }
}

/**
 * Reads a sidecar section straight into the given arrays (filled in order; their total size must be the
 * section's), so loading never holds a second copy of the vectors.
 */
export async function readSection(files: LoadedFiles, name: string, targets: readonly Uint8Array[]): Promise<void> {
  await readSectionWith(files, name, byteLength(targets), async (read) => {
    for (const target of targets) await read(target);
  });
}

/**
 * Reads a sidecar section of `bytes` bytes through `consume`, which asks for it in order, a buffer at a time
 * (a file-backed slab copies it on in pieces); the whole section must be consumed.
 */
export async function readSectionWith(
  files: LoadedFiles,
  name: string,
  bytes: number,
  consume: (read: (target: Uint8Array) => Promise<void>) => Promise<void>,
): Promise<void> {
  const section = files.sections.get(name);
  if (!section || section.bytes !== bytes) throw new Error(`section ${name} has ${section?.bytes ?? 'no'} bytes, expected ${bytes}`);
  const handle = await open(files.sidecarFile, constants.O_RDONLY);
  try {
    let position = section.offset;
    await consume(async (target) => {
      if (position + target.length > section.offset + section.bytes) throw new Error(`section ${name} read past its end`);
      await readExactly(handle, target, position);
      position += target.length;
    });
    if (position !== section.offset + section.bytes) throw new Error(`section ${name} was not read to its end`);
  } finally {
    await handle.close();
  }
}

async function readExactly(handle: FileHandle, target: Uint8Array, position: number): Promise<void> {
  const step = 16 << 20;
  for (let done = 0; done < target.length; ) {
    const { bytesRead } = await handle.read(target, done, Math.min(step, target.length - done), position + done);
    if (bytesRead === 0) throw new Error('file ends early');
    done += bytesRead;
  }
}

export function bytesOf(array: Float64Array | Uint32Array | Float32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

async function fileEntry(file: string): Promise<FileEntry> {
  const info = await stat(file);
  return { name: path.basename(file), bytes: info.size, crc32: await crcOfFile(file) };
}

async function crcOfFile(file: string): Promise<number> {
  let crc = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 })) crc = zlib.crc32(chunk as Buffer, crc);
  return crc;
}

async function writeWhole(file: string, data: Uint8Array): Promise<void> {
  const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o644);
  try {
    await writeAll(handle, data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await handle.write(data, done, data.length - done);
    done += bytesWritten;
  }
}


async function removeStaleFiles(dir: string, manifest: Manifest): Promise<void> {
  const keep = new Set([manifest.files.sidecar.name, manifest.files.index?.name]);
  for (const name of await readdir(dir)) {
    if ((DATA_FILE.test(name) || name === `${MANIFEST}.tmp`) && !keep.has(name)) await rm(path.join(dir, name), { force: true });
  }
}

function sectionBytes(section: SidecarSection): number {
  if (section.bytes !== undefined) return section.bytes;
  if (!Array.isArray(section.chunks)) throw new Error(`section ${section.name}: a lazy source must announce its bytes`);
  return byteLength(section.chunks as Uint8Array[]);
}

function byteLength(chunks: readonly Uint8Array[]): number {
  return chunks.reduce((n, c) => n + c.length, 0);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

function padding(length: number): Uint8Array {
  return new Uint8Array(align8(length) - length);
}

/** Deletes a store's directory with everything in it (the service is gone). */
export async function removeStoreFiles(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}
