# summary.jq - summary.md of a batch (batch.sh): jq -rs --arg total N -f summary.jq over the
# students' results.json, each with its "student" id added. Scores, the most common failures,
# the fastest kernel of each exercise by its ratio to the reference, and for each exercise timed
# against a vendor (its "<exercise> x CLBlast" or "x OpenBLAS" leaderboard entries) its ten
# fastest students by that ratio.
# A results.json may come from an older grader or be forged, so everything shown from one goes
# through md: a table cell of one line (line breaks and tabs as spaces), DEL, the C0 and C1
# controls and the noncharacters (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF) as ?, and | < ` escaped so
# that a cell can neither split the table nor open markup or code in a Markdown renderer.
def md: if type == "string" then . else tojson end
  | explode
  | map(if . == 9 or . == 10 or . == 13 then 32
        elif . < 32 or (. >= 127 and . <= 159) or (. >= 55296 and . <= 57343)
             or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534) then 63
        else . end)
  | implode | gsub("(?<c>[\\|`])"; "\\\(.c)") | gsub("<"; "&lt;");
# the percent of the total after the late penalty (extra_data.late.total, which make batch writes;
# the raw score in a results.json without it), as every file of the batch shows it
def pct: if .extra_data.max_score > 0
  then (100 * (.extra_data.late.total? // .score) / .extra_data.max_score | floor) else 0 end;
# the ratio to the reference: the one the grader scored its point on and shows in its test and
# table (extra_data.ratio), else (an older results.json) the GFLOP/s over the reference's
def x_reference($ratio; $ref; $e; $v):
  (if ($ratio | type) == "object" and ($ratio[$e]? | type) == "number" then $ratio[$e]
   elif ($ref | type) == "object" and ($ref[$e]? | type) == "number" and $ref[$e] > 0 and ($v | type) == "number"
   then $v / $ref[$e] else null end)
  | if . == null then null else . * 100 | round / 100 end;
"# Batch summary\n",
"\(length) of \($total) student\(if $total == "1" then "" else "s" end) graded.\n",
# the device once, here (the gradebook has a column for it only when students differ)
([.[] | .extra_data.device? | strings] | unique | if length > 0 then "Graded on: \(join("; ") | md).\n" else empty end),
"## Scores (percent of the maximum, after the late penalty)\n",
"| range | students |", "|---|---:|",
(group_by(pct / 10 | floor) | .[] | (.[0] | pct / 10 | floor * 10) as $low
  | "| \(if $low == 100 then "100%" else "\($low)-\($low + 9)%" end) | \(length) |"),
"\n## Most common failures\n",
"| test | students |", "|---|---:|",
([.[] | [.tests[] | select(.status == "failed") | .name | sub("N=[0-9]+"; "N=*")] | unique[]]
  | group_by(.) | map({t: .[0], n: length}) | sort_by(-.n) | .[:10][] | "| \(.t | md) | \(.n | md) |"),
# ranked by the ratio to the reference timed in the same rounds (extra_data.reference_gflops): on a
# shared machine raw GFLOP/s follow the load, the ratio much less; a kernel without the reference's
# figure ranks after those with it
"\n## Fastest kernels (by the ratio to the reference timed beside them)\n",
"| exercise | student | x reference | GFLOP/s |", "|---|---|---:|---:|",
([.[] | .student as $s | (.extra_data.reference_gflops? // {}) as $ref | (.extra_data.ratio? // {}) as $ratio
  | .leaderboard[]?
  | select(.name | endswith(" GFLOP/s")) | (.name | sub(" GFLOP/s$"; "")) as $e
  | {e: $e, s: $s, v: .value, x: (x_reference($ratio; $ref; $e; .value))}]
  | group_by(.e) | map(max_by([.x // -1, .v])) | .[]
  | "| \(.e | md) | \(.s | md) | \(.x // "-" | md) | \(.v | md) |"),
# the rows timed against a vendor (their "<exercise> x <vendor>" entries: OpenBLAS on a CPU,
# CLBlast on a GPU): the ten fastest by that ratio, measured in the same rounds
([.[] | .student as $s | (.extra_data.reference_gflops? // {}) as $ref | (.extra_data.ratio? // {}) as $ratio
  | .leaderboard as $l | $l[]?
  | select(.name | test("^[^ ]+ x [A-Za-z]+$")) | (.name | capture("^(?<e>[^ ]+) x (?<w>[A-Za-z]+)$")) as $m
  | ([$l[] | select(.name == "\($m.e) GFLOP/s") | .value][0]) as $g
  | {e: $m.e, w: $m.w, s: $s, r: .value, g: $g,
     x: (if $g != null then x_reference($ratio; $ref; $m.e; $g) // "-" else "-" end)}]
  | group_by([.e, .w]) | .[] | sort_by(-.r) | .[:10] as $top
  | "\n## Fastest kernels of \($top[0].e | md) against \($top[0].w | md)\n",
    "| rank | student | x \($top[0].w | md) | x reference | GFLOP/s |", "|---:|---|---:|---:|---:|",
    ($top | to_entries[] | "| \(.key + 1) | \(.value.s | md) | \(.value.r | md) | \(.value.x | md) | \(.value.g | md) |"))
