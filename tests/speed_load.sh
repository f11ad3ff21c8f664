#!/bin/sh
# tests/speed_load.sh [COUNT=5] - a copy of 01's solution graded COUNT times beside two busy loops
# at nice 0 that the grader does not control (outside load on this machine's cores): every timed
# ratio to the reference must lie within [0.8, 1.25] and every performance point be kept. The
# grader may measure a starved round again and add rounds; it may not lose a point to the load.
# `make test-speed` runs it (CI too: .ci/run); about a minute and a half on 2 cores.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
count=${1:-5}
tmp=$(mktemp -d)
loops=""
cleanup() {
    [ -n "$loops" ] && kill $loops 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/sub/01_per_element" "$tmp/tuning"
cp "$root"/solutions/01_per_element/* "$tmp/sub/01_per_element/"
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    loops="$loops $!"
done
fails=0
i=1
while [ $i -le "$count" ]; do
    "$root/build/grader/grader" --root "$root" --submission "$tmp/sub" --ex 01 --no-memcheck \
        --tuning "$tmp/tuning" --json "$tmp/g$i.json" --work "$tmp/w$i" --results "$tmp/r$i" \
        >"$tmp/g$i.txt" 2>&1
    perf=$(jq -r '.tests[] | select(.name | contains("performance")) | "\(.score)/\(.max_score)"' "$tmp/g$i.json" 2>/dev/null)
    ratio=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$tmp/g$i.json" 2>/dev/null |
        sed -n 's/^ratio \([0-9.]*\),.*/\1/p')
    rounds=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$tmp/g$i.json" 2>/dev/null |
        sed -n 's/.*launch[es]* per timed command, \(.*\), on the grader.s clock.*/\1/p')
    if [ "$perf" = 1/1 ] && awk -v r="${ratio:-0}" 'BEGIN { exit !(r >= 0.8 && r <= 1.25) }'; then
        echo "ok   speed beside load: grading $i: ratio $ratio, point kept ($rounds)"
    else
        echo "FAIL speed beside load: grading $i: ratio ${ratio:-none}, performance ${perf:-missing}"
        grep -A 6 "performance" "$tmp/g$i.txt"
        fails=$((fails + 1))
    fi
    i=$((i + 1))
done
[ $fails -eq 0 ]
