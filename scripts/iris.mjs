#!/usr/bin/env node
/* global process */
// The installable `iris` command (package.json "bin"): runs the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
process.env.IRIS_CLI_BIN = '1';
await import('./iris-cli.ts');
