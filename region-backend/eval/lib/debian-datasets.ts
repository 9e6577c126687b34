/**
 * Evaluation data from Debian packages, fetched at run time and never committed.
 *
 * A package already installed on the system is read in place; otherwise its .deb is fetched with
 * `apt-get download` and unpacked with `dpkg -x` into the evaluation cache (`IRIS_EVAL_CACHE`, default
 * `.iris/eval-cache` at the repository root), so nothing is installed system-wide. A package that cannot be
 * had is reported (`missing`) and the caller skips that part of its evaluation.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');

export function evalCacheDir(...parts: string[]): string {
  const root = process.env.IRIS_EVAL_CACHE ? path.resolve(process.env.IRIS_EVAL_CACHE) : path.join(REPO_ROOT, '.iris/eval-cache');
  const dir = path.join(root, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface PackageRoot {
  pkg: string;
  /** Directory that plays the role of `/` for this package's files. */
  root: string;
}

export interface MissingPackage {
  pkg: string;
  reason: string;
}

const APT_LOCK = '/tmp/iris-apt.lock';

function installedOnSystem(pkg: string): boolean {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).includes('install ok installed');
  } catch {
    return false;
  }
}

/** Runs an apt command under the shared apt lock when `flock` exists (several processes may use apt at once). */
function apt(args: string[], cwd: string): void {
  const hasFlock = existsSync('/usr/bin/flock');
  const [cmd, argv] = hasFlock ? ['flock', [APT_LOCK, 'apt-get', ...args]] : ['apt-get', args];
  execFileSync(cmd, argv, { cwd, stdio: ['ignore', 'ignore', 'pipe'], timeout: 10 * 60_000 });
}

