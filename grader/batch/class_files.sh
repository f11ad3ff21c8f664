#!/bin/sh
# grader/batch/class_files.sh - a batch's class files from the published results: OUT's
# gradebook.csv, summary.md, junit.xml and report.html, each written whole and then renamed into place. Both
# engines of `make batch` end with it: batch.sh when its students are graded, slurm.sh in the job
# that waits for the array (or when run again with nothing left to grade).
#
#   OUT=dir sh class_files.sh [--lock]    --lock: wait for OUT's batch lock first (a Slurm job;
#                                         batch.sh calls it holding the lock already)
#
# The class is the queue of the front end's last run (OUT/work/.queue); a student without a
# published result gets a row all the same, its status "not graded".
set -u
who="batch"
. "$(dirname "$0")/lib.sh"
out=${OUT:?class_files.sh: OUT is not set (run make batch)}
queue=$out/work/.queue
[ -f "$queue" ] || die "no queue in $out/work: run make batch first"
if [ "${1:-}" = --lock ]; then
    exec 9>"$out/.lock"
    flock -w 3600 9 || die "the lock $out/.lock was held for an hour: class files not written"
fi
total=$(($(wc -l <"$queue") + $(cat "$queue.missing" 2>/dev/null | wc -l)))

# ---------------------------------------------------------------- deadlines and late work
# The config's `deadline` (every exercise's), `ID.deadline`, `late.per_day`, `late.cap` (default
# 100) and `late.grace_minutes`; the grader ignores them, so changing them regrades nobody. The
# rule (grader/batch/README.md states it): an exercise handed in D days late (each day or part
# of one past its deadline, the student's extension and the grace) loses min(D * per_day, cap)
# percent of the points it earned; the total is the raw score less those penalties plus the
# roster's adjustment, to 2 decimals, within 0 and the maximum. Each student line gets
# submitted (when: a date a spreadsheet reads), submitted_from (what says so), late_days (the most of any exercise), penalty (points)
# and final (the total). Canvas's LATE flag counts as a day late when the time does not say so.
conf_value() { # conf_value KEY: its last value in CONFIG, comment and spaces off
    [ -n "${CONFIG:-}" ] && [ -f "$CONFIG" ] || return 0
    sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\([^#]*\).*/\1/p" "$CONFIG" | tail -n 1 |
        sed 's/[[:space:]]*$//'
}
deadlines=$(for key in deadline $(cd "$root/solutions" && ls -d [0-9][0-9]_* | sed 's/$/.deadline/'); do
    v=$(conf_value "$(printf '%s' "$key" | sed 's/\./\\./g')")
    [ -n "$v" ] && printf '%s\t%s\n' "${key%.deadline}" "$(date -d "$v" +%s)"
done | jq -Rs 'split("\n") | map(select(length > 0) | split("\t") | {(.[0]): (.[1] | tonumber)}) | add // {}')
late_penalty() {
    jq -c --argjson d "$deadlines" --argjson per_day "$(conf_value 'late\.per_day' | grep . || echo 0)" \
        --argjson cap "$(conf_value 'late\.cap' | grep . || echo 100)" \
        --argjson grace "$(conf_value 'late\.grace_minutes' | grep . || echo 0)" '
      def days($due): if .t == null or $due == null then 0
        else (.t - $due - (.extension // 0) * 86400 - $grace * 60) as $over
             | if $over > 0 then ($over / 86400 | ceil) else 0 end end;
      # (Canvas flags LATE by its own deadline: a student with an extension here is judged by it)
      . as $s | ($s.late == "canvas" and ($s.extension // 0) == 0) as $flagged
      | ([(.r.tests // [])[] | {e: .extra_data.exercise, p: .score}] | group_by(.e)
         | map(.[0].e as $e | {e: $e, p: (map(.p) | add), days: ($s | days($d[$e] // $d.deadline))}
               | if .days == 0 and $flagged then .days = 1 else . end
               | .pen = (.p * ([.days * $per_day, $cap] | min) / 100))) as $ex
      | ($s.r.extra_data.max_score? // null) as $max
      | $s + {submitted: (if $s.t == null then "" else $s.t | strflocaltime("%Y-%m-%d %H:%M") end),
              submitted_from: (if $s.t == null then "" else $s.how end),
              late_days: ([$ex[].days, (if $flagged then 1 else 0 end)] | max | if . > 0 then . else "" end),
              penalty: ([$ex[].pen] | add // 0 | . * 100 | round / 100 | if . > 0 then . else "" end),
              extension: (if ($s.extension // 0) > 0 then $s.extension else "" end),
              adjustment: (if ($s.adjustment // 0) != 0 then $s.adjustment else "" end),
              final: ((($s.r.score // 0) - ([$ex[].pen] | add // 0) + ($s.adjustment // 0)) * 100 | round / 100
                      | if . < 0 then 0 elif $max != null and . > $max then $max else . end)}'
}

# ---------------------------------------------------------------- the class, one line each
# $out/work/.class.jsonl: every student of the queue and every roster id without an entry, as
# {id, name, status, stale, late, upload, r}: r its results.json (null without one), stale why
# its result is stale ("" when current), late the Canvas flag ("canvas" or "")
class_json=$out/work/.class.jsonl
# (ids compared as strings here and below: awk would take 07 for 7 and give it 7's row)
roster_extra() { # roster_extra ID: the roster's EXTENSION<tab>ADJUSTMENT of ID (empty: none)
    awk -F '\t' -v id="$1" '$1 "" == id "" { print $4 "\t" $5; exit }' "$out/work/.roster" 2>/dev/null
}
BATCH_SETTINGS_STAMP=${BATCH_SETTINGS_STAMP:-$(batch_settings_stamp)}
{
    while IFS="$(printf '\t')" read -r id entry; do
        dir=$out/students/$id
        info=$(awk -F '\t' -v id="$id" '$1 "" == id "" { print; exit }' "$queue.info" 2>/dev/null)
        r=null
        jq -e 'type == "object" and (.tests | type == "array")' "$dir/results.json" >/dev/null 2>&1 &&
            r=$(jq -c . "$dir/results.json")
        stale=""
        [ -f "$queue.stamps" ] && stale=$(batch_stale "$id")
        when=$(awk -F '\t' -v id="$id" '$1 "" == id "" { print $2 "\t" $3; exit }' "$queue.times" 2>/dev/null)
        extra=$(roster_extra "$id")
        jq -nc --arg id "$id" --arg name "$(printf '%s' "$info" | cut -f2)" \
            --arg ext "$(printf '%s' "$extra" | cut -f1)" --arg adj "$(printf '%s' "$extra" | cut -f2)" \
            --arg t "$(printf '%s' "$when" | cut -f1)" --arg how "$(printf '%s' "$when" | cut -f2)" \
            --arg late "$(printf '%s' "$info" | cut -f4)" --arg upload "$(printf '%s' "$info" | cut -f5)" \
            --arg status "$(head -c 2000 "$dir/status" 2>/dev/null || echo "not graded")" \
            --arg platform "$(printf '%s' "$info" | cut -f6)" \
            --arg stale "$stale" --argjson r "$r" --arg lms "$(printf '%s' "$info" | cut -f3)" \
            '{id: $id, name: $name, status: (if $status == "" then "not graded" else $status end),
              stale: $stale, late: $late, upload: $upload, r: $r, lms: $lms, platform: $platform,
              extension: ($ext | tonumber? // 0), adjustment: ($adj | tonumber? // 0),
              t: ($t | tonumber? // null), how: $how}'
    done <"$queue"
    # (fields cut one by one: read with IFS=tab would take an empty lms's tab with the next)
    [ -f "$queue.missing" ] && while IFS= read -r line; do
        id=$(printf '%s' "$line" | cut -f 1) name=$(printf '%s' "$line" | cut -f 2)
        lms=$(printf '%s' "$line" | cut -f 3) why=$(printf '%s' "$line" | cut -f 4)
        extra=$(roster_extra "$id")
        jq -nc --arg id "$id" --arg name "$name" --arg status "$why" --arg lms "$lms" \
            --arg ext "$(printf '%s' "$extra" | cut -f1)" --arg adj "$(printf '%s' "$extra" | cut -f2)" \
            '{id: $id, name: $name, status: $status, stale: "", late: "", upload: "", r: null, lms: $lms,
              extension: ($ext | tonumber? // 0), adjustment: ($adj | tonumber? // 0)}'
    done <"$queue.missing"
} | late_penalty >"$class_json.tmp" && mv "$class_json.tmp" "$class_json" ||
    die "cannot write $class_json (the late penalty's settings in CONFIG?)"
# each graded student's results.json gets the same total: extra_data.late = {days, penalty,
# total}, beside the grader's own (raw) score, which the penalty is computed from again each run
jq -r 'select(.r != null) | [.id, ({days: (.late_days | numbers // 0), penalty: (.penalty | numbers // 0),
        extension_days: (.extension | numbers // 0), adjustment: (.adjustment | numbers // 0),
        total: .final} | tojson)] | @tsv' "$class_json" |
    while IFS="$(printf '\t')" read -r id late; do
        f=$out/students/$id/results.json
        jq --argjson late "$late" '.extra_data.late = $late' "$f" >"$f.tmp" && mv "$f.tmp" "$f" ||
            die "cannot write $f"
    done

# ---------------------------------------------------------------- gradebook
# Every column but status, stale and name comes from the student's results.json (the grader's
# data: each test's exercise and verdict, the device), never from the wording of its log. Columns
# for the exercises someone was graded on only; the device once, in summary.md and report.html
# (a column only when students were graded on different devices). `left out`: the points of each
# exercise the grader could not run on its machine with its flags (a tool, a device feature or a
# switch), out of `max`: the same for every student graded alike. Every cell is safe to open in
# a spreadsheet (gradebook.jq).
jq -rs -f "$root/grader/batch/gradebook.jq" "$class_json" >"$out/gradebook.csv.tmp" &&
    mv "$out/gradebook.csv.tmp" "$out/gradebook.csv" || die "cannot write $out/gradebook.csv"
csv=$out/gradebook.csv
# the uploads that are nobody's (a name read two ways, an id taken twice, not an upload): the
# instructor's to sort out, one a line with the reason
cp "$queue.skipped" "$out/skipped.txt.tmp" 2>/dev/null || : >"$out/skipped.txt.tmp"
mv "$out/skipped.txt.tmp" "$out/skipped.txt" || die "cannot write $out/skipped.txt"

# ---------------------------------------------------------------- the platforms' grade imports
# The totals in the import format of the platform the class came from (lms_export.jq): Canvas's
# gradebook CSV (canvas.csv) or Moodle's offline grading worksheet (moodle.csv), never both: a
# student's platform is their download's, and the roster's students without an upload take the
# class's (the one platform its downloads show, or PLATFORM=moodle|canvas). ASSIGNMENT (default
# "Workbook") names Canvas's column: an existing assignment's "Name (id)" updates it, a new name
# adds one. A file the class has no row for is not written (an older one is removed). With
# WORKSHEET= (Moodle's grading worksheet, as downloaded) moodle.csv is that worksheet filled in;
# with GRADEBOOK= (Canvas's gradebook export, as downloaded) canvas.csv is that export filled in.
for to in canvas moodle; do
    jq -rs -f "$root/grader/batch/lms_export.jq" --arg to "$to" --arg assignment "${ASSIGNMENT:-Workbook}" \
        --arg platform "${PLATFORM:-}" "$class_json" >"$out/$to.csv.tmp" ||
        die "cannot write $out/$to.csv"
    if [ -s "$out/$to.csv.tmp" ] && [ "$to" = moodle ] && [ -n "${WORKSHEET:-}" ]; then
        # the worksheet the instructor downloaded, its Grade cells filled and every other byte
        # kept: its Last modified (grade) is Moodle's, so the import keeps a grade edited in
        # Moodle after the download, and each feedback comment stays
        jq -rs -f "$root/grader/batch/lms_export.jq" --arg to moodle-grades --arg platform "${PLATFORM:-}" \
            "$class_json" >"$out/work/.grades" &&
            "${intake:-$root/build/grader/intake}" worksheet-fill "$WORKSHEET" "$out/work/.grades" \
                >"$out/moodle.csv.tmp" 2>"$out/work/.fill.err" &&
            mv "$out/moodle.csv.tmp" "$out/moodle.csv" ||
            die "cannot fill WORKSHEET=$WORKSHEET: $(tail -n 1 "$out/work/.fill.err")"
    elif [ -s "$out/$to.csv.tmp" ] && [ "$to" = canvas ] && [ -n "${GRADEBOOK:-}" ]; then
        # Canvas's gradebook export as downloaded, the assignment's column filled by each
        # student's Canvas ID and every other byte kept (the other assignments, Points Possible)
        jq -rs -f "$root/grader/batch/lms_export.jq" --arg to canvas-grades --arg platform "${PLATFORM:-}" \
            "$class_json" >"$out/work/.grades" &&
            "${intake:-$root/build/grader/intake}" gradebook-fill "$GRADEBOOK" "${ASSIGNMENT:-Workbook}" \
                "$out/work/.grades" >"$out/canvas.csv.tmp" 2>"$out/work/.fill.err" &&
            mv "$out/canvas.csv.tmp" "$out/canvas.csv" ||
            die "cannot fill GRADEBOOK=$GRADEBOOK: $(grep -v '^intake: [0-9]' "$out/work/.fill.err" | tail -n 1)"
    elif [ -s "$out/$to.csv.tmp" ]; then
        mv "$out/$to.csv.tmp" "$out/$to.csv" || die "cannot write $out/$to.csv"
    else
        rm -f "$out/$to.csv.tmp" "$out/$to.csv"
    fi
    # a student the platform's own file has no row for (enrolled after its download) is said
    if [ -f "$out/work/.fill.err" ]; then
        missing=$(sed -n 's/^intake: no row for //p' "$out/work/.fill.err" | tr '\n' ' ')
        [ -z "$missing" ] || say "batch: $to.csv: the platform's file has no row for $missing(download it again to include them)" >&2
        rm -f "$out/work/.fill.err"
    fi
done
# Moodle's feedback files: each student's grade.log in the zip that the assignment's "Upload
# multiple feedback files in a zip" takes (a folder NAME_NUMBER_assignfeedback_file_ per
# participant: Moodle reads the number after the first _, so a name's own _ becomes a blank)
rm -f "$out/moodle-feedback.zip"
if [ -s "$out/moodle.csv" ]; then
    stage=$out/work/.feedback
    rm -rf "$stage" && mkdir -p "$stage" || die "cannot write $stage"
    jq -rs -f "$root/grader/batch/lms_export.jq" --arg to moodle-feedback --arg platform "${PLATFORM:-}" \
        "$class_json" | while IFS="$(printf '\t')" read -r id number name; do
        [ -f "$out/students/$id/grade.log" ] || continue
        folder="$(printf '%s' "$name" | sed 's/[_/\\[:cntrl:]]/ /g; s/^[.~ ]*//')_${number}_assignfeedback_file_"
        mkdir -p "$stage/$folder" && cp "$out/students/$id/grade.log" "$stage/$folder/grade.log"
    done
    if [ -n "$(ls "$stage")" ]; then
        (cd "$stage" && zip -qr "$out/moodle-feedback.zip.tmp" .) &&
            mv "$out/moodle-feedback.zip.tmp" "$out/moodle-feedback.zip" ||
            echo "batch: no moodle-feedback.zip (zip failed)" >&2
    fi
    rm -rf "$stage"
fi
unplaced=$(jq -rs -f "$root/grader/batch/lms_export.jq" --arg to unplaced --arg platform "${PLATFORM:-}" \
    "$class_json" 2>/dev/null)
[ -z "$unplaced" ] || say "batch: in no platform's import (their platform is not known: the class" \
    "mixes Moodle's and Canvas's downloads or is neither's; PLATFORM=moodle or canvas says which): $unplaced" >&2

# ---------------------------------------------------------------- summary and JUnit
# every published results.json that is an object with a list of tests (an older grader's or a
# forged one may be anything: one that is not is left out here, as the gradebook leaves it out)
all_json=$(while IFS="$(printf '\t')" read -r id entry; do
    f=$out/students/$id/results.json
    [ -s "$f" ] && jq -c --arg id "$id" 'select(type == "object" and (.tests | type == "array"))
        | . + {student: $id}' "$f" 2>/dev/null
done <"$queue")

printf '%s\n' "$all_json" | jq -rs --arg total "$total" -f "$root/grader/batch/summary.jq" \
    >"$out/summary.md.tmp" 2>"$out/summary.md.err" && mv "$out/summary.md.tmp" "$out/summary.md" ||
    say "batch: no summary.md: $(tail -n 1 "$out/summary.md.err")" >&2
rm -f "$out/summary.md.tmp" "$out/summary.md.err"

# JUnit's XML: the grader has made each output safe already, but a results.json may come from an
# older grader (or be forged), so every string is mapped again, code point by code point: what
# lies outside XML 1.0's Char production (C0 controls but tab, LF and CR; U+FFFE, U+FFFF) makes
# the file unreadable, and DEL, the C1 controls (U+0080..U+009F) and the other noncharacters
# (U+FDD0..U+FDEF, U+xFFFE and U+xFFFF of every plane) are no text either: each becomes ?. Then
# &<>'" are escaped, which also keeps a ]]> from closing anything. Numbers go through it too: a
# forged score may be a string.
printf '%s\n' "$all_json" | jq -rs '
  def xml: if type == "string" then . elif . == null then "" else tojson end
    | explode
    | map(if (. < 32 and . != 9 and . != 10 and . != 13) or (. >= 127 and . <= 159)
             or (. >= 55296 and . <= 57343) or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
          then 63 else . end)
    | implode | @html;
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
  "<testsuites>",
  (.[] | [.tests[] | objects] as $tests
    | "  <testsuite name=\"\(.student | xml)\" tests=\"\($tests | length)\" failures=\"\([$tests[] | select(.status == "failed")] | length)\">",
    ($tests[] | "    <testcase classname=\"\(.extra_data.exercise? // "" | xml)\" name=\"\(.name | xml)\">" +
      (if .status == "failed" then "<failure message=\"\(.score | xml)/\(.max_score | xml)\">\(.output | xml)</failure>" else "" end) +
      "</testcase>"),
    "  </testsuite>"),
  "</testsuites>"
' >"$out/junit.xml.tmp" 2>/dev/null && mv "$out/junit.xml.tmp" "$out/junit.xml"

# pairs of alike kernels and host programs, for the instructor to read (never a score)
sh "$root/grader/batch/similarity.sh" "$out" || echo "batch: no similarity report" >&2

# the class at a glance, one page (report.sh); without it the other files stand (a node without
# gnuplot, say), and the reason is said
if sh "$root/grader/batch/report.sh" "$out" >/dev/null 2>"$out/work/report.err"; then
    report=", report $out/report.html"
else
    report=""
    say "batch: no report.html: $(tail -n 1 "$out/work/report.err")" >&2
fi
rm -f "$out/work/report.err"
echo "batch: gradebook $csv (imports: $out/canvas.csv, $out/moodle.csv$([ -f "$out/moodle-feedback.zip" ] && echo ", feedback $out/moodle-feedback.zip")), summary $out/summary.md, JUnit $out/junit.xml$report"
