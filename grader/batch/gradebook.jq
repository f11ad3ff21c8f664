# gradebook.jq - OUT/gradebook.csv of a batch (class_files.sh): jq -rs -f gradebook.jq over the
# class, one line a student {id, name, status, stale, late, upload, r} (r: results.json or null).
# A cell a spreadsheet would take for a formula (= + - @ first, or after leading white space, which
# an import may trim; a tab or a carriage return first; a student id may begin with -) gets a
# leading ', and one with a comma, a quote or a line break is quoted (RFC 4180). Controls (C0 but
# tab and line breaks, DEL, C1) and noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) become ?: a
# results.json may come from an older grader or be forged.
# (a number is never a formula: -1.5 stays a number a spreadsheet reads)
def cell: if type == "number" then tostring else
  (tostring | explode
    | map(if (. < 32 and . != 9 and . != 10 and . != 13) or (. >= 127 and . <= 159)
             or (. >= 55296 and . <= 57343) or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
          then 63 else . end) | implode)
  | (if test("^([\t\r]|\\s*[-=+@])") then "'" + . else . end)
  | if test("[,\"\r\n]") then "\"" + gsub("\""; "\"\"") + "\"" else . end
  end;
def num: if type == "number" then . else null end;
def ex_score($e): [.r.tests[]? | select(.extra_data.exercise == $e) | .score | num] | if length == 0 then "" else add end;
def gflops($e): [.r.leaderboard[]? | select(.name == "\($e) GFLOP/s") | .value][0] // "";
. as $all
# one maximum for every row: a student without a result (missing, empty, refused) has the class's
# (the one most results have: a batch grades everyone alike)
| ([.[] | .r.extra_data.max_score? | numbers] | group_by(.) | max_by(length)[0] // "") as $max
| ([.[] | .r.tests[]?.extra_data.exercise | strings] | unique) as $exs
| ([$exs[] as $e | select(any($all[]; .r.leaderboard[]? | .name == "\($e) GFLOP/s")) | $e]) as $timed
| ([.[] | .r.extra_data.device? | strings] | unique) as $devices
| (["student", "name"] + $exs + ["raw", "days late", "extension", "penalty", "adjustment", "total", "max", "left out", "status", "stale", "submitted", "submitted from"]
   + (if ($devices | length) > 1 then ["device"] else [] end) + [$timed[] | "\(.) GFLOP/s"] | map(cell) | join(",")),
  (.[] | . as $s
   | ([.id, .name] + [$exs[] as $e | $s | ex_score($e)]
      + [(.r.score // 0), (.late_days // ""), (.extension // ""), (.penalty // ""), (.adjustment // ""), (.final // 0), (.r.extra_data.max_score // $max),
         ([.r.extra_data.exercises // {} | to_entries[] | select(.value.left_out > 0) | "\(.key) \(.value.left_out)"] | join("; ")),
         .status, .stale, (.submitted // ""), (.submitted_from // "")]
      + (if ($devices | length) > 1 then [.r.extra_data.device // ""] else [] end)
      + [$timed[] as $e | $s | gflops($e)])
   | map(cell) | join(","))
