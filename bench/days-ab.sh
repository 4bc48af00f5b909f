#!/bin/bash
# The day after the first, this checkout against another (BASE, a built checkout: `git worktree add DIR COMMIT`, then
# `npx --yes pnpm@10 install --frozen-lockfile && npx --yes pnpm@10 build` in it), in alternating rounds: a fed day of
# changes (1 % of the models) and the same day with ten models added. Each checkout builds its own fed first day once
# (bench/scale.mjs --phase build --days 1 --feed, in OUT), then each day runs on a `cp -al` copy of it, under GNU time.
# Usage: BASE=DIR [N=100000] [ROUNDS=2] [OUT=/tmp/days-ab] bash bench/days-ab.sh
set -euo pipefail
: "${BASE:?BASE=a built checkout to compare with}"
N=${N:-100000}
ROUNDS=${ROUNDS:-2}
OUT=${OUT:-/tmp/days-ab}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
root_of() { if [ "$1" = new ]; then echo "$HERE"; else echo "$BASE"; fi; }
for v in new base; do
  first="$OUT/first-$v-$N"
  if [ ! -d "$first" ]; then
    (cd "$(root_of $v)" && node bench/scale.mjs --phase build --n "$N" --dir "$first" --days 1 --feed > "$first.json")
  fi
done
for round in $(seq 1 "$ROUNDS"); do
  for v in new base; do
    for kind in insert change; do
      d="$OUT/run-$v-$kind-$round"
      rm -rf "$d"
      cp -al "$OUT/first-$v-$N" "$d"
      extra=(--insert 10)
      [ "$kind" = change ] && extra=()
      (cd "$(root_of $v)" && /usr/bin/time -f "%e s wall, %U s user, %S s system, %M kB peak" \
        node bench/scale.mjs --phase build --n "$N" --dir "$d" --days 2 --skip 1 --feed "${extra[@]}" 2> "$d.err" | tail -1 | sed "s/^/$v $kind $round /")
      tail -1 "$d.err"
      rm -rf "$d"
    done
  done
done
