#!/bin/sh
# tests/course.sh - make batch as a course uses it (issue 25): a roster, uploads named as Moodle
# and Canvas download them (one Canvas LATE), an empty upload and a missing student; a deadline
# with a late penalty; Canvas and Moodle grade imports; the similarity report (two copied kernels
# flagged, an independent one not); then a resubmission and a config change regraded exactly
# when stale, ONLY=, and a FORCE=1 run killed half-way that a plain run finishes; last the
# student's `make submit`, its archive graded by make batch (tests/submit.sh). Issue 31's intake:
# hostile names (a classmate's Moodle number, a name read two ways), a Canvas user's loose files,
# a backdated archive, Moodle's own zip and worksheet, every output read by a real parser
# (tests/outputs.sh), and an interrupted batch resumed (tests/course_interrupt.sh). Issue 33's one
# maximum: a class of the capstone graded partly beside a busy machine (tests/course_capstone.sh).
# Its handout: make handout, then the handout's make grade and make test in a fresh clone
# (tests/course_handout.sh).
# A small class of 04_local_B with short settings (tests/course.conf style, written here): about a
# minute on two cores. `make test-course`; .ci/run runs it.
. "$(dirname "$0")/course_setup.sh"
cat >>"$conf" <<EOF
$ex.deadline = 2026-01-10 12:00
late.per_day = 10
late.cap = 30
late.grace_minutes = 30
EOF
# the class: a solution as Moodle (a folder holding the student's zip) and as Canvas (the zip
# itself, renamed variables: a copy), a Canvas LATE tarball, an independent kernel, an empty upload
src=$tmp/src
mkdir -p "$src/$ex" "$class"
cp "$root/solutions/$ex/main.c" "$root/solutions/$ex/kernel.cl" "$src/$ex/"
(cd "$src" && zip -qr "$tmp/ada.zip" "$ex")
mkdir -p "$class/Ada Lovelace_1234_assignsubmission_file_"
cp "$tmp/ada.zip" "$class/Ada Lovelace_1234_assignsubmission_file_/my work.zip"
# on time: the platform's file time is the upload's
touch -d "2026-01-09 10:00" "$class/Ada Lovelace_1234_assignsubmission_file_/my work.zip"
mkdir -p "$tmp/alan/$ex"
cp "$src/$ex/main.c" "$tmp/alan/$ex/"
sed 's/\bacc\b/total_sum/g; s/\btile\b/blk/g' "$src/$ex/kernel.cl" >"$tmp/alan/$ex/kernel.cl"
(cd "$tmp/alan" && zip -qr "$class/turingalan_12345_67890_work.zip" "$ex")
touch -d "2026-01-10 12:10" "$class/turingalan_12345_67890_work.zip" # within the grace
tar -czf "$class/hoppergrace_LATE_555_777_handin.tar.gz" -C "$src" "$ex"
touch -d "2026-01-12 13:00" "$class/hoppergrace_LATE_555_777_handin.tar.gz" # 3 days late: 30 %
mkdir -p "$class/carl/$ex"
cp "$src/$ex/main.c" "$class/carl/$ex/"
cat >"$class/carl/$ex/kernel.cl" <<'EOF'
// carl's own: one work-item per element, a plain loop over k
__kernel void mm(const int N, __global const float *A, __global const float *B, __global float *C) {
    int r = get_global_id(1), c = get_global_id(0);
    if (r >= N || c >= N)
        return;
    float s = 0.0f;
    for (int k = 0; k < N; ++k)
        s += A[r * N + k] * B[k * N + c];
    C[r * N + c] = s;
}
EOF
touch -d "2026-01-01 00:00" "$class/carl/$ex/kernel.cl" "$class/carl/$ex/main.c"
# the empty upload: its id the name of the batch's own folder of staged files (OUT/work/staged),
# and a member named with literal backslashes that echo under dash would turn into escapes
weird='notes\033[2J\033[31mALL GRADED\n=1+1\c.txt'
mkdir -p "$tmp/eve"
echo "nothing here yet" >"$tmp/eve/notes.txt"
echo "nor here" >"$tmp/eve/$weird"
tar -czf "$class/staged.tar.gz" -C "$tmp/eve" .
# hostile names (issue 31): Mallory's own file name holds Ada's Moodle number, and a Canvas
# upload's own name holds Moodle's marker with Dan's number (read two ways: listed, not graded)
(cd "$src" && zip -qr "$class/Mallory Evil_4321_assignsubmission_file_x_1234_assignsubmission_file_.zip" "$ex")
touch -d "2026-01-09 11:00" "$class/Mallory Evil_4321_assignsubmission_file_x_1234_assignsubmission_file_.zip"
tar -czf "$class/trudy_LATE_556_778_x_999_assignsubmission_file_.tar.gz" -C "$src" "$ex"
# a Canvas user's several files (no archive): kernel.cl and main.c, then kernel.cl again (Canvas
# names the second kernel-1.cl), the newer one the right one
printf '// an early draft\n' >"$class/linlin_777_1_kernel.cl"
touch -d "2026-01-08 09:00" "$class/linlin_777_1_kernel.cl"
cp "$src/$ex/main.c" "$class/linlin_777_2_main.c"
cp "$src/$ex/kernel.cl" "$class/linlin_777_3_kernel-1.cl"
touch -d "2026-01-09 09:00" "$class/linlin_777_2_main.c" "$class/linlin_777_3_kernel-1.cl"
# a backdated archive: its members say 1 January, the upload came on 12 January (3 days late)
cp -r "$src/$ex" "$tmp/bart-$ex" && mkdir -p "$tmp/bart" && mv "$tmp/bart-$ex" "$tmp/bart/$ex"
touch -d "2026-01-01 00:00" "$tmp/bart/$ex/main.c" "$tmp/bart/$ex/kernel.cl" "$tmp/bart/$ex"
tar -czf "$class/bart.tar.gz" -C "$tmp/bart" "$ex"
touch -d "2026-01-12 13:00" "$class/bart.tar.gz"
# (alan: an adjustment of -1.5 points, the roster's fifth column; 07 and 7, who handed in
# nothing, are two students, whom awk would read as one number; saved as Excel's "CSV UTF-8",
# with a byte order mark first)
printf '\357\273\277id,name,lms\nada,"Lovelace, Ada",1234\nalan,Alan Turing,12345,,-1.5\ngrace,Grace Hopper,555\ncarl,Carl,\nstaged,Eve Staged,\ndan,Dan Absent,999\n07,Oh Seven,,2,1\n7,Seven,\nmallory,Mallory Evil,4321\nlin,Lin Lin,777\nbart,Bart,\n' \
    >"$tmp/roster.csv"

