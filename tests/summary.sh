#!/bin/sh
# tests/summary.sh - a batch's summary.md (grader/batch/summary.jq) on a made-up class: random
# students (count, scores, GFLOP/s, the reference's, ratios to the anchor from a seed printed for
# a rerun), some timed against the vendor and some not. Checks the fastest kernel of each exercise
# by its ratio to the reference (two students where raw GFLOP/s say otherwise), that the vendor's
# ratios stay out of that table, and the ten fastest against the vendor in order with their own
# GFLOP/s and ratio to the reference.   sh tests/summary.sh [SEED]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
seed=${1:-$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')}
echo "summary: seed $seed (sh tests/summary.sh $seed repeats it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one results.json per line: id s<k>, 04 for all with the reference's GFLOP/s measured beside it,
# the capstone's pair (GFLOP/s, x the class's anchor: CLBlast or OpenBLAS) for about two in three;
# two more where raw GFLOP/s and the ratio to the reference disagree: "raw" has the most GFLOP/s
# of 04 at 0.2x its reference, "ratio" the fewest at 5x (above every random student's 2x)
vendor=CLBlast
[ $((seed % 2)) -eq 0 ] && vendor=OpenBLAS
awk -v seed="$seed" -v vendor="$vendor" 'BEGIN {
    srand(seed); n = 3 + int(rand() * 20)
    for (k = 0; k < n + 2; k++) {
        g4 = int(rand() * 100000) / 100 + 1; g = int(rand() * 1000000) / 100; r = int(rand() * 40000) / 10000
        ref4 = int(g4 * (0.5 + 1.5 * rand()) * 100) / 100 + 0.01; ref13 = int(rand() * 1000000) / 100 + 1
        id = "s" k
        if (k == n) { id = "raw"; g4 = 2000; ref4 = 10000 }
        if (k == n + 1) { id = "ratio"; g4 = 0.5; ref4 = 0.1 }
        lb = sprintf("{\"name\": \"04_local_B GFLOP/s\", \"value\": %s, \"order\": \"desc\"}", g4)
        refs = sprintf("\"04_local_B\": %s", ref4)
        if (rand() < 0.66) {
            lb = lb sprintf(", {\"name\": \"13_fastest_sgemm GFLOP/s\", \"value\": %s, \"order\": \"desc\"}, {\"name\": \"13_fastest_sgemm x %s\", \"value\": %s, \"order\": \"desc\"}", g, vendor, r)
            refs = refs sprintf(", \"13_fastest_sgemm\": %s", ref13)
        }
        printf "{\"score\": %d, \"extra_data\": {\"max_score\": 27, \"reference_gflops\": {%s}}, \"tests\": [], \"leaderboard\": [%s], \"student\": \"%s\"}\n", int(rand() * 28), refs, lb, id
    }
}' >"$tmp/class.json"
n=$(wc -l <"$tmp/class.json")
jq -rs --arg total "$n" -f "$root/grader/batch/summary.jq" "$tmp/class.json" >"$tmp/summary.md" ||
    { echo "summary.jq failed"; exit 1; }
fails=0
fail() { echo "FAIL summary: $*"; fails=$((fails + 1)); }
grep -q "^$n of $n students graded" "$tmp/summary.md" || fail "not $n students graded"
# the fastest kernel of each exercise by its ratio to the reference, both figures shown, and no
# vendor's ratio among them
for ex in 04_local_B 13_fastest_sgemm; do
    want=$(jq -rs --arg e "$ex" '[.[] | .student as $s | .extra_data.reference_gflops[$e] as $r | .leaderboard[]
        | select(.name == "\($e) GFLOP/s") | {s: $s, v: .value, x: (.value / $r * 100 | round / 100)}]
        | if length == 0 then "" else max_by(.x) | "| \(.s) | \(.x) | \(.v) |" end' "$tmp/class.json")
    [ -z "$want" ] || grep -qF "| $ex $want" "$tmp/summary.md" || fail "fastest of $ex is not '$want'"
done
grep -qF "| 04_local_B | ratio | 5 | 0.5 |" "$tmp/summary.md" ||
    fail "04's fastest is not the best ratio to its reference (ratio, 5x at 0.5 GFLOP/s)"
sed -n '/^## Fastest kernels (/,/^## Fastest kernels of/p' "$tmp/summary.md" | grep -q "x $vendor |" &&
    fail "a ratio to $vendor in the table of the fastest kernels"
# the ten fastest against the anchor: ranks 1.., ratios falling, each student's own GFLOP/s
jq -rs --arg lb "13_fastest_sgemm x $vendor" '[.[] | .student as $s | .leaderboard as $l | select(any($l[]; .name == $lb))
    | ([$l[] | select(.name == "13_fastest_sgemm GFLOP/s") | .value][0]) as $g
    | {s: $s, r: ([$l[] | select(.name == $lb) | .value][0]), g: $g,
       x: ($g / .extra_data.reference_gflops["13_fastest_sgemm"] * 100 | round / 100)}]
    | sort_by(-.r) | .[:10] | to_entries[] | "| \(.key + 1) | \(.value.s) | \(.value.r) | \(.value.x) | \(.value.g) |"' \
    "$tmp/class.json" >"$tmp/want.txt"
sed -n "/^## Fastest kernels of 13_fastest_sgemm against $vendor/,\$p" "$tmp/summary.md" |
    grep '^| [0-9]' >"$tmp/got.txt"
if [ -s "$tmp/want.txt" ]; then
    cmp -s "$tmp/want.txt" "$tmp/got.txt" ||
        { fail "the table against $vendor:"; diff "$tmp/want.txt" "$tmp/got.txt"; }
else
    grep -q "against $vendor" "$tmp/summary.md" && fail "a table against $vendor with nobody in it"
fi
[ $fails -eq 0 ] && echo "ok   summary: $n students, $(wc -l <"$tmp/want.txt") against $vendor"
[ $fails -eq 0 ]
