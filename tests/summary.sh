#!/bin/sh
# tests/summary.sh - a batch's summary.md (grader/batch/summary.jq) on a made-up class: random
# students (count, scores, GFLOP/s, ratios to CLBlast from a seed printed for a rerun), some
# timed against CLBlast and some not. Checks the fastest kernel of each exercise, that the
# ratios stay out of that table, and the ten fastest against CLBlast in order with their own
# GFLOP/s.   sh tests/summary.sh [SEED]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
seed=${1:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}
echo "summary: seed $seed (sh tests/summary.sh $seed repeats it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one results.json per line: id s<k>, 04 for all, the capstone's pair for about two in three
awk -v seed="$seed" 'BEGIN {
    srand(seed); n = 3 + int(rand() * 20)
    for (k = 0; k < n; k++) {
        g4 = int(rand() * 100000) / 100; g = int(rand() * 1000000) / 100; r = int(rand() * 40000) / 10000
        lb = sprintf("{\"name\": \"04_local_B GFLOP/s\", \"value\": %s, \"order\": \"desc\"}", g4)
        if (rand() < 0.66)
            lb = lb sprintf(", {\"name\": \"13_fastest_sgemm GFLOP/s\", \"value\": %s, \"order\": \"desc\"}, {\"name\": \"13_fastest_sgemm x CLBlast\", \"value\": %s, \"order\": \"desc\"}", g, r)
        printf "{\"score\": %d, \"extra_data\": {\"max_score\": 27}, \"tests\": [], \"leaderboard\": [%s], \"student\": \"s%d\"}\n", int(rand() * 28), lb, k
    }
}' >"$tmp/class.json"
n=$(wc -l <"$tmp/class.json")
jq -rs --arg total "$n" -f "$root/grader/batch/summary.jq" "$tmp/class.json" >"$tmp/summary.md" ||
    { echo "summary.jq failed"; exit 1; }
fails=0
fail() { echo "FAIL summary: $*"; fails=$((fails + 1)); }
grep -q "^$n of $n students graded" "$tmp/summary.md" || fail "not $n students graded"
# the fastest kernel of each exercise, and no ratio among them
for ex in 04_local_B 13_fastest_sgemm; do
    want=$(jq -rs --arg e "$ex GFLOP/s" '[.[] | .student as $s | .leaderboard[] | select(.name == $e) | {s: $s, v: .value}]
        | if length == 0 then "" else max_by(.v) | "| \(.s) | \(.v) |" end' "$tmp/class.json")
    [ -z "$want" ] || grep -qF "| $ex $want" "$tmp/summary.md" || fail "fastest of $ex is not '$want'"
done
sed -n '/^## Fastest kernels$/,/^## Fastest kernels of/p' "$tmp/summary.md" | grep -q "x CLBlast |" &&
    fail "a ratio to CLBlast in the table of GFLOP/s"
# the ten fastest against CLBlast: ranks 1.., ratios falling, each student's own GFLOP/s
jq -rs '[.[] | .student as $s | .leaderboard as $l | select(any($l[]; .name == "13_fastest_sgemm x CLBlast"))
    | {s: $s, r: ([$l[] | select(.name == "13_fastest_sgemm x CLBlast") | .value][0]),
       g: ([$l[] | select(.name == "13_fastest_sgemm GFLOP/s") | .value][0])}]
    | sort_by(-.r) | .[:10] | to_entries[] | "| \(.key + 1) | \(.value.s) | \(.value.g) | \(.value.r) |"' \
    "$tmp/class.json" >"$tmp/want.txt"
sed -n '/^## Fastest kernels of 13_fastest_sgemm against CLBlast/,$p' "$tmp/summary.md" |
    grep '^| [0-9]' >"$tmp/got.txt"
if [ -s "$tmp/want.txt" ]; then
    cmp -s "$tmp/want.txt" "$tmp/got.txt" ||
        { fail "the table against CLBlast:"; diff "$tmp/want.txt" "$tmp/got.txt"; }
else
    grep -q "against CLBlast" "$tmp/summary.md" && fail "a table against CLBlast with nobody in it"
fi
[ $fails -eq 0 ] && echo "ok   summary: $n students, $(wc -l <"$tmp/want.txt") against CLBlast"
[ $fails -eq 0 ]
