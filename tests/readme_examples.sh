#!/bin/sh
# tests/readme_examples.sh - README.md's examples of what the grader prints, made from real runs:
# each sits between `<!-- example: NAME -->` and `<!-- end -->`, as an indented block.
#
#   sh tests/readme_examples.sh write     grade solutions/ and the committed skeleton of
#                                         04_local_B, and rewrite the blocks from what it printed
#   sh tests/readme_examples.sh check SOLUTIONS.txt SKELETONS.txt SKELETON-LOG
#                                         README's blocks against a run's output (what
#                                         tests/run.sh already graded: the solutions' and the
#                                         skeletons' stdout, and the skeleton's 04_local_B.log),
#                                         in what is the same at every run: exit 1 with a diff
#
# The blocks: grade-report (the skeleton's report, points lost), grade-summary (the solutions'
# summary table, full marks, and what the grader left out of the maximum there) and log-head (the
# head of the skeleton's log). The check masks what changes from run to run or machine to
# machine: GFLOP/s, ratios, times and any decimal number, the device, the values of the log's
# head, the score of a row with points left out, the capstone's score (its points against the
# vendor) and so the total score; where the CUDA twin ran (an NVIDIA GPU), also 06's score. The
# maxima are compared with the points left out added back (each row's, from the summary's "Left
# out of the maximum" line): those are the table's points, the same on every machine, so the
# README's maxima cannot drift from the grader's.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
readme=$root/README.md
ex=04_local_B
names="grade-report grade-summary log-head"

# the block NAME of a run: SOLUTIONS.txt SKELETONS.txt LOG as $sol $sk $log
block() {
    case $1 in
    grade-report) awk -v head="== $ex:" 'index($0, head) == 1 { on = 1; print; next }
        on && (/^== / || /^$/) { exit } on { print }' "$sk" ;;
    grade-summary) awk '/^Case  / { on = 1 } on == 1 { print } /^Score: / && on { on = 2; next }
        on == 2 { if (/^Left out of the maximum/) print; exit }' "$sol" ;;
    log-head) sed -n '/^$/q; p' "$log" ;;
    esac
}

# README's block NAME, without its indent
readme_block() {
    awk -v start="<!-- example: $1 " 'index($0, start) == 1 { on = 1; next }
        on && /^<!-- end -->/ { exit } on && /^    / { print substr($0, 5) }' "$readme"
}

# what of block NAME is the same at every run (stdin to stdout)
mask() {
    case $1 in
    grade-summary)
        # each row's maximum with its points left out added back (the table's points); the score
        # where it depends on the machine (the capstone's points against the vendor, a row with
        # points left out, 06 where the CUDA twin ran), and so the total score, masked
        awk -F'|' -v OFS='|' -v cuda="$cuda_ran" -v titles="$titles" '
            BEGIN { while ((getline line < titles) > 0) { split(line, f, "\t"); id[f[1]] = f[2] } }
            { row[++rows] = $0 }
            /^Left out of the maximum/ { n = split(substr($0, index($0, ":") + 1), part, ",")
                for (p = 1; p <= n; p++) { split(part[p], w, " "); if (w[2] ~ /^[0-9]+$/) out[w[1]] = w[2] } }
            END { for (r = 1; r <= rows; r++) { $0 = row[r]
                if (/^Left out of the maximum/) continue
                if (NF == 5 && $5 ~ /\//) { $2 = " # "; $3 = " # "; $4 = " # "
                    title = $1; sub(/ +$/, "", title); left = out[id[title]] + 0
                    split($5, sm, "/"); max = sm[2] + left; score = sm[1]
                    if (left > 0 || (cuda && $1 ~ /^CUDA memory model/) || $1 ~ /^The fastest SGEMM/)
                        score = " #"
                    $5 = score "/" max }
                if (/^GFLOP\/s: /) sub(/ on .*/, " on #")
                if (/^Score: /) { split($0, sm, "/"); total = sm[2] + 0
                    for (k in out) total += out[k]
                    $0 = "Score: #/" total }
                print } }' ;;
    grade-report) sed -E 's/expected [^,]*,/expected #,/; s/-?[0-9]+\.[0-9]+(e[-+]?[0-9]+)?/#/g' ;;
    log-head) sed -E 's/^(  [a-z]+: +).*/\1#/' ;;
    esac
}

# every occurrence of $2 in stdin replaced by $3 (literal strings, any characters)
replace() {
    awk -v from="$1" -v to="$2" '{ out = ""; while ((i = index($0, from)) > 0) {
        out = out substr($0, 1, i - 1) to; $0 = substr($0, i + length(from)) } print out $0 }'
}

