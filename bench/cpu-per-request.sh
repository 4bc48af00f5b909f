#!/bin/bash
# CPU time per request of a hub under random /api/models/{id} look-ups (issue 39): the server's user and system time
# (/proc/PID/stat, clock ticks of 10 ms) over 8 s of `wrk -t1 -c50` with bench/random-models.lua, divided by the
# requests, after 2 s of warm-up. Build first; needs wrk. HUB_DIST=DIR runs the hub of another built checkout (a
# before/after comparison); SKEW=1 and BUST=1 pass on to bench/random-models.lua. The folder's made-answers file is read
# once first (COLD=1 skips that), and the share of it in the page cache when the load ends is printed (`fincore`): a
# look-up whose record is not in the page cache waits for the disk, and this machine's kernel pages out what was not
# read for a while (DAMON reclaim), so a file left alone for some minutes measures the disk, not the hub.
# Usage: bash bench/cpu-per-request.sh DATA_DIR N memory|paged CONFIG_FILE [PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=$1; N=$2; STORE=$3; CONFIG=$4; PORT=${5:-18392}
HUB_LOG_LEVEL=warn HUB_INDEX_STORE=$STORE node "${HUB_DIST:-.}/apps/node-server/dist/cli.js" serve --port "$PORT" --host 127.0.0.1 \
  --data "$DATA" --config "$CONFIG" > /dev/null 2>&1 &
PID=$!
MADE="$DATA/made-answers"
if [ -f "$MADE" ] && [ -z "${COLD:-}" ]; then cat "$MADE" > /dev/null; fi
trap 'kill $PID 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/-/live" && break; sleep 0.1; done
N=$N wrk -t1 -c50 -d2s -s bench/random-models.lua "http://127.0.0.1:$PORT" > /dev/null
read -r u0 s0 < <(awk '{print $14, $15}' "/proc/$PID/stat")
OUT=$(N=$N wrk -t1 -c50 -d8s -s bench/random-models.lua "http://127.0.0.1:$PORT")
read -r u1 s1 < <(awk '{print $14, $15}' "/proc/$PID/stat")
REQ=$(echo "$OUT" | grep -oP '\d+(?= requests in)')
RPS=$(echo "$OUT" | grep -oP 'Requests/sec:\s+\K[\d.]+')
RSS=$(ps -o rss= -p "$PID")
RESIDENT=""
if [ -f "$MADE" ] && command -v fincore > /dev/null; then
  read -r res size < <(fincore --bytes --noheadings --output RES,SIZE "$MADE")
  RESIDENT=" made_answers_resident=$(( res * 100 / size ))%"
fi
echo "store=$STORE n=$N${BUST:+ bust}${SKEW:+ skew} req/s=$RPS cpu_us_per_req=$(( ((u1 - u0) + (s1 - s0)) * 10000 / REQ )) user_us=$(( (u1 - u0) * 10000 / REQ )) sys_us=$(( (s1 - s0) * 10000 / REQ )) rss_mb=$(( RSS / 1024 ))$RESIDENT"
