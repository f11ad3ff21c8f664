#!/bin/sh
# tests/tune.sh - make tune end to end on POCL (about 90 s on 2 cores): `make tune BUDGET=30` in
# solutions/07_more_work_per_item (a folder's make tune tunes that folder's kernel: here the
# reference) into a folder of its own (TUNING=), then
#   - make tune in an exercise folder and at the top names the student's kernel (exercises/), the
#     reference only where SUBMISSION says solutions (make -n);
#   - its progress line on stderr; its table: the defaults timed (median ms and GFLOP/s), every
#     other row timed or skipped with a reason, the best (the fastest, or the defaults where they
#     won when the two were timed again), and the file kept;
#   - the file: the device's .conf holds one 07 reference line with the best's values and a
#     comment of GFLOP/s at N; a second tune of nothing new (a bad --budget) leaves it alone;
#   - the grader's timed report on solutions/ at that file (a submission line added with the same
#     values, a foreign line and a malformed one too): each side timed with the file's values,
#     said with their lines, the malformed line named with FILE:LINE, and both timed (the point
#     itself is left to the machine's noise).
#   sh tests/tune.sh [ROOT]   (DEVICE: default pocl)
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
device=${DEVICE:-pocl}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "tune.sh: $*" >&2
    for f in "$tmp"/tune.txt "$tmp"/tune.err "$tmp"/grade.txt; do
        [ -f "$f" ] && { echo "--- $f" >&2; tail -n 40 "$f" >&2; }
    done
    exit 1
}
tuning=$tmp/tuning
start=$(date +%s)
make -s -C "$root" grader || fail "the grader does not build"
# which kernel each make tune takes, before any runs
for dir in "$root" "$root/exercises/13_fastest_sgemm"; do
    make -n -C "$dir" tune EX=13 2>/dev/null | tr '\n\\' '  ' |
        grep -Eq -- "--tune .*--ex \"?13[_a-z]*\"? .*--submission $root/exercises/?( |$)" ||
        fail "make tune in $dir does not tune the student's kernel (exercises/13): $(make -n -C "$dir" tune EX=13 2>&1 | tail -n 3)"
done
make -n -C "$root" tune EX=13 SUBMISSION="$root/solutions" 2>/dev/null | tr '\n\\' '  ' |
    grep -q -- "--submission $root/solutions" || fail "make tune SUBMISSION=solutions is not passed on"
DEVICE=$device make -s -C "$root/solutions/07_more_work_per_item" tune BUDGET=30 TUNING="$tuning" \
    >"$tmp/tune.txt" 2>"$tmp/tune.err" || fail "make tune failed"
took=$(($(date +%s) - start))

# the table
grep -q '^values  *median ms  *GFLOP/s$' "$tmp/tune.txt" || fail "no table header"
grep -Eq '^TS=32 WPT=8 \(defaults\) +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{2}$' "$tmp/tune.txt" ||
    fail "the defaults are not timed in the table"
rows=$(grep -Ec '^TS=[0-9]+ WPT=[0-9]+( \(defaults\))? ' "$tmp/tune.txt")
timed=$(grep -Ec '^TS=[0-9]+ WPT=[0-9]+( \(defaults\))? +[0-9.]+ +[0-9.]+$' "$tmp/tune.txt")
skipped=$(grep -Ec '^TS=[0-9]+ WPT=[0-9]+( \(defaults\))? +skipped: .+' "$tmp/tune.txt")
[ "$rows" -ge 2 ] || fail "only $rows candidates tried in 30 s"
[ $((timed + skipped)) -eq "$rows" ] || fail "$rows rows, $timed timed, $skipped skipped"
best=$(sed -n 's/^best: \(TS=[0-9]* WPT=[0-9]*\), [0-9.]* GFLOP\/s at N = [0-9]*.*/\1/p' "$tmp/tune.txt")
[ -n "$best" ] || fail "no best line"
grep -Eq "^$best( \(defaults\))? +[0-9.]+ +[0-9.]+$" "$tmp/tune.txt" ||
    fail "the best, $best, is not a timed row"