batch() { # batch ENV...: one make batch run over the class
    env SUBMISSIONS="$class" OUT="$out" CONFIG="$conf" ROSTER="$tmp/roster.csv" JOBS=2 \
        GRADER_SECRET=course-secret SANDBOX=none "$@" sh "$root/grader/batch/batch.sh"
}
column_of() { head -n 1 "$out/gradebook.csv" | tr ',' '\n' | grep -n "^$1\$" | cut -d: -f1; }
# a cell of ID's row by its column's name (names without commas here, but ada's is quoted)
cell() { # cell ID COLUMN
    sed 's/"[^"]*"/name/' "$out/gradebook.csv" | awk -F, -v id="$1" -v c="$(column_of "$2")" '$1 "" == id "" { print $c }'
}

# ---------------------------------------------------------------- 1. the class
batch >"$tmp/run1.txt" 2>&1
check "the first run grades the class" [ $? -eq 0 ]
check "11 roster rows in the gradebook" [ "$(tail -n +2 "$out/gradebook.csv" | wc -l)" -eq 11 ]
check "a roster with Excel's byte order mark is read (its header a header, ada's row)" \
    sh -c "grep -q '^ada,' '$out/gradebook.csv' && ! grep -q 'letters, digits' '$tmp/run1.txt'"