check() {
    sol=$1 sk=$2 log=$3
    for f in "$sol" "$sk" "$log"; do
        [ -s "$f" ] || { echo "readme examples: no $f (its grading step failed?)"; return 1; }
    done
    # the README's figures are from a machine without an NVIDIA GPU (06's CUDA twin skipped)
    cuda_ran=1
    grep -q "^  skip 0/0  CUDA twin" "$sol" && cuda_ran=0
    [ $cuda_ran = 0 ] || echo "readme examples: the CUDA twin ran here: 06's score and the total not compared"
    tmp=$(mktemp -d)
    # each row's title and exercise id, from the solutions' report (== ID: TITLE  [S/M])
    titles=$tmp/titles
    sed -n 's/^== \([^:]*\): \(.*\)  \[[0-9]*\/[0-9]*\]$/\2\t\1/p' "$sol" >"$titles"
    status=0
    for name in $names; do
        readme_block "$name" | mask "$name" >"$tmp/readme"
        block "$name" | mask "$name" >"$tmp/now"
        if [ ! -s "$tmp/readme" ]; then
            echo "readme examples: README.md has no block $name"
            status=1
        elif ! diff -u "$tmp/readme" "$tmp/now" >"$tmp/diff"; then
            echo "readme examples: $name differs from what the grader prints now (- README, + now;"
            echo "  # masks what changes from run to run): sh tests/readme_examples.sh write"
            tail -n +3 "$tmp/diff"
            status=1
        else
            echo "ok   README.md's $name is what the grader prints"
        fi
    done
    rm -rf "$tmp"
    return $status
}

write() {
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    sh "$root/tests/skeletons.sh" "$tmp/exercises" || exit 1
    echo "readme examples: grading solutions/ (a few minutes)"
    # (exit 1 with points lost only in the capstone's test against the vendor: see tests/run.sh)
    "$root/build/grader/grader" --submission "$root/solutions" --work "$tmp/work" \
        ${TUNING:+--tuning "$TUNING"} --results "$tmp/results-sol" --json "$tmp/solutions.json" >"$tmp/solutions.txt" 2>&1
    status=$?
    lost=$(jq '[.tests[] | select(.name | test("speed against (CLBlast|OpenBLAS) ") | not)
        | .max_score - .score] | add' "$tmp/solutions.json" 2>/dev/null)
    [ $status -eq 0 ] || { [ $status -eq 1 ] && [ "$lost" = 0 ]; } ||
        { tail -n 20 "$tmp/solutions.txt"; echo "readme examples: the solutions lost points"; exit 1; }
    # as a student grades a fresh exercise: `make grade` in its folder
    echo "readme examples: make grade in the skeleton of $ex"
    make -s -C "$tmp/exercises/$ex" ROOT="$root" RESULTS="$tmp/results" grade >"$tmp/skeleton.txt" 2>&1 ||
        { tail -n 20 "$tmp/skeleton.txt"; echo "readme examples: make grade failed"; exit 1; }
    sol=$tmp/solutions.txt sk=$tmp/skeleton.txt log=$tmp/results/$ex.log
    # the paths as on a student's machine: the workbook's exercises/ and results/, anywhere
    for name in $names; do
        block "$name" | replace "$tmp/exercises" "$root/exercises" | replace "$tmp/results" "$root/results" |
            replace "$root" "/path/to/workbook" >"$tmp/$name"
        [ -s "$tmp/$name" ] || { echo "readme examples: nothing for $name"; exit 1; }
    done
    awk -v dir="$tmp" 'on && /^<!-- end -->/ { on = 0 }
        !on { print }
        /^<!-- example: / { name = $3; on = 1; print ""
            while ((getline line < (dir "/" name)) > 0) print (line == "" ? "" : "    " line)
            close(dir "/" name); print "" }' "$readme" >"$tmp/README.md" &&
        cat "$tmp/README.md" >"$readme" || exit 1
    echo "readme examples: README.md rewritten; git diff README.md shows what changed"
}

case ${1:-} in
write) write ;;
check) [ $# -eq 4 ] || { echo "usage: sh tests/readme_examples.sh check SOLUTIONS.txt SKELETONS.txt LOG"; exit 2; }
    check "$2" "$3" "$4" ;;
*) echo "usage: sh tests/readme_examples.sh write | check SOLUTIONS.txt SKELETONS.txt LOG"; exit 2 ;;
esac
