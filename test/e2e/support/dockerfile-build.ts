/**
 * Builds a Dockerfile without a container engine by following it line by line on this machine: each stage is
 * a directory standing for the image's `/`; COPY copies exactly what it names (from the build context less
 * .dockerignore, or from an earlier stage with --from); RUN runs in the stage's WORKDIR through `/bin/sh -c`;
 * ENV, ARG, USER, VOLUME, EXPOSE and CMD are recorded for the run. What cannot be done literally outside a
 * container, and what the build does instead:
 *
 * - the base images (FROM) are this machine's system and Node, on PATH, not the image's;
 * - a RUN line that sets up the image's accounts (`useradd …`, `install -d -o <user> …`) would change this
 *   machine's /etc/passwd: it is emulated inside the stage (the home and the listed directories are created,
 *   owned by the account's stand-in: `nobody` when running as root, else the current user);
 * - absolute paths are inside the stage's directory (hostPath()).
 */
import ignore from '@balena/dockerignore';
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { parseDockerfile, substitute, type Stage } from './dockerfile-parser.js';

/** The uid and gid an image account stands for when the check runs as root (Debian's `nobody`/`nogroup`). */
export const STAND_IN_ID = 65534;

export interface BuildOptions {
  dockerfile: string;
  /** The build context (`docker build <context>`). */
  context: string;
  /** An empty directory for the stages. */
  workDir: string;
  buildArgs?: Record<string, string>;
  /** The environment of every RUN line besides the stage's ARG and ENV values (the base image's, in effect). */
  runEnv: Record<string, string>;
  /** Output of RUN lines and progress. */
  log: (text: string) => void;
}

export interface BuiltImage {
  /** The final stage's directory (the image's `/`). */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string;
  cmd: string[];
  volumes: string[];
  exposed: string[];
  /** Accounts the image's RUN lines create: name → home directory in the image. */
  accounts: Map<string, string>;
}

interface StageState extends BuiltImage {
  name: string | undefined;
  args: Record<string, string>;
}

/** A path of the image (absolute, or relative to `from`) in the stage's directory. */
export function hostPath(image: { root: string }, imagePath: string, from = '/'): string {
  return path.join(image.root, path.posix.resolve(from, imagePath));
}

const asRoot = () => process.getuid?.() === 0;

function copyTree(source: string, target: string, skip: (relative: string) => boolean, relative: string): void {
  const stat = lstatSync(source);
  if (stat.isSymbolicLink()) {
    symlinkSync(readlinkSync(source), target);
  } else if (stat.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const entry of readdirSync(source)) {
      const child = relative ? `${relative}/${entry}` : entry;
      if (!skip(child)) copyTree(path.join(source, entry), path.join(target, entry), skip, child);
    }
  } else {
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(source, target);
    chmodSync(target, stat.mode & 0o7777);
  }
}

function run(argv: string[], cwd: string, env: Record<string, string>, log: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => {
      log(chunk.toString());
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`RUN ${argv.join(' ')} exited with ${code ?? signal}:\n${tail}`))));
  });
}

/** The account-setup RUN line (see the header): `useradd … <name>` and `install -d -o <name> -g <group> <dir>…`. */
function setUpAccounts(stage: StageState, shellLine: string): void {
  for (const part of shellLine.split('&&').map((p) => p.trim().split(/\s+/))) {
    const [program, ...args] = part;
    if (program === 'useradd') {
      const home = args[args.indexOf('--home-dir') + 1];
      if (!args.includes('--home-dir') || !home || !args.includes('--create-home')) throw new Error(`useradd without --home-dir and --create-home: ${shellLine}`);
      stage.accounts.set(args[args.length - 1]!, home);
      makeOwnedDir(stage, home);
    } else if (program === 'install' && args[0] === '-d' && args[1] === '-o' && args[3] === '-g') {
      if (!stage.accounts.has(args[2]!)) throw new Error(`install -d -o ${args[2]}: no such account in the image`);
      for (const dir of args.slice(5)) makeOwnedDir(stage, dir);
    } else {
      throw new Error(`a RUN line that sets up accounts may only run useradd and install -d -o: ${shellLine}`);
    }
  }
}

function makeOwnedDir(stage: StageState, imagePath: string): void {
  const dir = hostPath(stage, imagePath);
  mkdirSync(dir, { recursive: true });
  if (asRoot()) chownSync(dir, STAND_IN_ID, STAND_IN_ID);
}