check "Moodle's and Canvas's names map to the roster's ids" \
    sh -c "for id in ada alan grace; do grep -q \"^\$id,\" '$out/gradebook.csv' || exit 1; done"
check "the missing student's row says so" [ "$(cell 7 status)" = "missing: nothing submitted" ]
check "ids 07 and 7 are two students: 07's extension and adjustment are not 7's" \
    sh -c "[ '$(cell 07 extension)/$(cell 07 adjustment)' = 2/1 ] && [ '$(cell 7 extension)/$(cell 7 adjustment)' = / ]"
held="empty: no exercise folder (the upload held: staged.tar.gz; staged.tar.gz holding $weird, notes.txt)"
check "the empty upload's status says what it held, byte for byte (backslashes literal)" \
    sh -c 'printf "%s\n" "$1" | cmp -s - "$2"' - "$held" "$out/students/staged/status"
no_escape() { # the member's name as written in the gradebook, and no ESC byte there or on the terminal
    grep -qF 'notes\033[2J' "$out/gradebook.csv" && ! grep -q "$(printf '\033')" "$out/gradebook.csv" "$tmp/run1.txt"
}
check "no escape byte from the member's name in the gradebook or on the terminal" no_escape
check "a student whose id is the batch's own folder (staged) removes none of it" \
    [ -f "$out/work/staged/ada/status" ]
check "the progress line counts this run's students from the first ([1/8])" \
    grep -q '^batch: \[1/8\] ' "$tmp/run1.txt"
check "a classmate's number in Mallory's own file name: Ada keeps her row, Mallory has hers" \
    sh -c "[ '$(cell ada status)' = graded ] && [ '$(cell mallory status)' = graded ] &&
        [ '$(cell mallory total)' = '$(cell ada total)' ] && ! grep -q 'taken by another' '$tmp/run1.txt'"
check "a name read as Canvas's and Moodle's is skipped and listed, Dan still missing" \
    sh -c "grep -q 'skipped trudy_LATE_556_778_x_999_assignsubmission_file_.tar.gz: the name reads as Canvas' '$tmp/run1.txt' &&
        grep -q 'trudy_LATE' '$out/skipped.txt' && grep -q '^dan,.*,missing: nothing graded' '$out/gradebook.csv'"
check "Dan's row says an upload naming his number was skipped, not that he handed in nothing" \
    grep -q '^dan,.*missing: nothing graded: an upload that names them was skipped (trudy_LATE_556_778_x_999_assignsubmission_file_.tar.gz: the name reads as Canvas' \
        "$out/gradebook.csv"
check "a Canvas user's loose files are one submission, the newer kernel taken: lin $(cell lin total)" \
    [ "$(cell lin total)" = "$(cell ada total)" ]
check "the backdated archive is 3 days late by its upload's time, not its members'" \
    sh -c "[ '$(cell bart 'days late')' = 3 ] && grep '^bart,' '$out/gradebook.csv' | grep -q ',2026-01-12 13:00,the upload'"
full=$(cell ada max)
check "graded: ada full marks ($(cell ada total) of $full)" [ "$(cell ada total)" = "$full" ]
check "late by 3 days, 30 % off: grace $(cell grace raw) -> $(cell grace total)" \
    awk -v d="$(cell grace 'days late')" -v r="$(cell grace raw)" -v t="$(cell grace total)" \
    'BEGIN { exit !(d == 3 && r > 0 && t == int(r * 70 + 0.5) / 100) }'
check "within the grace: alan not late" [ -z "$(cell alan 'days late')" ]
check "the roster's adjustment: alan $(cell alan raw) - 1.5 -> $(cell alan total)" \
    awk -v r="$(cell alan raw)" -v t="$(cell alan total)" -v a="$(cell alan adjustment)" \
    'BEGIN { exit !(a == -1.5 && r > 2 && t == r - 1.5) }'
