#!/bin/sh
# tests/planted.sh [NAME...] - grade every planted-bug submission in tests/planted/ and check that
# it loses exactly the tests its `expect` file names, with a message that points at the bug.
# PLANTED_DIR=dir: the entries' folder, relative to the root (default tests/planted;
# tests/hints holds one entry per README "Common mistakes" bullet).
# PLANTED_JOBS=n: entries graded at a time when no NAME is given (default 2; see below);
# PLANTED_PART=timed or untimed: only the entries that time something, or only the others;
# PLANTED_PART=slow: only the entries marked `slow` (make test-planted-slow, which CI runs: most
# run 07's to 13's large tiles under oclgrind, 25 s to 71 s beside make test's load, one times a
# slow capstone against OpenBLAS; the set leaves them out where no NAME is given, to keep make
# test under 15 minutes).
# PLANTED_EXCEPT="NAME...": entries left out of the set (tests/run.sh: those its ASan step grades).
# GRADER=path picks the grader binary (default build/grader/grader; tests/run.sh passes the ASan
# build's), GRADER_CONFIG=file a config file for it. PLANTED_KEEP=1 keeps the entries' work folder
# (reports, logs, JSON) for a look after the run.
# A planted submission is the reference solution of one exercise with the files of its folder
# (kernel.cl and/or main.c) laid over it, or changed by a sed expression. expect lines:
#   kernel_sed EXPR          a GNU sed expression applied to the solution's kernel.cl (main_sed:
#                            main.c), which must change it: the bug planted in the current text
#   ex ID                    the exercise
#   kernel_from ID           the kernel.cl of another exercise's solution instead (before any
#                            kernel_sed): a step's solution graded as the next step
#   fail TEST                a test whose name contains TEST must score 0
#   pass TEST                a test whose name contains TEST must score full points
#   output TEST | TEXT       that test's output must contain TEXT
#   lacks TEST | TEXT        that test's output must not contain TEXT (a message it must not give)
#   cuda_output TEST | TEXT  the same, where the CUDA twin ran (nvcc and an NVIDIA GPU); where it
#                            was skipped (0 of 0) nothing is asserted
#   status N [N...]          the grader's exit status, one of those (default 1: points lost)
#   max_ratio R              the timed ratio to the reference stays below R (a cheat's gain)
#   needs_sandbox            skipped where bubblewrap cannot run (inside another sandbox)
#   slow                     graded by make test-planted-slow, not by the whole set
#   run_limit S              the grader's --timeout for the entry (default 30 s; 10 where it is
#                            about a run stopped at its limit)
#   needs_extension EXT      skipped where the grader says the device has no EXT (12's
#                            cl_khr_subgroups: POCL 3.1 here; POCL 5 on the device machine)
#   no_reference_text ID     no run of 24 characters of solutions/ID/kernel.cl's code (its
#                            comments left out, blanks squeezed) appears in the report, the JSON
#                            results or the exercise's log: nothing of the reference leaks
# @WORKBOOK_ROOT@ in an entry's files becomes the workbook's real path; the grader runs in the
# workbook's root, as `make grade` runs it (so /proc/self/cwd is the root).
# An entry whose expect file says nothing of performance (no "performance" test, no max_ratio) is
# graded with --no-perf: the timed comparison is the slowest part of grading and tells it nothing.
# Likewise one that says nothing of oclgrind's checks (no memory check, technique, traffic or
# oclgrind in it) is graded with --no-memcheck: from 07 on they are several oclgrind runs at the
# graded values, and the host test, the hidden sizes and the rest are judged the same without.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
# The whole set (or a list of NAMEs) runs PLANTED_JOBS entries at a time (default 2): a grading
# spends much of its time waiting on its children. Entries that time something (a timeout, a timed
# comparison, a run stopped at its limit) run first, one at a time, with the machine to
# themselves.
jobs=${PLANTED_JOBS:-2}
planted=$root/${PLANTED_DIR:-tests/planted}
# (the same for a list of NAMEs, as tests/run.sh's sanitizers step gives)
if { [ $# -eq 0 ] || [ $# -gt 1 ]; } && [ "$jobs" -gt 1 ]; then
    timed=""
    others=""
    part=${PLANTED_PART:-all}
    for entry in ${*:-$(ls "$planted")}; do
        d=$planted/$entry
        case " $(printf '%s' "${PLANTED_EXCEPT:-}" | tr '\n' ' ') " in
        *" $entry "*) [ $# -eq 0 ] && continue ;;
        esac
        # (the whole set: a `slow` entry only in PLANTED_PART=slow, and that part nothing else)
        slow=no
        grep -q '^slow$' "$d/expect" && slow=slow
        if [ $# -eq 0 ] && { [ "$part" = slow ] || [ $slow = slow ]; } && [ "$part" != $slow ]; then
            continue
        fi
        if grep -qE 'performance|^max_ratio|timed out|timeout|too slow' "$d/expect"; then
            timed="$timed $entry"
        else
            others="$others $entry"
        fi
    done
    status=0
    # shellcheck disable=SC2086 # (lists of names)
    # PLANTED_PART=timed or untimed: one half only (tests/run.sh runs them in its two lanes)
    [ "$part" = untimed ] || [ -z "$timed" ] || PLANTED_JOBS=1 sh "$0" $timed || status=1
    # shellcheck disable=SC2086
    [ "$part" = timed ] || printf '%s\n' $others | PLANTED_JOBS=1 xargs -r -P "$jobs" -n 1 sh "$0" ||
        status=1
    exit $status
fi
grader=${GRADER:-$root/build/grader/grader}

# reference_leaks ID SUB: the first run of 24 characters of solutions/ID/kernel.cl's code found in
# SUB's report, JSON results or logs ("" if none). Comments are left out (the report's own words
# may meet them), blanks squeezed on both sides (a macro's # spells its argument with single
# blanks).
reference_leaks() {
    cpp -fpreprocessed -dD -P -w -x c "$root/solutions/$1/kernel.cl" 2>/dev/null |
        tr -s ' \t\n' ' ' |
        awk '{ for (i = 1; i + 23 <= length($0); i++)
                   if (i == 1 || substr($0, i - 1, 1) !~ /[A-Za-z0-9_]/) print substr($0, i, 24) }' |
        sort -u >"$2/reference-runs.txt"
    { cat "$2/report.txt" "$2"/results/*.log 2>/dev/null; jq -r '.. | strings' "$2/grade.json" 2>/dev/null; } |
        tr -s ' \t\n' ' ' | grep -oF -f "$2/reference-runs.txt" | head -n 1
}
work=$(mktemp -d)
trap "${PLANTED_KEEP:+:} rm -rf \"$work\"" EXIT
failures=0
names=${*:-$(ls "$planted")}
for name in $names; do
    dir=$planted/$name
    ex=$(sed -n 's/^ex //p' "$dir/expect")
    if grep -q '^needs_sandbox' "$dir/expect" &&
        ! bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null; then
        echo "skip planted $name: bubblewrap cannot run here"
        continue
    fi
    sub=$work/$name
    mkdir -p "$sub/$ex"
    cp "$root/solutions/$ex/"* "$sub/$ex/"
    from=$(sed -n 's/^kernel_from //p' "$dir/expect")
    [ -z "$from" ] || cp "$root/solutions/$from/kernel.cl" "$sub/$ex/kernel.cl"
    for f in "$dir"/*; do
        case ${f##*/} in expect) ;; *) sed "s|@WORKBOOK_ROOT@|$root|g" "$f" >"$sub/$ex/${f##*/}" ;; esac
    done
    # kernel_sed / main_sed: a GNU sed expression applied to the solution's file (one that no
    # longer changes it plants nothing, and fails)
    for f in kernel.cl main.c; do
        expr=$(sed -n "s/^${f%%.*}_sed //p" "$dir/expect")
        [ -n "$expr" ] || continue
        cp "$sub/$ex/$f" "$sub/$f.before" && sed -i "$expr" "$sub/$ex/$f" &&
            ! cmp -s "$sub/$ex/$f" "$sub/$f.before" || {
            echo "FAIL planted $name: ${f%%.*}_sed changes nothing in solutions/$ex/$f"
            failures=$((failures + 1))
            continue 2
        }
    done
    json=$sub/grade.json
    no_perf=--no-perf
    grep -qE 'performance|^max_ratio' "$dir/expect" && no_perf=""
    no_memcheck=--no-memcheck
    grep -qE 'memory check|technique|oclgrind|memcheck|traffic|barriers per' "$dir/expect" &&
        no_memcheck=""
    # a short time limit where the entry is about a run stopped at its limit: the never-ending
    # kernel is stopped after 10 s instead of 30; the others keep the grader's 30 s (a host
    # program of 09 or 10 builds its 128 x 128 tiles in POCL within its run: about 9 s here)
    run_limit=30
    grep -qE 'timed out|timeout|too slow' "$dir/expect" && run_limit=10
    # run_limit S: an entry whose host program may hang after its kernel wrote past C (POCL's
    # own memory overwritten: a draw of sizes that lands there runs into the limit)
    limit=$(sed -n 's/^run_limit //p' "$dir/expect")
    [ -z "$limit" ] || run_limit=$limit
    graded_at=$(date +%s)
    # where the machine was too busy to grade fairly (exit 3: every launch of the capstone's
    # anchor starved, say), the grading is not published and no verdict on the planted bug: graded
    # again, as an instructor would, after a pause (this suite's other lane may have ended)
    for attempt in 1 2 3; do
        (cd "$root" && "$grader" --root "$root" --submission "$sub" --ex "$ex" --json "$json" \
            --timeout $run_limit $no_perf $no_memcheck ${GRADER_CONFIG:+--config "$GRADER_CONFIG"} \
            ${TUNING:+--tuning "$TUNING"} --results "$sub/results" --work "$sub/work" \
            >"$sub/report.txt" 2>&1)
        status=$?
        busy=""
        [ $status -eq 3 ] || break
        busy=" (not graded $attempt times: the machine too busy to grade fairly)"
        [ $attempt -eq 3 ] || sleep 20
    done
    needs=$(sed -n 's/^needs_extension //p' "$dir/expect")
    if [ -n "$needs" ] && grep -q "has no $needs, which this exercise needs" "$sub/report.txt"; then
        echo "skip planted $name: the device has no $needs"
        continue
    fi
    problems=""
    want_status=$(sed -n 's/^status //p' "$dir/expect")
    # (points left out, none lost: full marks of the rest is exit 0)
    [ -z "$busy" ] || want_status="${want_status:-1} 0"
    case " ${want_status:-1} " in *" $status "*) ;; *)
        problems="$problems\n  grader exit status $status, expected ${want_status:-1}" ;; esac
    # a grader built with sanitizers (make asan) reports here, or in a child's output
    grep -qsE "ERROR: AddressSanitizer|runtime error:" "$sub/report.txt" "$json" &&
        problems="$problems\n  a sanitizer report (ERROR: AddressSanitizer or runtime error:)"
    while IFS= read -r line; do
        case $line in
        "fail "* | "pass "*)
            want=${line%% *}
            test=${line#* }
            got=$(jq -r --arg t "$test" \
                '[.tests[] | select(.name | contains($t)) | if .score == 0 then "fail" elif .score == .max_score then "pass" else "partial" end] | join(" ")' "$json" 2>/dev/null)
            [ -n "$got" ] || got="missing"
            [ "$got" = "$want" ] || problems="$problems\n  test '$test': $got, expected $want"
            ;;
        "max_ratio "*)
            limit=${line#max_ratio }
            ratio=$(jq -r '.tests[] | select(.name | contains("performance")) | .output' "$json" |
                sed -n 's/^ratio \([0-9.]*\), .*/\1/p')
            awk -v r="${ratio:-999}" -v l="$limit" 'BEGIN { exit !(r < l) }' ||
                problems="$problems\n  timed ratio ${ratio:-missing}, expected below $limit"
            ;;
        "no_reference_text "*)
            leaked=$(reference_leaks "${line#no_reference_text }" "$sub")
            [ -z "$leaked" ] || problems="$problems\n  the reference's text leaked: \"$leaked\""
            ;;
        "lacks "*)
            rest=${line#lacks }
            test=${rest%% | *}
            text=${rest#* | }
            jq -r --arg t "$test" '.tests[] | select(.name | contains($t)) | .output' "$json" \
                2>/dev/null | grep -qF -- "$text" &&
                problems="$problems\n  test '$test': output says \"$text\""
            ;;
        "output "* | "cuda_output "*)
            if [ "${line%% *}" = cuda_output ] &&
                [ "$(jq '[.tests[] | select(.name | contains("CUDA twin: correct"))] | length' \
                    "$json" 2>/dev/null)" = 0 ]; then
                continue # no nvcc or no NVIDIA GPU here: the CUDA twin was skipped
            fi
            rest=${line#* }
            test=${rest%% | *}
            text=${rest#* | }
            jq -r --arg t "$test" '.tests[] | select(.name | contains($t)) | .output' "$json" \
                2>/dev/null | grep -qF -- "$text" ||
                problems="$problems\n  test '$test': output lacks \"$text\""
            ;;
        esac
    done <"$dir/expect"
    if [ -n "$problems" ]; then
        printf 'FAIL planted %s (%s):%b\n--- grader report:\n' "$name" "$ex" "$problems"
        cat "$sub/report.txt"
        failures=$((failures + 1))
    else
        echo "ok   planted $name ($ex): $(sed -n 's/^Score: //p' "$sub/report.txt") as expected ($(($(date +%s) - graded_at)) s)$busy"
    fi
done
[ "$failures" -eq 0 ]
