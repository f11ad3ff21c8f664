#!/bin/sh
# tests/new_exercise.sh - adding an exercise touches what grader/README.md's "Adding an exercise"
# says, and nothing else. In a scratch copy of the tree a throwaway exercise 14 (01's files under
# a new name, 01's row under a new id and title) is added in exactly those places: solutions/,
# exercises/ and one row of grader/exercise/table.c. The copy is built, and then the grader lists
# it, grades its solution to full marks and its skeleton to zero with "not implemented yet", names
# it in the help's list, and the slides give it a row of its own. Prints ok/FAIL lines; exits 1 if
# any check failed. A minute and a half (the copy's build is most of it).
# shellcheck disable=SC2015 # "check && ok ... || fail ...": ok only prints, it always succeeds
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
ok() { echo "ok   $*"; }
fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}
new=14_throwaway
title="Throwaway exercise of tests/new_exercise.sh"

# the tree as it is now (tracked files, with their changes): no build, no results
copy=$tmp/copy
mkdir -p "$copy"
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -C "$copy" -xf - ||
    { echo "FAIL cannot copy the tree"; exit 1; }
skeleton=${SKELETONS:-$root/exercises}/01_per_element # (a student's checkout: the committed one)

# the three places, and only these
cp -R "$copy/solutions/01_per_element" "$copy/solutions/$new" &&
    cp -R "$skeleton" "$copy/exercises/$new" && rm -f "$copy/exercises/$new/01_per_element" ||
    { echo "FAIL cannot copy 01's folders"; exit 1; }
# 01's row again right after it, with the new id and title
awk -v id="$new" -v title="$title" '
    /^    \{$/ { inrow = 1; row = "" }
    inrow { row = row $0 "\n" }
    { print }
    inrow && /^    \},$/ {
        inrow = 0
        if (row ~ /\.id = "01_per_element"/) {
            sub(/\.id = "01_per_element"/, ".id = \"" id "\"", row)
            sub(/\.title = "[^"]*"/, ".title = \"" title "\"", row)
            printf "%s", row
            added = 1
        }
    }
    END { exit !added }' "$root/grader/exercise/table.c" >"$copy/grader/exercise/table.c" ||
    { echo "FAIL 01's row not found in grader/exercise/table.c"; exit 1; }
changed=$(cd "$tmp" && diff -rq "$root/grader" copy/grader 2>/dev/null | grep -v "^Only in $root/grader" |
    sed "s|$tmp/||")
[ "$changed" = "Files $root/grader/exercise/table.c and copy/grader/exercise/table.c differ" ] &&
    ok "the copy differs in grader/ by table.c alone" || fail "the copy's grader/ differs by: $changed"

if ! make -C "$copy" -s -j"$(nproc 2>/dev/null || echo 2)" all >"$tmp/build.txt" 2>&1; then
    tail -n 30 "$tmp/build.txt"
    echo "FAIL the copy with exercise $new does not build"
    exit 1
fi
ok "the copy with exercise $new builds (the grader, its host programs)"
grader=$copy/build/grader/grader

# the table's listing and the help name it
"$grader" --list | awk -F '\t' -v id="$new" -v t="$title" '$1 == id && $2 == "matrix" && $5 == t { n++ }
    END { exit n != 1 }' && ok "grader --list lists $new with its title" ||
    fail "grader --list does not list $new: $("$grader" --list | cut -f 1 | tr '\n' ' ')"
"$grader" --help 2>&1 | grep -q "^Exercises: .* $new" && ok "grader --help names $new" ||
    fail "grader --help does not name $new"

# graded as any row is (no timing, no oclgrind: their machinery is the other rows' too)
grade() { # grade SUBMISSION NAME: its report in $tmp/NAME.txt, results.json in $tmp/NAME.json
    (cd "$copy" && "$grader" --submission "$1" --ex "$new" --no-perf --no-memcheck \
        --json "$tmp/$2.json" --work "$tmp/work-$2" --results "$tmp/results-$2") >"$tmp/$2.txt" 2>&1
}
grade "$copy/solutions" solution
status=$?
[ $status -eq 0 ] && jq -e '.score > 0 and .score == .extra_data.max_score and
    (.tests | length) > 0 and all(.tests[]; .extra_data.exercise == "'$new'")' \
    "$tmp/solution.json" >/dev/null && ok "its solution: full marks ($(grep "^Score:" "$tmp/solution.txt"))" ||
    { tail -n 20 "$tmp/solution.txt"; fail "its solution: exit $status, not full marks"; }
grade "$copy/exercises" skeleton
status=$?
[ $status -eq 1 ] && grep -q "not implemented yet" "$tmp/skeleton.txt" &&
    jq -e '.score == 0 and .extra_data.max_score > 0' "$tmp/skeleton.json" >/dev/null &&
    ok "its skeleton: 0, not implemented yet" ||
    { tail -n 20 "$tmp/skeleton.txt"; fail "its skeleton: exit $status, not a zero"; }

# the slides: a deck's table takes the row "14" from the grader's table
if command -v pandoc >/dev/null 2>&1; then
    res=$tmp/bench
    mkdir -p "$res"
    {
        echo "kind,case,device,driver,n,options,repeats,min_s,median_s,max_s,value,unit,pct_peak,flops_per_byte,key,timed_n,tuning,step"
        echo "exercise,$title,Test device,test 1.0,1024,,3,0.1,0.1,0.1,123.4,GFLOP/s,,,ex:$new,1024,,"
    } >"$res/bench.csv"
    printf '# Throwaway\n\n<!-- bench: rows=01,14 cols=here -->\n' >"$copy/slides/99_throwaway.md"
    if sh "$copy/slides/render.sh" "$res" "$tmp/slides" >"$tmp/slides.txt" 2>&1; then
        grep -q "14 $title" "$tmp/slides/99_throwaway.html" && grep -q "123.4" "$tmp/slides/99_throwaway.html" &&
            ok "the slides fill a row 14 with its title and figure" ||
            fail "the slides have no row 14 with its figure"
    else
        cat "$tmp/slides.txt"
        fail "render.sh failed on a deck with row 14"
    fi
else
    echo "skip the slides' row: pandoc is not installed (make slides installs it)"
fi

[ "$failures" -eq 0 ] || exit 1
