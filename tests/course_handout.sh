#!/bin/sh
# tests/course_handout.sh - make handout as an instructor hands the workbook out (issue 33): built
# from a clone of this workbook's HEAD and cloned as a student would, the handout holds no
# solutions/, none of the planted or hostile entries, no slides and none of a solution's answers;
# its make grade on 04 filled with the reference files grades everything but the timing, names
# the point the instructor's grading decides and times the kernel beside the sequential loop and
# OpenBLAS; its quiz (06) is the instructor's too; make batch and make gradescope refuse there;
# its make test passes. make handout fails, writing nothing, where a file gives a solution away:
# an exercise's TODO(student) block filled by mistake, or a solution's line in a note.
# tests/course.sh runs it (make test-course), .ci/run on its own after its lanes.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_label=handout
. "$root/tests/check.sh"

# (the committed tree: the checkout may hold uncommitted work)
git clone -q "$root" "$tmp/workbook"
(cd "$tmp/workbook" && make -s handout OUT="$tmp/handout") >"$tmp/handout.txt" 2>&1
check "make handout writes the students' repository ($(tail -n 2 "$tmp/handout.txt" | head -n 1))" \
    grep -q "none found" "$tmp/handout.txt"
git clone -q "$tmp/handout" "$tmp/student"
s=$tmp/student
check "no solutions/, planted or hostile entries, slides or tests built on them" \
    sh -c "for p in solutions tests/planted tests/hints tests/corpus tests/suite slides tests/corpus.sh; do
               [ ! -e '$s/'\$p ] || { echo \"  the handout has \$p\"; exit 1; }; done"
# a second look, apart from make handout's own: each solution's TODO(student) blocks of 40
# characters or more, each as one line with blanks squeezed, in no file of the handout
answers_in_handout() {
    find "$s" -type f ! -path '*/.git/*' -exec cat {} + | tr -s '[:space:]' ' ' >"$tmp/all.txt"
    found=0
    for f in "$root"/solutions/*/*; do
        awk '/TODO\(student\) end/ { if (text != "") print text; inside = 0; text = "" }
             inside { text = text " " $0 } /TODO\(student\) begin/ { inside = 1 }' "$f" |
            tr -s '[:space:]' ' ' | sed 's/^ //; s/ $//' | awk 'length($0) >= 40' >"$tmp/blocks"
        while IFS= read -r block; do
            grep -qF -- "$block" "$tmp/all.txt" && { echo "  ${f#"$root"/} block found"; found=1; }
        done <"$tmp/blocks"
    done
    [ "$found" -eq 0 ]
}
check "no solution's TODO(student) block anywhere in the handout" answers_in_handout

# make handout refuses a tree that gives an answer away, and writes nothing then
leak() { # leak NAME: make handout of the clone as changed, expected to fail naming FILE
    (cd "$tmp/workbook" && git add -A && git commit -qm "$1" &&
        ! make -s handout OUT="$tmp/leak-$1" >"$tmp/leak-$1.txt" 2>&1) &&
        grep -q "handout: $2 holds a line of solutions/" "$tmp/leak-$1.txt" && [ ! -e "$tmp/leak-$1" ]
}
cp "$root/solutions/04_local_B/kernel.cl" "$tmp/workbook/exercises/04_local_B/kernel.cl"
check "a filled TODO(student) block committed to exercises/ is refused" \
    leak filled exercises/04_local_B/kernel.cl
git -C "$tmp/workbook" checkout -q HEAD~1 -- exercises/04_local_B/kernel.cl
grep -F 'acc[wm][h] +=' "$root/solutions/13_fastest_sgemm/kernel.cl" | head -n 1 >"$tmp/workbook/grader/notes.txt"
check "a solution's line in a note is refused" leak note grader/notes.txt

# the student's make grade: the skeleton, then 04 filled with the reference's files
(cd "$s" && make grade EX=04) >"$tmp/skeleton.txt" 2>&1
check "make grade on the skeleton: 0 points, the instructor's 1 named" \
    sh -c "grep -q '^Score: 0/10' '$tmp/skeleton.txt' &&
           grep -q \"^The instructor's grading decides 1 more point\" '$tmp/skeleton.txt'"
cp "$root/solutions/04_local_B/kernel.cl" "$root/solutions/04_local_B/main.c" "$s/exercises/04_local_B/"
(cd "$s" && make grade EX=04) >"$tmp/filled.txt" 2>&1
check "make grade on 04 filled: 10 of 10 here, the timing the instructor's" \
    sh -c "grep -q '^Score: 10/10' '$tmp/filled.txt' &&
           grep -q \"performance against the reference solution (1 point the instructor's grading decides)\" '$tmp/filled.txt' &&
           jq -e '.extra_data.max_score + .extra_data.left_out == 11 and .extra_data.instructors == 1' '$s/results/grade.json' >/dev/null"
check "its speed beside the sequential loop and OpenBLAS (or why not OpenBLAS)" \
    sh -c "grep -q 'your kernel alone, 5 rounds on the grader.s clock: .* GFLOP/s' '$tmp/filled.txt' &&
           grep -q \"the lecture's sequential loop .*: yours at .*x its speed\" '$tmp/filled.txt' &&
           grep -Eq 'OpenBLAS .*: yours at .*x its speed|OpenBLAS not timed: ' '$tmp/filled.txt'"
(cd "$s" && make grade EX=06) >"$tmp/quiz.txt" 2>&1
check "the quiz is the instructor's: its key is not in the handout" \
    sh -c "grep -q \"quiz q1 (1 point the instructor's grading decides)\" '$tmp/quiz.txt' &&
           ! grep -q 'grader configuration error' '$tmp/quiz.txt'"
check "make batch and make gradescope refuse in a handout" \
    sh -c "cd '$s' && ! make -s batch SUBMISSIONS='$tmp' OUT='$tmp/batch' >'$tmp/batch.txt' 2>&1 &&
           grep -q 'this workbook is a handout' '$tmp/batch.txt' &&
           ! make -s gradescope >'$tmp/gs.txt' 2>&1 && grep -q 'this workbook is a handout' '$tmp/gs.txt'"
(cd "$s" && make test) >"$tmp/test.txt" 2>&1
check "the handout's make test passes" grep -q "^all tests passed" "$tmp/test.txt"
if [ "$fails" -gt 0 ]; then
    for f in handout skeleton filled quiz test; do
        echo "---- $f"
        tail -n 25 "$tmp/$f.txt"
    done
fi
echo "handout: $fails failed"
[ "$fails" -eq 0 ]
