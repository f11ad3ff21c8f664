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
total=$(wc -l <"$queue")
exercises=$(cd "$root/solutions" && ls -d [0-9][0-9]_*)

# ---------------------------------------------------------------- gradebook
csv=$out/gradebook.csv
# every column but the status comes from the student's results.json (the grader's data: each
# test's exercise and verdict, the device), never from the wording of its log. `left out`: the
# points of each exercise the grader could not run on its machine with its flags (a tool, a
# device feature or a switch), out of `max`: the same for every student graded alike
# One gradebook cell, safe to open in a spreadsheet: text that would start a formula (= + - @, a
# tab or a carriage return; a student id may begin with -) gets a leading ', and a cell with a
# comma, a quote or a line break is quoted (RFC 4180).
cr=$(printf '\r')
nl=$(printf '\nx') nl=${nl%x}
cell() { # cell TEXT
    text=$1
    case $text in [-=+@]* | "	"* | "$cr"*) text="'$text" ;; esac
    case $text in
    *[,\"]* | *"$cr"* | *"$nl"*) printf '"%s"' "$(printf '%s' "$text" | sed 's/"/""/g')" ;;
    *) printf '%s' "$text" ;;
    esac
}
{
    printf 'student'
    for ex in $exercises; do printf ',%s' "$ex"; done
    printf ',total,max,left out,status,device'
    for ex in $exercises; do printf ',%s GFLOP/s' "$ex"; done
    printf '\n'
    while IFS="$(printf '\t')" read -r id entry; do
        dir=$out/students/$id
        status=$(cat "$dir/status" 2>/dev/null || echo "not graded")
        device=$(jq -r '.extra_data.device // empty' "$dir/results.json" 2>/dev/null)
        cell "$id"
        for ex in $exercises; do
            printf ',%s' "$(jq -r --arg e "$ex" '[.tests[] | select(.extra_data.exercise == $e) | .score] |
                if length == 0 then "" else add end' "$dir/results.json" 2>/dev/null)"
        done
        printf ',%s,%s,%s,%s,%s' "$(jq -r .score "$dir/results.json" 2>/dev/null || echo 0)" \
            "$(jq -r .extra_data.max_score "$dir/results.json" 2>/dev/null)" \
            "$(cell "$(jq -r '[.extra_data.exercises // {} | to_entries[] | select(.value.left_out > 0)
                | "\(.key) \(.value.left_out)"] | join("; ")' "$dir/results.json" 2>/dev/null)")" \
            "$(cell "$status")" "$(cell "$device")"
        for ex in $exercises; do
            printf ',%s' "$(jq -r --arg e "$ex GFLOP/s" '.leaderboard[] | select(.name == $e) | .value' \
                "$dir/results.json" 2>/dev/null)"
        done
        printf '\n'
    done <"$queue"
} >"$csv.tmp" && mv "$csv.tmp" "$csv"

# ---------------------------------------------------------------- summary and JUnit
all_json=$(while IFS="$(printf '\t')" read -r id entry; do
    f=$out/students/$id/results.json
    [ -s "$f" ] && jq -c --arg id "$id" '. + {student: $id}' "$f" 2>/dev/null
done <"$queue")

printf '%s\n' "$all_json" | jq -rs --arg total "$total" -f "$root/grader/batch/summary.jq" \
    >"$out/summary.md.tmp" 2>/dev/null && mv "$out/summary.md.tmp" "$out/summary.md"

# XML 1.0 has no place for control characters other than tab and line breaks: they become ?
printf '%s\n' "$all_json" | jq -rs '
  def xml: gsub("[\u0001-\u0008\u000b\u000c\u000e-\u001f]"; "?") | @html;
  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
  "<testsuites>",
  (.[] | "  <testsuite name=\"\(.student | xml)\" tests=\"\(.tests | length)\" failures=\"\([.tests[] | select(.status == "failed")] | length)\">",
    (.tests[] | "    <testcase classname=\"\(.extra_data.exercise | xml)\" name=\"\(.name | xml)\">" +
      (if .status == "failed" then "<failure message=\"\(.score)/\(.max_score)\">\(.output | xml)</failure>" else "" end) +
      "</testcase>"),
    "  </testsuite>"),
  "</testsuites>"
' >"$out/junit.xml.tmp" 2>/dev/null && mv "$out/junit.xml.tmp" "$out/junit.xml"

# the class at a glance, one page (report.sh); without it the other files stand (a node without
# gnuplot, say), and the reason is said
if sh "$root/grader/batch/report.sh" "$out" >/dev/null 2>"$out/work/report.err"; then
    report=", report $out/report.html"
else
    report=""
    echo "batch: no report.html: $(tail -n 1 "$out/work/report.err")" >&2
fi
rm -f "$out/work/report.err"
echo "batch: gradebook $csv, summary $out/summary.md, JUnit $out/junit.xml$report"
