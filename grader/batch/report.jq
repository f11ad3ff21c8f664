# report.jq - the data and the page of OUT/report.html (report.sh): jq -rs --arg part PART -f
# report.jq over one line per student, {id, status, log, r}: r is its results.json (null when it
# has none: a refused archive, a grader error). PART:
#   scores.tsv   percent range and students, for the histogram of totals
#   lost.tsv     rank, points lost by the class and the test, the tests that cost most
#   xtics        gnuplot's list of the exercises with GFLOP/s ('00_vadd' 0, ...)
#   gflops.tsv   x, GFLOP/s, and the reference's GFLOP/s measured beside it (0: none)
#   html         the page (--arg generated, --rawfile css, scores_svg, lost_svg, gflops_svg)
# Everything a student controls (ids, statuses, outputs, even a forged results.json) is hostile:
# in the page it goes through h, in gnuplot's data through tag, and numbers through num.

# ---------------------------------------------------------------- safe text
# HTML text: control characters (C0 but tab and line breaks, DEL, C1) and noncharacters (U+FDD0..
# U+FDEF, U+xFFFE and U+xFFFF of every plane: HTML's parse errors, and no text to anyone) as ?,
# code point by code point, then &<>'" escaped
def h: tostring | explode
  | map(if (. < 32 and . != 9 and . != 10 and . != 13) or (. >= 127 and . <= 159)
           or (. >= 55296 and . <= 57343) or (. >= 64976 and . <= 65007) or (. % 65536 >= 65534)
        then 63 else . end)
  | implode | @html;
