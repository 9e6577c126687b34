#!/usr/bin/env node
/** The `iris` command (the package's bin). */
import { runCli } from './run.js';

process.exitCode = await runCli(process.argv.slice(2));
