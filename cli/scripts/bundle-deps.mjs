#!/usr/bin/env node
/* global process, console */
// Before `npm pack`: copies the CLI's production dependencies (and theirs), as package-lock.json installed
// them in the repository, into cli/node_modules, so the tarball carries them (bundleDependencies) and
// `npm install -g <tarball>` needs no registry. `--clean` removes the copies again (after packing).
import { cpSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const cli = path.resolve(import.meta.dirname, '..');
const root = path.resolve(cli, '..');
const target = path.join(cli, 'node_modules');

if (process.argv.includes('--clean')) {
  rmSync(target, { recursive: true, force: true });
  process.exit(0);
}

const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')).packages;
const bundled = JSON.parse(readFileSync(path.join(cli, 'package.json'), 'utf8')).bundleDependencies;

/** Where Node finds `name` from the package at `from` (a lock path): its own node_modules, then each parent's. */
function resolve(name, from) {
  for (let at = from; ; at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '') {
    const candidate = at ? `${at}/node_modules/${name}` : `node_modules/${name}`;
    if (lock[candidate]) return candidate;
    if (!at) throw new Error(`${name} (needed by ${from || 'the CLI'}) is not in package-lock.json`);
  }
}

/** The top-level folders to copy: a nested package travels inside its parent's folder. */
const tops = new Set();
const seen = new Set();
const visit = (location) => {
  if (seen.has(location)) return;
  seen.add(location);
  tops.add(location.split('/node_modules/')[0]);
  const entry = lock[location];
  for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
    try {
      visit(resolve(dep, location));
    } catch (err) {
      if (!entry.optionalDependencies?.[dep]) throw err;
    }
  }
};
for (const name of bundled) visit(resolve(name, ''));

rmSync(target, { recursive: true, force: true });
for (const top of [...tops].sort()) cpSync(path.join(root, top), path.join(cli, top), { recursive: true, dereference: true });
console.log(`bundled ${tops.size} packages: ${[...tops].map((t) => t.slice('node_modules/'.length)).join(', ')}`);