# the best is the fastest timed row (the table goes fastest first), unless the defaults won when
# the two were timed again
first=$(grep -E '^TS=[0-9]+ WPT=[0-9]+' "$tmp/tune.txt" | head -n 1 | sed 's/ (defaults)//' |
    awk '{ print $1, $2 }')
if grep -q "^timed again in [0-9]* alternating pairs: .*: the defaults are kept$" "$tmp/tune.txt"; then
    [ "$best" = "TS=32 WPT=8" ] || fail "the defaults were kept, yet the best is $best"
else
    [ "$first" = "$best" ] || fail "the best is $best, the table's first $first"
fi
# (each side's figure timed again is a time: on the H200 both read 0.000 ms, inf GFLOP/s)
grep -Eq "^timed again in .*(the defaults|the best) 0\.000 ms|[ (]inf GFLOP" "$tmp/tune.txt" &&
    fail "a figure timed again is 0 ms: $(grep '^timed again' "$tmp/tune.txt")"
[ "$took" -le 75 ] || fail "make tune with BUDGET=30 took $took s"
grep -Eq "^tune 07_more_work_per_item: [0-9]+ done, about [0-9]+ left, .+ of the budget left: TS=" \
    "$tmp/tune.err" || fail "no progress line on stderr"

# the file
set -- "$tuning"/*.conf
[ $# -eq 1 ] && [ -f "$1" ] || fail "not one tuning file in $tuning"
file=$1
grep -q "^07_more_work_per_item reference $best  # [0-9.]* GFLOP/s at N = [0-9]*" "$file" ||
    fail "$file has no 07 reference line of $best: $(cat "$file")"
[ "$(grep -c '^07_more_work_per_item' "$file")" -eq 1 ] || fail "more than one 07 line"
grep -q "kept in $file" "$tmp/tune.txt" || fail "the table does not say where it kept the best"
cp "$file" "$tmp/before.conf"
DEVICE=$device make -s -C "$root" tune EX=07 BUDGET=-1 TUNING="$tuning" >/dev/null 2>&1 &&
    fail "a negative budget was taken"
cmp -s "$file" "$tmp/before.conf" || fail "a refused tune changed $file"

# the grader reads it: both sides at the file's values, the malformed line said and skipped
{
    echo "08_wide_loads reference TS=16 WPT=4 WIDTH=2  # another exercise's line"
    echo "07_more_work_per_item submission $best  # the student's own"
    echo "07_more_work_per_item reference TS=banana"
} >>"$file"
bad=$(grep -n 'TS=banana' "$file" | cut -d: -f1)
ref_line=$(grep -n '^07_more_work_per_item reference TS=[0-9]' "$file" | cut -d: -f1)
mine_line=$(grep -n '^07_more_work_per_item submission' "$file" | cut -d: -f1)
DEVICE=$device "$root/build/grader/grader" --root "$root" --submission "$root/solutions" --ex 07 \
    --no-memcheck --tuning "$tuning" --results "$tmp/results" --work "$tmp/work" \
    >"$tmp/grade.txt" 2>&1
status=$?
[ $status -le 1 ] || fail "the grader exited $status"
grep -q "timed with the values of $file" "$tmp/grade.txt" || fail "the report does not name $file"
grep -Eq "^ *reference +$best +\(line $ref_line\)" "$tmp/grade.txt" ||
    fail "the reference's values ($best, line $ref_line) are not in the report"
grep -Eq "^ *yours +$best +\(line $mine_line\)" "$tmp/grade.txt" ||
    fail "the submission's values ($best, line $mine_line) are not in the report"
grep -q "$file:$bad: .*TS.*; the line is ignored" "$tmp/grade.txt" ||
    fail "the malformed line $bad is not named"
grep -A8 "timed with the values of" "$tmp/grade.txt" | grep -Eq "^ *ratio [0-9.]+, the median" ||
    fail "no timing in the report"
echo "tune.sh: make tune EX=07 BUDGET=30 tried $rows candidates ($timed timed) in $took s, best" \
    "$best; the grader timed both sides at it; $(($(date +%s) - start)) s in all"