# the total after the penalty is the one figure of every file (grader/batch/README.md's rule)
total=$(cell grace total)
check "grace's total in Canvas's import ($total)" grep -qx "Grace Hopper,555,grace,,,$total" "$out/canvas.csv"
check "grace's results.json: extra_data.late says 3 days, the penalty and the total" \
    jq -e --argjson raw "$(cell grace raw)" --argjson total "$total" '.score == $raw and
        .extra_data.late == {days: 3, penalty: ((($raw - $total) * 100 | round) / 100), extension_days: 0,
                             adjustment: 0, total: $total}' \
        "$out/students/grace/results.json"
percent=$(awk -v t="$total" -v m="$(cell grace max)" 'BEGIN { print int(100 * t / m) }')
check "report.html: grace at $percent percent, the total's" \
    sh -c "grep -o '<tr><td><a href=\"students/grace/[^\"]*\">grace</a></td>.*' '$out/report.html' | head -n 1 |
        sed 's|</tr>.*||' | grep -q '<td>$percent</td>'"
# summary.md's histogram: each student's bin by the total, as the gradebook has them
bins() { # the gradebook's graded rows, as summary.md's | range | students | lines
    for id in $(tail -n +2 "$out/gradebook.csv" | cut -d, -f1); do
        [ "$(cell "$id" status)" = graded ] && awk -v t="$(cell "$id" total)" -v m="$(cell "$id" max)" \
            'BEGIN { b = int(int(100 * t / m) / 10) * 10; print (b == 100 ? "100%" : b "-" b + 9 "%") }'
    done | sort | uniq -c | awk '{ print "| " $2 " | " $1 " |" }'
}
check "summary.md's histogram bins the totals, not the raw scores" \
    sh -c "[ \"\$(grep -E '^\| [0-9-]+%? \| [0-9]+ \|$' '$out/summary.md' | sort)\" = '$(bins | sort)' ] &&
        [ -n '$(bins)' ]"
check "a missing student's max is the class's ($(cell dan max))" [ "$(cell dan max)" = "$(cell ada max)" ]
submitted_apart() {
    [ "$(cell grace submitted)" = "2026-01-12 13:00" ] &&
        [ "$(cell grace 'submitted from')" = "the platform download's file time" ]
}
check "the submitted column is a date alone, where it came from beside it" submitted_apart
check "the submission time says where it came from, never the files' own times" \
    sh -c "grep '^grace,' '$out/gradebook.csv' | grep -q 'platform download' &&
        grep '^carl,' '$out/gradebook.csv' | grep -q 'own file time on this disk' &&
        ! grep '^carl,' '$out/gradebook.csv' | grep -q '2026-01-01 00:00'"
check "the intake's list of editable files is the scripts' (make submit's)" \
    [ "$("$root/build/grader/intake" caps | sed -n 's/^intake_editable="\(.*\)"$/\1/p')" = \
        "$(root=$root && . "$root/grader/batch/stage.sh" && echo "$stage_editable")" ]
check "only the graded exercise has columns, the device none (one device)" \
    sh -c "! head -n 1 '$out/gradebook.csv' | grep -q -e 00_vadd -e ',device'"
check "Canvas import: its columns, Points Possible, alan by Canvas ID" \
    sh -c "head -n 1 '$out/canvas.csv' | grep -qx 'Student,ID,SIS User ID,SIS Login ID,Section,Workbook' &&
        grep -qx 'Points Possible,,,,,$full' '$out/canvas.csv' &&
        grep -qx 'Alan Turing,12345,alan,,,$(cell alan total)' '$out/canvas.csv'"
check "Moodle import: Identifier Participant N, Grade, Maximum Grade, nothing that overwrites" \
    sh -c "head -n 1 '$out/moodle.csv' | grep -qx 'Identifier,Full name,Grade,Maximum Grade' &&
        grep -qx 'Participant 1234,\"Lovelace, Ada\",$full,$full' '$out/moodle.csv'"
