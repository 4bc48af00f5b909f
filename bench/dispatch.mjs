// pnpm bench's comparisons that take flags of their own (--hubs, --fresh, --pairs, --sizes, ...): run before
// bench/run.mjs parses its flags strictly. Each runs its script and exits; nothing here when none is asked for.
if (process.argv.includes('--metrics-pairs')) {
  // metrics on against off in pairs of hubs loaded in turn, over the five hot routes
  await import('./metrics-pairs.mjs');
  process.exit(0);
}
if (process.argv.includes('--scale')) {
  // the paged store at N SYNTHETIC models against the whole store at 2,000 (bench/scale.mjs; --sizes, --rounds, --keep);
  // with --http, the hub over HTTP on those folders (bench/scale-http.mjs)
  await import(process.argv.includes('--http') ? './scale-http.mjs' : './scale.mjs');
  process.exit(0);
}
if (process.argv.includes('--edge-scale')) {
  // a fresh edge isolate at 100, 10,000 and 100,000 SYNTHETIC models (bench/edge-scale.mjs; --sizes, --rounds, --keep)
  await import('./edge-scale.mjs');
  process.exit(0);
}
if (process.argv.includes('--metrics')) {
  // the same hub with metrics off and on (prom-client, scraped once a second), side by side
  await import('./metrics.mjs');
  process.exit(0);
}
