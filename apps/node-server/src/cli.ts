#!/usr/bin/env node
// The `hub` binary: the command table (cli-commands.ts) and the help and usage layer (cli-framework.ts). A
// command's code is imported only when it runs, so `hub get` starts without loading the server's modules.
import { COMMANDS, OVERVIEW } from './cli-commands.js';
import { processIo, runCli } from './cli-framework.js';

// The binary is bundled and minified (tsup.config.ts): a stack trace asked for names the source files.
if (process.env.HUB_DEBUG) process.setSourceMapsEnabled(true);

const code = await runCli(COMMANDS, process.argv.slice(2), processIo, OVERVIEW);
if (code !== undefined) process.exit(code);
