#!/bin/bash
# Searches of words of one or two characters over HTTP on a paged day (issue 39, docs/benchmarks.md 2026-11-29
# "search words of one or two characters"): one node-server of a built checkout on DATA, one request at a time
# (`curl -w %{time_total}`): words no SYNTHETIC id holds, a word every id holds, a word about one id in 97 holds, a
# look-up sent 0.2 s after a search for an absent word (is the server held up?), and two deep pages. Prints each
# answer's time, its model count and whether it links to a next page. Read the day's pages once first
# (`node bench/warm-pages.mjs DATA`) so the page cache is not what is measured.
# Usage: bash bench/short-words-http.sh CHECKOUT DATA [PORT]
set -euo pipefail
SRC=$1; DATA=$2; PORT=${3:-18410}
HUB_LOG_LEVEL=warn HUB_INDEX_STORE=paged node "$SRC/apps/node-server/dist/cli.js" serve --port "$PORT" --host 127.0.0.1 \
  --data "$DATA" --config "$(dirname "$0")/short-words-http.json" > /dev/null 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/-/live" && break; sleep 0.1; done
U=http://127.0.0.1:$PORT
OUT=$(mktemp)
one() {
  local t n link
  t=$(curl -s -o "$OUT" -D "$OUT.h" -w "%{time_total}" "$U/api/models?$1")
  n=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).length)' "$OUT")
  link=$(grep -ci '^link:.*rel="next"' "$OUT.h" || true)
  echo "$1: ${t}s, $n models, next link: $link"
}
curl -s -o /dev/null "$U/api/models?search=model-1&limit=5"
for w in qz zq xj kx mo d.; do one "search=$w&limit=50"; done
(curl -s -o /dev/null "$U/api/models?search=qj&limit=50" &)
sleep 0.2
echo "look-up during a search for qj: $(curl -s -o /dev/null -w "%{time_total}" "$U/api/models/synthetic-org-1/model-1")s"
sleep 6
one "search=d.&limit=50&cursor=$(printf 'o:5000' | base64)"
one "search=mo&limit=50&cursor=$(printf 'o:500000' | base64 | tr -d '=')"
rm -f "$OUT" "$OUT.h"