function download(pkg: string, dir: string): string {
  const find = () => readdirSync(dir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
  const existing = find();
  if (existing) return path.join(dir, existing);
  try {
    apt(['download', '-q', pkg], dir);
  } catch {
    // Package lists may be missing or stale on a fresh machine: refresh once and retry.
    apt(['update', '-q'], dir);
    apt(['download', '-q', pkg], dir);
  }
  const deb = find();
  if (!deb) throw new Error(`apt-get download ${pkg} produced no .deb`);
  return path.join(dir, deb);
}

const resolved = new Map<string, PackageRoot | MissingPackage>();

/** The files of a Debian package: installed ones in place, else unpacked into the cache. */
export function debianPackage(pkg: string): PackageRoot | MissingPackage {
  const known = resolved.get(pkg);
  if (known) return known;
  let result: PackageRoot | MissingPackage;
  if (installedOnSystem(pkg)) {
    result = { pkg, root: '/' };
  } else {
    const root = evalCacheDir('debian', pkg);
    const marker = path.join(root, '.unpacked');
    try {
      if (!existsSync(marker)) {
        const deb = download(pkg, evalCacheDir('debs'));
        rmSync(root, { recursive: true, force: true });
        mkdirSync(root, { recursive: true });
        execFileSync('dpkg', ['-x', deb, root], { stdio: ['ignore', 'ignore', 'pipe'] });
        writeFileSync(marker, deb);
      }
      result = { pkg, root };
    } catch (err) {
      const message = err instanceof Error ? ((err as { stderr?: Buffer }).stderr?.toString().trim() || err.message) : String(err);
      result = { pkg, reason: message.split('\n').slice(-2).join(' ') };
    }
  }
  resolved.set(pkg, result);
  return result;
}

export function isMissing<T extends object>(p: T | MissingPackage): p is MissingPackage {
  return 'reason' in p && 'pkg' in p;
}

// ---------------------------------------------------------------------------------------------------------
// Real photos

export interface PhotoFile {
  /** Stable id: `<package>/<file name>`. */
  id: string;
  pkg: string;
  path: string;
}

interface PhotoSource {
  pkg: string;
  dir: string;
  /** File names left out: drawings, renders, logos, tiny files, and all but one of near-identical series. */
  exclude?: RegExp;
  include?: RegExp;
}

const PHOTO_EXT = /\.(jpe?g|png)$/i;

/**
 * The photos the near-duplicate evaluation queries. Series of near-identical shots (stereo pairs,
 * calibration sequences, before/after edits) keep one member, so "the right answer" is unambiguous.
 */
const TEST_PHOTO_SOURCES: PhotoSource[] = [
  {
    pkg: 'opencv-doc',
    dir: 'usr/share/doc/opencv-doc/examples/data',
    exclude:
      /^(aloe(GT|R)|basketball2|Blender_Suzanne\d|HappyFish|LinuxLogo|WindowsLogo|box|cards|chessboard|detect_blob|digits|ela_modified|ellipses|gradient|graf3|imageText[NR]|leuvenB|left(0[2-9]|1\d)|right\d*|mask|ml|notes|opencv-logo.*|pic\d|rubberwhale2|smarties|templ|tmpl|text_motion|aero3)\./,
  },
  { pkg: 'opencv-doc', dir: 'usr/share/doc/opencv-doc/examples/text', include: /^scenetext0\d\.jpg$/ },
  { pkg: 'opencv-doc', dir: 'usr/share/doc/opencv-doc/examples/alphamat/input_images' },
  { pkg: 'opencv-doc', dir: 'usr/share/doc/opencv-doc/examples/hfs/data', include: /^000\.jpg$/ },
  {
    pkg: 'python3-skimage',
    dir: 'usr/lib/python3/dist-packages/skimage/data',
    exclude: /^(block|bw_text|checker_bilevel|chessboard_.*|clock_motion|color|foo3x5x4indexed|green_palette|horse|logo|microaneurysms|motorcycle_right|palette_.*|phantom|truncated)\./,
  },
  { pkg: 'darknet', dir: 'usr/share/darknet/data', include: /^[a-z]+\.jpg$/ },
  { pkg: 'mate-backgrounds', dir: 'usr/share/backgrounds/mate/nature' },
];

/** Photos used only to learn PCA/whitening: the tutorial pictures of the OpenCV manual (never queried). */
const HELD_OUT_SOURCES: PhotoSource[] = [{ pkg: 'opencv-doc', dir: 'usr/share/doc/opencv-doc/opencv4/html', include: /\.jpe?g$/i }];

function walk(dir: string, recursive: boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && recursive) out.push(...walk(full, true));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

export interface PhotoCollection {
  photos: PhotoFile[];
  missing: MissingPackage[];
}

function collect(sources: PhotoSource[], recursive: boolean, minBytes: number): PhotoCollection {
  const photos: PhotoFile[] = [];
  const missing = new Map<string, MissingPackage>();
  for (const source of sources) {
    const pkg = debianPackage(source.pkg);
    if (isMissing(pkg)) {
      missing.set(pkg.pkg, pkg);
      continue;
    }
    for (const file of walk(path.join(pkg.root, source.dir), recursive).sort()) {
      const name = path.basename(file);
      if (!PHOTO_EXT.test(name)) continue;
      if (source.include && !source.include.test(name)) continue;
      if (source.exclude?.test(name)) continue;
      if (readFileSync(file).length < minBytes) continue;
      const rel = path.relative(path.join(pkg.root, source.dir), file);
      photos.push({ id: `${source.pkg}/${rel}`, pkg: source.pkg, path: file });
    }
  }
  return { photos, missing: [...missing.values()] };
}

/** About 90 real photos from opencv-doc, python3-skimage, darknet and mate-backgrounds. */
export function loadTestPhotos(): PhotoCollection {
  return collect(TEST_PHOTO_SOURCES, false, 20_000);
}

/** About 280 real pictures disjoint from the test photos' files (callers still drop near-duplicates of them). */
export function loadHeldOutPhotos(): PhotoCollection {
  return collect(HELD_OUT_SOURCES, true, 20_000);
}

/**
 * Photos no other evaluation uses, for the query kinds where the picture is part of the query or turned
 * (wallpapers of Lomiri and UKUI: landscapes, animals, objects, a few illustrations).
 */
const REGION_PHOTO_SOURCES: PhotoSource[] = [
  { pkg: 'lomiri-wallpapers-16.04', dir: 'usr/share/backgrounds' },
  { pkg: 'lomiri-wallpapers-20.04', dir: 'usr/share/backgrounds' },
  { pkg: 'ukui-wallpapers', dir: 'usr/share/backgrounds', exclude: /^(city|desert|rollpaper|fluent-color|focal-ubuntukylin)\./ },
];

/** Photos that fill the collages around a query's picture (Plasma's wallpapers; never in a gallery). */
const COLLAGE_HOST_SOURCES: PhotoSource[] = [
  {
    pkg: 'plasma-workspace-wallpapers',
    dir: 'usr/share/wallpapers',
    include: /^(Autumn|BytheWater|ColdRipple|ColorfulCups|FallenLeaf|Path|Shell|OneStandsOut|summer_1am|Grey|Kite|SafeLanding|EveningGlow|DarkestHour)\/contents\/images\/[^/]+\.(jpg|png)$/,
  },
];

/** About 25 photos for the region and turn query kinds of the search-robustness evaluation. */
export function loadRegionPhotos(): PhotoCollection {
  return collect(REGION_PHOTO_SOURCES, false, 20_000);
}

/** The collage fillers: one picture per wallpaper (its other sizes are symbolic links to it). */
export function loadCollageHosts(): PhotoCollection {
  return collectByPath(COLLAGE_HOST_SOURCES);
}

/** Tux Paint's stamps: photographed objects and animals cut out on a transparent background (tagging only). */
export const TAGGING_STAMPS_DIR = 'usr/share/tuxpaint/stamps';

/** The stamps named (paths under TAGGING_STAMPS_DIR), from `tuxpaint-stamps-default`; ids are `<package>/<path>`. */
export function loadTaggingStamps(files: readonly string[]): PhotoCollection {
  const pkg = debianPackage('tuxpaint-stamps-default');
  if (isMissing(pkg)) return { photos: [], missing: [pkg] };
  const photos = files.flatMap((file) => {
    const full = path.join(pkg.root, TAGGING_STAMPS_DIR, file);
    return existsSync(full) ? [{ id: `${pkg.pkg}/${file}`, pkg: pkg.pkg, path: full }] : [];
  });
  return { photos, missing: [] };
}

function collectByPath(sources: PhotoSource[]): PhotoCollection {
  const photos: PhotoFile[] = [];
  const missing: MissingPackage[] = [];
  for (const source of sources) {
    const pkg = debianPackage(source.pkg);
    if (isMissing(pkg)) {
      missing.push(pkg);
      continue;
    }
    const base = path.join(pkg.root, source.dir);
    const wallpapers = new Set<string>();
    for (const file of walk(base, true).sort()) {
      const rel = path.relative(base, file);
      const wallpaper = rel.split(path.sep)[0]!;
      if (!source.include?.test(rel) || wallpapers.has(wallpaper)) continue;
      wallpapers.add(wallpaper);
      photos.push({ id: `${source.pkg}/${rel}`, pkg: source.pkg, path: file });
    }
  }
  return { photos, missing };
}

// ---------------------------------------------------------------------------------------------------------
// Fashion-MNIST

export const FASHION_MNIST_CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'] as const;

export interface FashionMnist {
  /** `count` 28×28 greyscale images, row-major, one after another. */
  pixels: Uint8Array;
  labels: Uint8Array;
  count: number;
}

function readIdx(file: string, magic: number): Buffer {
  const raw = readFileSync(file);
  const data = file.endsWith('.gz') ? gunzipSync(raw) : raw;
  if (data.readUInt32BE(0) !== magic) throw new Error(`${file} is not an idx file (magic ${data.readUInt32BE(0)})`);
  return data;
}

/** Fashion-MNIST from `dataset-fashion-mnist` (10 classes, see FASHION_MNIST_CLASSES), or why it is missing. */
export function loadFashionMnist(split: 'train' | 'test'): FashionMnist | MissingPackage {
  const pkg = debianPackage('dataset-fashion-mnist');
  if (isMissing(pkg)) return pkg;
  const dir = path.join(pkg.root, 'usr/share/datasets/fashion-mnist');
  const prefix = split === 'train' ? 'train' : 't10k';
  const images = readIdx(path.join(dir, `${prefix}-images-idx3-ubyte.gz`), 2051);
  const labels = readIdx(path.join(dir, `${prefix}-labels-idx1-ubyte.gz`), 2049);
  const count = images.readUInt32BE(4);
  if (images.readUInt32BE(8) !== 28 || images.readUInt32BE(12) !== 28 || labels.readUInt32BE(4) !== count) {
    throw new Error(`unexpected Fashion-MNIST ${split} layout`);
  }
  return { pixels: new Uint8Array(images.subarray(16, 16 + count * 784)), labels: new Uint8Array(labels.subarray(8, 8 + count)), count };
}

/**
 * A class-balanced subsample: `perClass` images of each class, taken in file order after skipping `skipPerClass`
 * (so a gallery and a query set drawn with different skips never overlap). Returns image indexes.
 */
export function balancedSample(labels: Uint8Array, perClass: number, skipPerClass = 0): number[] {
  const seen = new Array<number>(10).fill(0);
  const out: number[] = [];
  for (let i = 0; i < labels.length; i++) {
    const c = labels[i]!;
    const n = seen[c]!++;
    if (n >= skipPerClass && n < skipPerClass + perClass) out.push(i);
  }
  return out;
}

/** One 28×28 Fashion-MNIST image as packed RGB (grey replicated), for code that takes colour pixels. */
export function fashionMnistRgb(set: FashionMnist, index: number): { data: Uint8Array; width: number; height: number } {
  const data = new Uint8Array(784 * 3);
  for (let p = 0; p < 784; p++) {
    const v = set.pixels[index * 784 + p]!;
    data[p * 3] = v;
    data[p * 3 + 1] = v;
    data[p * 3 + 2] = v;
  }
  return { data, width: 28, height: 28 };
}