# each platform's file holds its own downloads' students only; the mixed class's missing student
# (no download says whose) is in neither, and the batch says so
check "no Moodle number in Canvas's file, no Canvas id in Moodle's" \
    sh -c "! grep -q 'ada' '$out/canvas.csv' && ! grep -q -e alan -e 'Participant 12345' '$out/moodle.csv' &&
        ! grep -q 'Dan Absent' '$out/canvas.csv' '$out/moodle.csv' &&
        grep -q '^batch: in no platform.s import .*: dan' '$tmp/run1.txt'"
check "similarity: the copied kernels flagged (ada, alan)" \
    grep -q "^$ex	kernel.cl	ada	alan	" "$out/similarity.tsv"
check "similarity: the independent kernel not" sh -c "! grep -q 'kernel.cl	.*carl' '$out/similarity.tsv'"
check "similarity: a copy of the reference solution flagged against (solutions)" \
    grep -q "^$ex	kernel.cl	(solutions)	ada	" "$out/similarity.tsv"

# a platform number names one student: a roster where it could be two is refused, in one line,
# before anything is read or graded (the review's: Alice's Canvas number is Bob's id)
refuses_roster() { # refuses_roster ROWS WHAT: a batch on a roster of ROWS stops, saying WHAT
    printf 'id,name,lms\n%s\n' "$1" >"$tmp/roster-bad.csv"
    env SUBMISSIONS="$class" OUT="$tmp/out-bad" CONFIG="$conf" ROSTER="$tmp/roster-bad.csv" \
        GRADER_SECRET=course-secret SANDBOX=none sh "$root/grader/batch/batch.sh" >"$tmp/bad.txt" 2>&1 && return 1
    [ "$(grep -c ROSTER= "$tmp/bad.txt")" -eq 1 ] && grep -q "^batch: ROSTER=.*: $2" "$tmp/bad.txt" &&
        ! grep -q -e 'to grade' -e skipped "$tmp/bad.txt"
}
check "a roster whose lms number is another row's id is refused" \
    refuses_roster "$(printf '1001,Bob Builder,2002\nalice,Alice Smith,1001')" \
    "alice's lms number 1001 is also the id of another row: correct that lms, or give the row 1001"
check "a roster with one lms number on two rows is refused" \
    refuses_roster "$(printf 'ada,Ada,1234\nbob,Bob,01234\nbea,Bea,1234')" "lms number 1234 is on two rows (ada, bea)"
# the mapping itself: the lms column first, then the id column, each compared as a string
roster_id() { # roster_id NUMBER: batch_roster_id over Bob's row and then Alice's, as the review had them
    mkdir -p "$tmp/roster-id/work" &&
        printf '1001\tBob Builder\t2002\t\t\nalice\tAlice Smith\t1001\t\t\n' >"$tmp/roster-id/work/.roster" &&
        out=$tmp/roster-id sh -c 'who=course && . "$(dirname "$0")/lib.sh" && batch_roster_id "$1"' \
            "$root/grader/batch/lib.sh" "$1"
}
check "an lms number maps by the lms column first (1001: alice), then by id, as a string (01001: none)" \
    sh -c "[ '$(roster_id 1001)' = 'alice	Alice Smith' ] && [ '$(roster_id 2002)' = '1001	Bob Builder' ] &&
        [ '$(roster_id 01001)' = '01001	' ]"

# ---------------------------------------------------------------- 2. a resubmission, ONLY=
fingerprint() { grep -o 'fingerprint [0-9a-f]*' "$out/students/$1/grade.log" | head -n 1; }
carl_before=$(fingerprint carl) ada_before=$(fingerprint ada)
echo "// resubmitted" >>"$class/carl/$ex/kernel.cl"
# (a status planted with a real ESC and a literal \033: STATUS=1 prints neither as an escape)
cp "$out/students/staged/status" "$tmp/staged.status"
printf 'error: planted \\033[31m \033[2J\n' >"$out/students/staged/status"
batch STATUS=1 >"$tmp/status1.txt" 2>&1
cp "$tmp/staged.status" "$out/students/staged/status"
check "STATUS=1 shows a status's control bytes as ?, its backslashes as written" \
    grep -qxF 'batch: again staged: error: planted \033[31m ?[2J' "$tmp/status1.txt"
