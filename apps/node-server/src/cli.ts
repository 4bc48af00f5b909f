#!/usr/bin/env node
// The `hub` binary. The client commands load only the client (`hub get` starts in a fraction of the time the
// server's modules take to load); every other command loads cli-main.
const command = process.argv[2];
if (command === 'get' || command === 'verify-cache') {
  const { runClientCommand } = await import('./cli-get.js');
  process.exit(await runClientCommand(command, process.argv.slice(3)));
} else if (command === 'mirror' || command === 'bundle') {
  const { runMirrorCommand } = await import('./cli-mirror.js');
  process.exit(await runMirrorCommand(command, process.argv.slice(3)));
} else {
  await import('./cli-main.js');
}

export {};
