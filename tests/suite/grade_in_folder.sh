#!/bin/sh
# tests/suite/grade_in_folder.sh - make grade inside an exercise folder; a wrong C drawn as a
# picture.
# A step of make test (tests/run.sh), which runs it with SUITE_DIR, its folder shared by the
# steps; alone it works in a folder of its own. tests/suite/env.sh sets root, grader, tmp, jobs,
# TUNING and SKELETONS.
# shellcheck source=tests/suite/env.sh disable=SC2015 # (check && ok || fail: ok only prints)
. "$(dirname "$0")/env.sh"

# what a student sees in a fresh exercise folder (the committed skeleton; ROOT: where this
# workbook is): `make grade` there grades that exercise only, and exits 0 having lost points
make_grade_in_folder() {
    make -s -C "$SKELETONS/04_local_B" ROOT="$root" RESULTS="$tmp/results-one" grade \
        >"$tmp/one.txt" 2>&1
    status=$?
    cat "$tmp/one.txt" | tail -n 5
    [ $status -eq 0 ] || { echo "make grade exit $status, expected 0 (graded, points lost)"; return 1; }
    grep -q "04_local_B" "$tmp/one.txt" && ! grep -q "^== 03" "$tmp/one.txt" &&
        grep -q "not implemented yet" "$tmp/one.txt" &&
        jq -e '.score == 0 and .extra_data.max_score > 0' "$tmp/results-one/grade.json" >/dev/null ||
        return 1
    # nothing written: the hint says it all, no picture
    ! ls "$tmp/results-one"/04_local_B-C-*.svg >/dev/null 2>&1 ||
        { echo "a picture of the skeleton's C, which holds nothing"; return 1; }
    c_pictures
}

# a wrong C at each failing size is drawn (results/ID-C-SIZE.svg) and named in the report: 01 with
# C transposed (tests/planted/transposed_index), a few seconds without the timed and oclgrind runs
c_pictures() {
    w=$tmp/wrong-01
    mkdir -p "$w" && cp -r solutions/01_per_element "$w/" &&
        cp tests/planted/transposed_index/kernel.cl "$w/01_per_element/" || return 1
    "$grader" --submission "$w" --ex 01_per_element --no-perf --no-memcheck --tuning "$TUNING" \
        --work "$w/work" --results "$w/results" >"$w/report.txt" 2>&1
    failed_sizes=$(grep -c "^  FAIL 0/[0-9]*  correct at N=" "$w/report.txt")
    named=$(grep -c "^ *picture: $w/results/01_per_element-C-[0-9]*\.svg$" "$w/report.txt")
    [ "$failed_sizes" -gt 0 ] && [ "$named" -eq "$failed_sizes" ] ||
        { cat "$w/report.txt"; echo "$named pictures named for $failed_sizes wrong sizes"; return 1; }
    for f in $(sed -n 's/^ *picture: //p' "$w/report.txt"); do
        if command -v xmllint >/dev/null; then
            xmllint --noout "$f" || { echo "$f: not well-formed"; return 1; }
        else
            grep -q "<svg " "$f" && tail -n 1 "$f" | grep -q "^</svg>$" ||
                { echo "$f: not an SVG"; return 1; }
        fi
        grep -q 'class="w"' "$f" || { echo "$f: no wrong cell drawn"; return 1; }
    done
    echo "ok   $named pictures of 01's transposed C: $(ls "$w/results"/*.svg | xargs -n1 basename | tr '\n' ' ')"
}

make_grade_in_folder