# a label in a plot: a few harmless characters, short
def tag: tostring | gsub("[^A-Za-z0-9 ._:=,()/*+-]"; "?") | .[:56];
def num: if type == "number" then . elif type == "string" then (tonumber? // null) else null end;
def str: if type == "string" then . elif . == null then "" else tojson end;
def fmt2: . * 100 | round / 100 | tostring;

# ---------------------------------------------------------------- the class, normalized
# one student as the report reads it, whatever types its file holds
def student:
  (.r | if type == "object" then . else null end) as $r
  | {id: (.id | str), status: (.status | str), log: (.log == true), graded: ($r != null),
     missing: (.missing == true), name: (.name | str), stale: (.stale | str),
     late_days: (.late_days | str), penalty: (.penalty | str), final: (.final | num),
     submitted: (.submitted | str),
     score: (($r.score? | num) // 0), max: (($r.extra_data.max_score? | num) // 0),
     device: ($r.extra_data.device? | str),
     tests: [$r.tests? | arrays | .[] | objects
       | {name: (.name | str), ex: (.extra_data.exercise? | str), score: ((.score | num) // 0),
          max: ((.max_score | num) // 0), verdict: (.extra_data.verdict? | str),
          output: (.output | str)}],
     board: [$r.leaderboard? | arrays | .[] | objects | {name: (.name | str), v: (.value | num)}
       | select(.v != null)],
     ref: (($r.extra_data.reference_gflops? | objects | with_entries(.value |= num)) // {}),
     ratio: (($r.extra_data.ratio? | objects | with_entries(.value |= num)) // {})};
# percent of the total after the late penalty (final; the raw score where there is none), as
# every file of the batch shows it
def pct: if .max > 0 then 100 * (.final // .score) / .max else 0 end;
# a test's kind: its name without the exercise and with sizes as *, the same for every student
def kind: .name | sub("^[^:]*: "; "") | gsub("=[0-9x]+"; "=*");
# what the batch's status says before its reason: graded, refused, error, not graded
def status_kind: .status | split(":")[0];

# every student's GFLOP/s per exercise, with the reference's beside it, the ratio (x: the one the
# grader scored, extra_data.ratio; an older file's GFLOP/s over the reference's; null
# without either) and the ratio to the vendor's anchor ("<ex> x CLBlast" or
# "x OpenBLAS", with its name)
def speeds: [.[] | . as $s | .board[] | select(.name | endswith(" GFLOP/s"))
  | (.name | sub(" GFLOP/s$"; "")) as $e
  | ([$s.board[] | select(.name | startswith("\($e) x ")) | select(.name | test(" x [A-Za-z]+$"))][0]) as $vb
  | {id: $s.id, ex: $e, v: .v, ref: ($s.ref[$e] // null),
     x: ($s.ratio[$e] // (($s.ref[$e] // 0) as $r | if $r > 0 then .v / $r else null end)),
     vendor: ($vb.v // null), vendor_name: ($vb.name // "" | sub("^.* x "; ""))}];
def speed_exercises: [speeds[].ex] | unique;

# ---------------------------------------------------------------- the plots' data
def scores_tsv: [.[] | select(.graded) | pct / 10 | floor] as $bins
  | select($bins | length > 0) | range(0; 11) as $b
  | "\(if $b == 10 then "100" else "\($b * 10)-\($b * 10 + 9)" end)\t\([$bins[] | select(. == $b)] | length)";

def lost_rows: [.[] | select(.graded) | .id as $id | .tests[] | {name, lost: (.max - .score), id: $id}]
  | group_by(.name) | map({name: .[0].name, lost: (map(.lost) | add),
      students: (map(select(.lost > 0)) | length)})
  | map(select(.lost > 0)) | sort_by(-.lost, .name);
def lost_tsv: lost_rows[:15] | to_entries[] | "\(.key)\t\(.value.lost)\t\(.value.name | tag)";

def xtics: speed_exercises | to_entries | map("'\(.value | tag | .[:24])' \(.key)") | join(", ");
def gflops_tsv: speed_exercises as $exs | speeds[] | .ex as $e
  | "\($exs | index($e))\t\(.v)\t\(.ref // 0)";

# ---------------------------------------------------------------- the page
def link: if .missing then (.id | h) else "<a href=\"students/\(.id | @uri | h)/\(if .log then "grade.log" else "status" end)\">\(.id | h)</a>" end;
def plot($svg; $none): if ($svg | length) > 0 then "<figure>\($svg)</figure>" else "<p class=\"none\">\($none | h)</p>" end;
def table($head; rows): "<table><thead><tr>\($head | map("<th>\(h)</th>") | join(""))</tr></thead><tbody>",
  (rows | "<tr>\(map("<td>\(.)</td>") | join(""))</tr>"), "</tbody></table>";

def page: ($ARGS.named.css // "") as $css | ($ARGS.named.generated // "") as $generated
  | ($ARGS.named.scores_svg // "") as $scores_svg | ($ARGS.named.lost_svg // "") as $lost_svg
  | ($ARGS.named.gflops_svg // "") as $gflops_svg
  | . as $all | [.[] | select(.graded)] as $graded
  | ([$graded[].tests[].ex] | unique) as $exs
  | "<!DOCTYPE html>",
  "<html lang=\"en\"><head><meta charset=\"utf-8\">",
  # nothing may load: no script, font, image or connection, not even from this folder
  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">",
  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
  "<title>Batch report</title>", "<style>", $css, "</style></head><body>",
  "<h1>Batch report</h1>",
  "<p>\(length) student\(if length == 1 then "" else "s" end), \($graded | length) graded\([$all[] | select(.graded | not)] | if length > 0 then ", \(length) without a grade (see their status below)" else "" end); written \($generated | h).</p>",
  ([$graded[].device | select(. != "")] | unique | if length > 0 then "<p>Graded on \(join("; ") | h).</p>" else empty end),
  "<nav><a href=\"#students\">Students</a> <a href=\"#scores\">Scores</a> <a href=\"#lost\">Points lost</a> <a href=\"#failures\">Failures</a> <a href=\"#gflops\">GFLOP/s</a> <a href=\"#similarity\">Similarity</a></nav>",

  # every student, first: the table in each order a header offers, the one targeted shown
  "<section id=\"students\"><h2>Students</h2>",
  (if length > 0 then
    "<p>Click a header to sort. Late: days past the deadline and the points it cost; stale: a result graded from another upload, config or grader than the current ones (run make batch again).</p>",
    (["id", "name", "status", "score", "late", "stale"] as $keys
     | [["by-id", sort_by(.id)], ["by-name", sort_by(.name, .id)], ["by-status", sort_by(.status, .id)],
        ["by-score", sort_by((.graded | not), -(.final // .score), .id)], ["by-late", sort_by(-((.late_days | tonumber?) // 0), .id)],
        ["by-stale", sort_by(.stale == "", .id)]][] as [$order, $rows]
     | "<section id=\"\($order)\" class=\"order\">",
       (table(["student", "name", "status", "score", "raw", "late", "stale", "percent"] + $exs;
         $rows[] | . as $s
         | [link, (.name | h), (.status | h),
            (if .graded then "\(.final // .score)/\(.max)" else "-" end),
            (if .graded then "\(.score)" else "-" end),
            (if .late_days != "" then "<span class=\"flag\">\(.late_days | h) d\(if .penalty != "" then ", -\(.penalty | h)" else "" end)</span>" else "" end),
            (if .stale != "" then "<span class=\"flag\">stale</span>: \(.stale | h)" else "" end),
            (if .graded then pct | floor | tostring else "-" end)]
           + [$exs[] as $e | [$s.tests[] | select(.ex == $e)] | if length > 0 then "\(map(.score) | add)/\(map(.max) | add)" else "-" end])
       | sub("<thead><tr><th>student</th><th>name</th><th>status</th><th>score</th>";
             "<thead><tr><th><a href=\"#by-id\">student</a></th><th><a href=\"#by-name\">name</a></th><th><a href=\"#by-status\">status</a></th><th><a href=\"#by-score\">score</a></th>")
       | sub("<th>late</th><th>stale</th>"; "<th><a href=\"#by-late\">late</a></th><th><a href=\"#by-stale\">stale</a></th>")),
       "</section>")
  else "<p class=\"none\">No students in this batch.</p>" end),
  "</section>",

  "<section id=\"scores\"><h2>Score distribution</h2>",
  plot($scores_svg; "No student was graded."),
  (if ($exs | length) > 0 then
    "<h3>Per exercise</h3>",
    table(["exercise", "students", "mean", "max", "full marks", "zero"];
      $exs[] as $e | [$graded[] | {s: ([.tests[] | select(.ex == $e) | .score] | add),
                                   m: ([.tests[] | select(.ex == $e) | .max] | add)} | select(.m != null)]
      | [($e | h), length, (map(.s) | add / length | fmt2), (map(.m) | max),
         (map(select(.s == .m)) | length), (map(select(.s == 0)) | length)])
  else empty end),
  "</section>",

  "<section id=\"lost\"><h2>Points lost per test</h2>",
  "<p>The points every test cost the class, summed over the students, largest first.</p>",
  plot($lost_svg; "No test cost any points."),
  (lost_rows | if length > 0 then
    table(["test", "points lost", "students who lost points"]; .[] | [(.name | h), .lost, .students])
  else empty end),
  "</section>",

  "<section id=\"failures\"><h2>Most common failures</h2>",
  "<p>Tests that failed, by kind (sizes as *), with the students each caught and one of their messages; tests not run because an earlier one failed are left out. Students without a grade are counted by their status.</p>",
  ([$graded[] | .id as $id | .tests[] | select(.verdict == "fail") | {k: "\(.ex): \(kind)", id: $id, output}]
    + [$all[] | select(.graded | not) | {k: "status: \(status_kind)", id, output: .status}]
    | group_by(.k) | map({k: .[0].k, n: (map(.id) | unique | length), e: .[0]}) | sort_by(-.n, .k)
    | if length > 0 then
        table(["failure", "students", "example"];
          .[:20][] | [(.k | h), .n, "<span class=\"who\">\(.e.id | h)</span><pre>\(.e.output | .[:600] | h)</pre>"])
      else "<p class=\"none\">No failures.</p>" end),
  "</section>",

  "<section id=\"gflops\"><h2>GFLOP/s against the reference</h2>",
  "<p>Each student's kernel (dots) and the reference solution timed beside it in the same rounds (crosses), per exercise: the leaderboard's values. The tables rank by the ratio to that reference (raw GFLOP/s on a shared machine follow its load; the ratio of two kernels timed in the same rounds much less), students without the reference's figure last.</p>",
  plot($gflops_svg; "Nobody has GFLOP/s: no kernel was timed."),
  (speeds | group_by(.ex)[] | sort_by([(if .x == null then 1 else 0 end), -(.x // 0), -.v]) as $rows
    | ([$rows[] | select(.vendor != null) | .vendor_name][0] // null) as $vn
    | "<h3>\($rows[0].ex | h)</h3>",
      table(["rank", "student", "ratio", "GFLOP/s", "reference GFLOP/s"]
              + (if $vn != null then ["x \($vn)"] else [] end);
        $rows | to_entries[] | .value as $v
        | [.key + 1, ($v | link), ($v.x // "-" | if type == "number" then fmt2 else . end), ($v.v | fmt2),
           ($v.ref // "-" | if type == "number" then fmt2 else . end)]
          + (if $vn != null then [($v.vendor // "-" | tostring | h)] else [] end))),
  "</section>",

  "<section id=\"similarity\"><h2>Similarity</h2>",
  "<p>Pairs of students whose kernel.cl or main.c of an exercise are alike (Debian's sim_c on what each wrote, the skeleton's lines taken out; renamed names do not hide a copy): a reason to read both, never part of a score.</p>",
  ([($ARGS.named.similarity // "") | split("\n")[] | select(length > 0) | split("\t") | select(length == 5)]
   | if length > 0 then table(["exercise", "file", "student", "student", "percent"]; .[:200][] | map(h))
     else "<p class=\"none\">No pair above the threshold (or no similarity report: see make batch's output).</p>" end),
  "</section>",
  "</body></html>";

map(student) | ($ARGS.named.part // "") as $part
| if $part == "scores.tsv" then scores_tsv
  elif $part == "lost.tsv" then lost_tsv
  elif $part == "xtics" then xtics
  elif $part == "gflops.tsv" then gflops_tsv
  elif $part == "html" then page
  else error("report.jq: unknown part \($part)") end