async function buildStage(stage: Stage, index: number, done: StageState[], options: BuildOptions, globalArgs: Record<string, string>): Promise<StageState> {
  const root = path.join(options.workDir, `stage-${index}`);
  mkdirSync(root, { recursive: true });
  chmodSync(root, 0o755);
  const state: StageState = { name: stage.name, root, workdir: '/', env: {}, args: {}, user: 'root', cmd: [], volumes: [], exposed: [], accounts: new Map() };
  const vars = () => ({ ...globalArgs, ...state.args, ...state.env });
  const patterns = existsSync(path.join(options.context, '.dockerignore')) ? readFileSync(path.join(options.context, '.dockerignore'), 'utf8') : '';
  // An excluded directory is skipped whole: exceptions (`!pattern`) inside it would be missed.
  if (/^\s*!/m.test(patterns)) throw new Error('.dockerignore exceptions (!pattern) are not followed by the check');
  const context = ignore().add(patterns);
  for (const instruction of stage.instructions) {
    options.log(`[stage ${index}] ${instruction.line}\n`);
    switch (instruction.kind) {
      case 'ARG':
        state.args[instruction.name] = options.buildArgs?.[instruction.name] ?? substitute(instruction.defaultValue ?? '', vars());
        break;
      case 'ENV':
        for (const [name, value] of instruction.pairs) state.env[name] = substitute(value, vars());
        break;
      case 'WORKDIR':
        state.workdir = path.posix.resolve(state.workdir, substitute(instruction.path, vars()));
        mkdirSync(hostPath(state, state.workdir), { recursive: true });
        break;
      case 'USER':
        state.user = substitute(instruction.user, vars());
        break;
      case 'VOLUME':
        state.volumes.push(...instruction.paths.map((p) => substitute(p, vars())));
        break;
      case 'EXPOSE':
        state.exposed.push(...instruction.ports.map((p) => substitute(p, vars())));
        break;
      case 'CMD':
        state.cmd = instruction.command;
        break;
      case 'COPY': {
        const destText = substitute(instruction.dest, vars());
        const dest = hostPath(state, destText, state.workdir);
        const intoDir = destText.endsWith('/') || instruction.sources.length > 1;
        const from = instruction.from === undefined ? undefined : done.find((s) => s.name === instruction.from) ?? done[Number(instruction.from)];
        if (instruction.from !== undefined && !from) throw new Error(`COPY --from=${instruction.from}: no such earlier stage`);
        for (const sourceText of instruction.sources.map((s) => substitute(s, vars()))) {
          // Sources from the context are relative to it (never above it); from a stage, paths of that image.
          const relative = path.posix.normalize(sourceText).replace(/^(\.\.\/|\/)+/, '').replace(/\/$/, '');
          const source = from ? hostPath(from, sourceText) : path.join(options.context, relative === '.' ? '' : relative);
          if (!from && relative !== '.' && context.ignores(relative)) throw new Error(`COPY ${sourceText}: excluded by .dockerignore`);
          if (!existsSync(source)) throw new Error(`COPY ${sourceText}: not in the ${from ? `stage ${instruction.from}` : 'build context'}`);
          const isDir = lstatSync(source).isDirectory();
          const target = isDir || !intoDir ? dest : path.join(dest, path.basename(source));
          mkdirSync(isDir ? target : path.dirname(target), { recursive: true });
          if (from) {
            // A stage's files as they are (links, modes): what `cp -a` keeps.
            await run(['cp', '-a', isDir ? `${source}/.` : source, target], options.workDir, { PATH: options.runEnv.PATH ?? '' }, options.log);
          } else if (isDir) {
            const under = (entry: string) => (relative === '.' ? entry : `${relative}/${entry}`);
            for (const entry of readdirSync(source)) if (!context.ignores(under(entry))) copyTree(path.join(source, entry), path.join(target, entry), (child) => context.ignores(child), under(entry));
          } else {
            copyTree(source, target, () => false, relative);
          }
        }
        break;
      }
      case 'RUN': {
        const [shell, flag, line] = instruction.command;
        if (shell === '/bin/sh' && flag === '-c' && /^useradd\s/.test(line ?? '')) {
          setUpAccounts(state, line!);
          break;
        }
        if (state.user !== 'root') throw new Error(`RUN as ${state.user} is not followed by the check: ${instruction.line}`);
        const env = { ...options.runEnv, ...globalArgs, ...state.args, ...state.env };
        await run(instruction.command, hostPath(state, state.workdir), env, options.log);
        break;
      }
    }
  }
  return state;
}

/** Builds every stage in order; the image is the last one. */
export async function buildDockerfile(options: BuildOptions): Promise<BuiltImage> {
  const parsed = parseDockerfile(readFileSync(options.dockerfile, 'utf8'));
  const globalArgs: Record<string, string> = {};
  for (const arg of parsed.globalArgs) globalArgs[arg.name] = options.buildArgs?.[arg.name] ?? arg.defaultValue ?? '';
  const done: StageState[] = [];
  for (const [index, stage] of parsed.stages.entries()) done.push(await buildStage(stage, index, done, options, globalArgs));
  const image = done[done.length - 1]!;
  return { root: image.root, workdir: image.workdir, env: image.env, user: image.user, cmd: image.cmd, volumes: image.volumes, exposed: image.exposed, accounts: image.accounts };
}
