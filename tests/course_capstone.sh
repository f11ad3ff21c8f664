#!/bin/sh
# tests/course_capstone.sh - a class of the capstone where some students are graded beside a busy
# machine (issue 33): every student has the same maximum, the vendor's points counted in it.
# Four uploads (the solution twice, 11's slow kernel as 13, a wrong kernel) graded one at a time;
# once the first is published, two busy loops run beside the rest. Their fraction of OpenBLAS's
# speed is their ratio to the reference times the reference's speed over OpenBLAS's, which the
# first grading timed and kept in the class's cache folder (grader/grade/anchor.c), so the load
# moves no maximum. A grading the load makes unfair is not published (exit 3) and a second run,
# without the load, grades it: then every student has a row, and every row one maximum.
# tests/course.sh runs it (make test-course), .ci/run on its own after its lanes; about two
# minutes on two cores.
. "$(dirname "$0")/course_setup.sh"
check_label=capstone
ex=13_fastest_sgemm
cat >"$conf" <<EOF
exercises = $ex
timeout = 20
$ex.perf_n = 512
$ex.points.memcheck = 0
EOF
for id in ada carol alan bob; do mkdir -p "$class/$id/$ex"; done
cp "$root"/solutions/$ex/main.c "$root"/solutions/$ex/kernel.cl "$class/ada/$ex/"
cp "$root"/solutions/$ex/main.c "$root"/solutions/$ex/kernel.cl "$class/carol/$ex/"
cp "$root"/solutions/$ex/main.c "$class/alan/$ex/"
cp "$root/solutions/11_any_size/kernel.cl" "$class/alan/$ex/kernel.cl" # (right, and slow)
cp "$root"/solutions/$ex/main.c "$class/bob/$ex/"
sed 's/acc\[wm\]\[h\] += /acc[wm][h] -= /' "$root/solutions/$ex/kernel.cl" >"$class/bob/$ex/kernel.cl"
check "bob's bug planted" sh -c "! cmp -s '$class/bob/$ex/kernel.cl' '$root/solutions/$ex/kernel.cl'"
loops=""
stop_loops() { [ -n "$loops" ] && kill $loops 2>/dev/null; loops=""; }
trap 'stop_loops; [ -n "$leader" ] && kill -9 -"$leader" 2>/dev/null
      [ "$fails" -eq 0 ] || tail -n 15 "$tmp"/run*.txt; rm -rf "$tmp"' EXIT
batch() { # batch: one make batch run over the class, one student at a time
    env SUBMISSIONS="$class" OUT="$out" CONFIG="$conf" JOBS=1 GRADER_SECRET=capstone-secret \
        SANDBOX=none sh "$root/grader/batch/batch.sh"
}
setsid sh -c "$(printf '%s ' env SUBMISSIONS="$class" OUT="$out" CONFIG="$conf" JOBS=1 \
    GRADER_SECRET=capstone-secret SANDBOX=none sh "$root/grader/batch/batch.sh")" >"$tmp/run1.txt" 2>&1 &
leader=$!
first=""
for _ in $(seq 1 3000); do # (5 minutes at most)
    first=$(ls "$out"/students/*/results.json 2>/dev/null | head -n 1)
    [ -n "$first" ] && break
    kill -0 "$leader" 2>/dev/null || break
    sleep 0.1
done
check "the first student is published before the load starts" [ -n "$first" ]
for _ in 1 2; do
    sh -c 'while :; do :; done' &
    loops="$loops $!"
done
wait "$leader"
leader=""
stop_loops
beside=$(grep -c "not graded: the machine was too busy" "$out"/students/*/status 2>/dev/null | awk -F: '{ n += $2 } END { print n + 0 }')
echo "  (beside the load: $beside of 3 gradings not published, graded again below)"
batch >"$tmp/run2.txt" 2>&1
for id in ada carol alan bob; do
    check "$id graded" [ -s "$out/students/$id/results.json" ]
done
# one maximum: the same max_score in every results.json, the vendor's 3 points in it for all
maxima=$(jq -r '.extra_data.exercises["'$ex'"].max_score' "$out"/students/*/results.json | sort -u)
check "one maximum for the four ($(echo $maxima))" [ -n "$maxima" ] && [ "$(echo "$maxima" | wc -l)" -eq 1 ]
vendor=$(jq -r '.tests[] | select(.name | test("speed against (OpenBLAS|CLBlast)")) | .max_score' \
    "$out"/students/*/results.json | sort -u)
check "the vendor's points in every maximum ($(echo $vendor))" [ "$vendor" = 3 ]
check "the gradebook's max the same in every row" \
    sh -c "[ \$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if (\$i == \"max\") c = i; next } { print \$c }' '$out/gradebook.csv' | sort -u | wc -l) -eq 1 ]"
# the figure the first grading kept, held against the rest
check "the anchor's figure kept in the class's cache folder" sh -c "ls '$out'/cache/anchor-* >/dev/null 2>&1"
kept=$(grep -l "kept for this device" "$out"/students/*/logs/$ex.log 2>/dev/null | wc -l)
check "the students timed after the first held against the kept figure ($kept of 3 timed)" [ "$kept" -ge 2 ]
check "bob's wrong kernel: the vendor's part not run, in his maximum all the same" \
    sh -c "jq -e '.tests[] | select(.name | test(\"speed against\")) | .score == 0 and .max_score == 3' '$out/students/bob/results.json' >/dev/null"
echo "capstone: $fails failed"
[ $fails -eq 0 ]