check "STATUS=1 lists the resubmission as stale, nobody else" \
    sh -c "grep -q '^batch: stale carl: the upload changed' '$tmp/status1.txt' &&
        [ \$(grep -c '^batch: stale' '$tmp/status1.txt') -eq 1 ]"
check "STATUS=1 lists the roster's students who handed in nothing, and why" \
    sh -c "grep -q '^batch: missing 7 (Seven): nothing submitted$' '$tmp/status1.txt' &&
        grep -q '^batch: missing dan (Dan Absent): nothing graded: an upload that names them was skipped (trudy' '$tmp/status1.txt' &&
        grep -q ', 3 on the roster with no upload taken' '$tmp/status1.txt'"
batch ONLY=carl >"$tmp/run2.txt" 2>&1
check "ONLY=carl grades carl only" \
    sh -c "grep -q '1 to grade (1 of them stale)' '$tmp/run2.txt' && [ \$(grep -c '^batch: \[' '$tmp/run2.txt') -eq 1 ]"
check "a resubmission draws its hidden seed afresh ($carl_before, then $(fingerprint carl))" \
    sh -c "[ -n '$carl_before' ] && [ -n '$(fingerprint carl)' ] && [ '$carl_before' != '$(fingerprint carl)' ]"
refuses_unknown() { batch ONLY=nobody >"$tmp/only.txt" 2>&1 && return 1; grep -q 'ONLY=nobody: no student nobody' "$tmp/only.txt"; }
check "ONLY= with an id not in the class is refused" refuses_unknown

# ---------------------------------------------------------------- 3. a config change, FORCE=1 killed
echo "$ex.points.host = 3" >>"$conf"
batch STATUS=1 >"$tmp/status2.txt" 2>&1
check "a config change makes every result stale (8)" \
    [ "$(grep -c '^batch: stale .*: the grader, the config or EX changed' "$tmp/status2.txt")" -eq 8 ]
# a forced run killed once one student is published (the whole process group, as kill -9 would)
setsid sh -c "$(printf '%s ' env SUBMISSIONS="$class" OUT="$out" CONFIG="$conf" ROSTER="$tmp/roster.csv" \
    JOBS=1 GRADER_SECRET=course-secret SANDBOX=none FORCE=1 sh "$root/grader/batch/batch.sh")" \
    >"$tmp/forced.txt" 2>&1 &
leader=$!
for _ in $(seq 1 600); do
    grep -q '^batch: \[1/' "$tmp/forced.txt" 2>/dev/null && break
    sleep 0.1
done
kill -9 -"$leader" 2>/dev/null
wait "$leader" 2>/dev/null
leader=""
check "the forced run said what it forces ([1/8] first)" grep -q '^batch: \[1/8\] ' "$tmp/forced.txt"
batch >"$tmp/run3.txt" 2>&1
check "a plain run finishes the forced one: 7 to grade" grep -q ", 7 to grade (7 of them stale)" "$tmp/run3.txt"
batch STATUS=1 >"$tmp/status3.txt" 2>&1
check "then nothing is stale" grep -q ': 8 current, 0 stale, 0 new' "$tmp/status3.txt"
check "the same files draw the same seed: ada's regrade ($ada_before)" [ "$(fingerprint ada)" = "$ada_before" ]
check "the new maximum in the gradebook ($(cell ada max), was $full)" [ "$(cell ada max)" -gt "$full" ]
# Canvas's gradebook export given back filled (GRADEBOOK=): the assignment's column set for the
# class's Canvas students by their ID, every other byte as Canvas wrote it; lin, whom the export
# does not list, is said. A run with nothing stale grades nobody and writes the class's files
gradebook_rows() { # gradebook_rows ALAN GRACE: the export with those cells
    printf '%s\r\n' 'Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (101),Workbook (4471),Current Score' \
        '    Points Possible,,,,,10,11,(read only)' \
        "\"Turing, Alan\",12345,alan,alan,Sec 1,9,$1,88" "\"Hopper, Grace\",555,grace,grace,Sec 1,7,$2,70" \
        'Test Student,99,,,,,,'
}
gradebook_rows "" 5 >"$tmp/gradebook.csv"
batch GRADEBOOK="$tmp/gradebook.csv" >"$tmp/run4.txt" 2>&1
gradebook_rows "$(cell alan total)" "$(cell grace total)" >"$tmp/gradebook-filled.csv"
check "GRADEBOOK= comes back as canvas.csv, the Workbook column filled (alan $(cell alan total), grace $(cell grace total)), all else as it was" \
    sh -c "cmp '$tmp/gradebook-filled.csv' '$out/canvas.csv' && grep -q ', 0 to grade' '$tmp/run4.txt'"
