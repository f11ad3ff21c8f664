# summary.jq - summary.md of a batch (batch.sh): jq -rs --arg total N -f summary.jq over the
# students' results.json, each with its "student" id added. Scores, the most common failures,
# the fastest kernel of each exercise, and for each exercise timed against the vendors (its
# "<exercise> x CLBlast" leaderboard entries) its ten fastest students.
def pct: if .extra_data.max_score > 0 then (100 * .score / .extra_data.max_score | floor) else 0 end;
"# Batch summary\n",
"\(length) of \($total) students graded.\n",
# the device once, here (the gradebook has a column for it only when students differ)
([.[] | .extra_data.device? | strings] | unique | if length > 0 then "Graded on: \(join("; ")).\n" else empty end),
"## Scores (percent of the maximum)\n",
"| range | students |", "|---|---:|",
(group_by(pct / 10 | floor) | .[] | (.[0] | pct / 10 | floor * 10) as $low
  | "| \(if $low == 100 then "100%" else "\($low)-\($low + 9)%" end) | \(length) |"),
"\n## Most common failures\n",
"| test | students |", "|---|---:|",
([.[] | [.tests[] | select(.status == "failed") | .name | sub("N=[0-9]+"; "N=*")] | unique[]]
  | group_by(.) | map({t: .[0], n: length}) | sort_by(-.n) | .[:10][] | "| \(.t) | \(.n) |"),
"\n## Fastest kernels\n",
"| exercise | student | GFLOP/s |", "|---|---|---:|",
([.[] | .student as $s | .leaderboard[]? | select(.name | endswith(" GFLOP/s"))
  | {e: .name, s: $s, v: .value}] | group_by(.e)
  | map(max_by(.v)) | .[] | "| \(.e | sub(" GFLOP/s"; "")) | \(.s) | \(.v) |"),
# the rows timed against the vendors (their "<exercise> x CLBlast" entries): the ten fastest
([.[] | .student as $s | .leaderboard as $l | $l[]? | select(.name | endswith(" x CLBlast"))
  | (.name | sub(" x CLBlast$"; "")) as $e
  | {e: $e, s: $s, r: .value, g: ([$l[] | select(.name == "\($e) GFLOP/s") | .value][0])}]
  | group_by(.e) | .[] | sort_by(-.r) | .[:10] as $top
  | "\n## Fastest kernels of \($top[0].e) against CLBlast\n",
    "| rank | student | GFLOP/s | x CLBlast |", "|---:|---|---:|---:|",
    ($top | to_entries[] | "| \(.key + 1) | \(.value.s) | \(.value.g) | \(.value.r) |"))
