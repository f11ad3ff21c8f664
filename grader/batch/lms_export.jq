# lms_export.jq - a batch's totals as the class's learning platform imports them (class_files.sh):
# jq -rs -f lms_export.jq --arg to canvas|moodle|unplaced [--arg assignment NAME]
# [--arg platform moodle|canvas] over the class (class_files.sh's lines: id, name, lms, platform,
# final, r, status). A student's platform is their download's (moodle or canvas); one without an
# upload, or with one named otherwise, takes the class's: --arg platform, else the one platform
# the class's downloads show (none when they show both or neither). Only students of the file's
# platform with a platform number (lms, else an id of digits) get a row: the platform matches on
# it. No row and not the class's platform: nothing is printed (class_files.sh writes no file).
# --arg to unplaced: the students with a number but no known platform, in a class whose
# downloads show one (an instructor's to place), on one line. --arg to moodle-grades (or
# canvas-grades): that platform's rows as NUMBER<tab>TOTAL, which `intake worksheet-fill` writes
# into the instructor's worksheet (`intake gradebook-fill`: Canvas's gradebook export).
# --arg to moodle-feedback: Moodle's rows as ID<tab>NUMBER<tab>NAME, for the feedback files' zip.
# Canvas: its gradebook import (Student, ID, SIS User ID, SIS Login ID, Section, an assignment
# column; a "Points Possible" row first). Moodle: an assignment's offline grading worksheet
# (Identifier "Participant N", Full name, Grade, Maximum Grade), found by these names. No
# "Feedback comments" (it would replace each student's comment) and no "Last modified (grade)"
# (the batch's time would pass Moodle's check against grades edited in Moodle before it).
# Every cell as gradebook.jq's: no formula (a leading ', also before = + - @ after white space),
# quoted when it holds a comma, a quote or a line break, controls and noncharacters as ?.
# (a number is never a formula: -1.5 stays a number a spreadsheet reads)
def cell: if type == "number" then tostring else
  (tostring | explode
    | map(if (. < 32 and . != 9 and . != 10 and . != 13) or (. >= 127 and . <= 159)
             or (. >= 55296 and . <= 57343) or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
          then 63 else . end) | implode)
  | (if test("^([\t\r]|\\s*[-=+@])") then "'" + . else . end)
  | if test("[,\"\r\n]") then "\"" + gsub("\""; "\"\""; "g") + "\"" else . end
  end;
def number: if (.lms // "") != "" then .lms elif (.id | test("^[0-9]+$")) then .id else null end;
def known: . == "moodle" or . == "canvas";
([.[] | .r.extra_data.max_score? | numbers] | group_by(.) | max_by(length)[0] // 0) as $max
| ([.[] | .platform // "" | select(known)] | unique) as $seen
| (($ARGS.named.platform // "") as $p
   | if ($p | known) then $p elif ($seen | length) == 1 then $seen[0] else null end) as $class
| [.[] | select(number != null) | . + {to: (if (.platform // "" | known) then .platform else $class end)}] as $all
| $ARGS.named.to as $to
| [$all[] | select(.to == ($to | sub("-(grades|feedback)$"; "")))] as $rows
| if $to == "moodle-grades" or $to == "canvas-grades" then $rows[] | "\(number)\t\(.final)"
  elif $to == "moodle-feedback" then
    $rows[] | "\(.id)\t\(number)\t\(if .name != "" then .name else .id end | gsub("[\t\r\n]"; " "))"
  elif $to == "unplaced" then
    [$all[] | select(.to == null) | .id] | select(length > 0 and ($seen | length) > 0) | join(", ")
  elif ($rows | length) == 0 and $class != $to then empty
  elif $to == "canvas" then
    (["Student", "ID", "SIS User ID", "SIS Login ID", "Section", ($ARGS.named.assignment // "Workbook")] | map(cell) | join(",")),
    (["Points Possible", "", "", "", "", $max] | map(cell) | join(",")),
    ($rows[] | [(if .name != "" then .name else .id end), number, .id, "", "", .final] | map(cell) | join(","))
  else
    (["Identifier", "Full name", "Grade", "Maximum Grade"] | map(cell) | join(",")),
    ($rows[] | ["Participant \(number)", (if .name != "" then .name else .id end), .final, $max] | map(cell) | join(","))
  end