check "a Canvas student the export lacks is said (lin)" \
    grep -q "^batch: canvas.csv: the platform's file has no row for 777 " "$tmp/run4.txt"
refuses_gradebook() {
    batch GRADEBOOK="$tmp/gradebook.csv" ASSIGNMENT=Lab >"$tmp/run5.txt" 2>&1 && return 1
    grep -q 'GRADEBOOK=.*no column to fill' "$tmp/run5.txt" && ! grep -q 'to grade' "$tmp/run5.txt"
}
check "a gradebook without the assignment's column stops the batch before grading" refuses_gradebook

# ---------------------------------------------------------------- 4. the platform's own zip
# Moodle's "download all submissions" as it comes: a zip of the participants' folders and files
# (their times the platform's), given as SUBMISSIONS without unpacking it by hand
(cd "$class" && zip -q -r "$tmp/moodle-download.zip" "Ada Lovelace_1234_assignsubmission_file_" \
    "Mallory Evil_4321_assignsubmission_file_x_1234_assignsubmission_file_.zip")
# and Moodle's grading worksheet, whose "Last modified (submission)" says when Mallory's came
printf '%s\r\n' 'Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Online text,Last modified (grade),Feedback comments' \
    '"Participant 4321","Mallory Evil",m@example.org,"Submitted for grading",,,Yes,"Monday, 12 January 2026, 1:00 PM",,-,' \
    '"Participant 999","Dan Absent",d@example.org,"No submission",,,Yes,-,,-,' >"$tmp/worksheet.csv"
# (the first class as an earlier term's, for the similarity check: PAST=; mallory given 2 days
# more, the roster's fourth column)
mkdir -p "$tmp/past" && ln -s "$out" "$tmp/past/term-2025"
sed 's/^mallory,Mallory Evil,4321$/mallory,Mallory Evil,4321,2/' "$tmp/roster.csv" >"$tmp/roster-zip.csv"
env SUBMISSIONS="$tmp/moodle-download.zip" OUT="$tmp/out-zip" CONFIG="$conf" ROSTER="$tmp/roster-zip.csv" JOBS=2 \
    WORKSHEET="$tmp/worksheet.csv" PAST="$tmp/past" GRADER_SECRET=course-secret SANDBOX=none \
    sh "$root/grader/batch/batch.sh" >"$tmp/zip.txt" 2>&1
check "the Moodle zip given as SUBMISSIONS is graded: ada on time, mallory late by the worksheet, less her extension" \
    sh -c "grep -q '^ada,.*,graded,,2026-01-09 10:00,the platform download' '$tmp/out-zip/gradebook.csv' &&
        grep -q '^mallory,Mallory Evil,[0-9.]*,[0-9.]*,1,2,.*,graded,,2026-01-12 13:00,Moodle.s grading worksheet' \
        '$tmp/out-zip/gradebook.csv'"

