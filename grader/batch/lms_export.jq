# lms_export.jq - a batch's final scores as a learning platform imports them (class_files.sh):
# jq -rs -f lms_export.jq --arg to canvas|moodle [--arg assignment NAME] [--arg now TIME] over
# the class (class_files.sh's lines: id, name, lms, final, r, status). Only students with a
# platform number (lms, else an id of digits) get a row: the platforms match on it.
# Canvas: its gradebook import (Student, ID, SIS User ID, SIS Login ID, Section, an assignment
# column; a "Points Possible" row first). Moodle: an assignment's offline grading worksheet
# (Identifier "Participant N", Full name, Grade, Maximum Grade, Last modified (grade), Feedback
# comments): Moodle finds its columns by these names.
# Every cell as gradebook.jq's: no formula (a leading ', also before = + - @ after white space),
# quoted when it holds a comma, a quote or a line break, controls and noncharacters as ?.
def cell: (tostring | explode
    | map(if (. < 32 and . != 9 and . != 10 and . != 13) or (. >= 127 and . <= 159)
             or (. >= 55296 and . <= 57343) or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
          then 63 else . end) | implode)
  | (if test("^([\t\r]|\\s*[-=+@])") then "'" + . else . end)
  | if test("[,\"\r\n]") then "\"" + gsub("\""; "\"\""; "g") + "\"" else . end;
def number: if (.lms // "") != "" then .lms elif (.id | test("^[0-9]+$")) then .id else null end;
([.[] | .r.extra_data.max_score? | numbers] | group_by(.) | max_by(length)[0] // 0) as $max
| [.[] | select(number != null)] as $rows
| if $ARGS.named.to == "canvas" then
    (["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ($ARGS.named.assignment // "Workbook")] | map(cell) | join(",")),
    (["Points Possible", "", "", "", "", $max] | map(cell) | join(",")),
    ($rows[] | [(if .name != "" then .name else .id end), number, .id, "", "", .final] | map(cell) | join(","))
  else
    (["Identifier", "Full name", "Grade", "Maximum Grade", "Last modified (grade)", "Feedback comments"] | map(cell) | join(",")),
    ($rows[] | ["Participant \(number)", (if .name != "" then .name else .id end), .final, $max,
                ($ARGS.named.now // ""), .status] | map(cell) | join(","))
  end