# the worksheet given back filled: its Grade cells (Mallory's total, Dan's 0), every other byte
# as Moodle wrote it (no Last modified (grade) of the batch's, the feedback column untouched)
mt=$(sed 's/"[^"]*"/name/' "$tmp/out-zip/gradebook.csv" | awk -F, -v c="$(column_of total)" '$1 == "mallory" { print $c }')
printf '%s\r\n' 'Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,Last modified (submission),Online text,Last modified (grade),Feedback comments' \
    "\"Participant 4321\",\"Mallory Evil\",m@example.org,\"Submitted for grading\",$mt,,Yes,\"Monday, 12 January 2026, 1:00 PM\",,-," \
    '"Participant 999","Dan Absent",d@example.org,"No submission",0,,Yes,-,,-,' >"$tmp/worksheet-filled.csv"
check "WORKSHEET= comes back as moodle.csv, its Grade cells filled (mallory $mt, dan 0), all else as it was" \
    cmp "$tmp/worksheet-filled.csv" "$tmp/out-zip/moodle.csv"
check "the zip's class is Moodle's alone: no canvas.csv" [ ! -e "$tmp/out-zip/canvas.csv" ]
# each participant's grade.log as a feedback file, named as Moodle's feedback zip import reads it
feedback_zip() {
    unzip -Z1 "$tmp/out-zip/moodle-feedback.zip" | sort >"$tmp/feedback.txt" &&
        printf '%s\n' "Lovelace, Ada_1234_assignfeedback_file_/" "Lovelace, Ada_1234_assignfeedback_file_/grade.log" \
            "Mallory Evil_4321_assignfeedback_file_/" "Mallory Evil_4321_assignfeedback_file_/grade.log" |
        sort | cmp -s - "$tmp/feedback.txt" &&
        unzip -p "$tmp/out-zip/moodle-feedback.zip" "Mallory Evil_4321_assignfeedback_file_/grade.log" |
        cmp -s - "$tmp/out-zip/students/mallory/grade.log"
}
check "moodle-feedback.zip: each participant's grade.log in a NAME_NUMBER_assignfeedback_file_ folder" feedback_zip
check "similarity against an earlier term (PAST=): mallory beside the 2025 class's alan, no pair of two others" \
    sh -c "grep -q '^$ex	kernel.cl	(term-2025:alan)	mallory	' '$tmp/out-zip/similarity.tsv' &&
        ! grep -q '	(.*	(' '$tmp/out-zip/similarity.tsv'"

# every file the batches wrote for the instructor, read by a real parser (XML, CSV, JSON, HTML)
check "every output file parses (tests/outputs.sh: the class, the zip's class)" \
    sh -c "sh '$root/tests/outputs.sh' '$out' && sh '$root/tests/outputs.sh' '$tmp/out-zip'"

# ---------------------------------------------------------------- 5. the student's make submit
sh "$root/tests/submit.sh" || fails=$((fails + 1))

# ---------------------------------------------------------------- 6. Ctrl-C, kill, and resume
sh "$root/tests/course_interrupt.sh" || fails=$((fails + 1))
# The two parts that need the machine to themselves but for their own load (COURSE_QUIET=0
# leaves them out: .ci/run runs the rest beside its other lane, and these two after it):
if [ "${COURSE_QUIET:-1}" != 0 ]; then
    # a class of the capstone graded partly beside a busy machine: one maximum (issue 33)
    sh "$root/tests/course_capstone.sh" || fails=$((fails + 1))
    # the students' handout: no solutions, its own make grade and make test (issue 33)
    sh "$root/tests/course_handout.sh" || fails=$((fails + 1))
fi

if [ $fails -gt 0 ]; then
    for f in run1 status1 run2 status2 forced run3 status3 zip; do
        echo "---- $f"
        cat "$tmp/$f.txt" 2>/dev/null | tail -n 15
    done
    echo "---- gradebook"
    cat "$out/gradebook.csv"
fi
echo "course: $fails failed"
[ $fails -eq 0 ]
