#!/bin/sh
# tests/report.sh [OUT] - the batch's report.html (grader/batch/report.sh), opened in headless
# Chromium.
#
#   sh tests/report.sh OUT   the report of that finished batch (e.g. the hostile class's)
#   sh tests/report.sh       a class of its own: `make batch EX=00_vadd` of the solution, the
#                            skeleton and a refused archive, then hand-written students added to
#                            its OUT (a forged results.json full of markup, a status with markup,
#                            results that are not JSON); also an empty class and one without GFLOP/s
#
# Checks: the page renders (Chromium's DOM holds every section and every student, linked to their
# log), has its plots (svg), Chromium logs no console message (the page has no script: any message
# is an error or a blocked load), attempts no network request (its net log), and no markup of a
# student's survives: only the page's own tags, no control characters, links only to the
# students' logs. A page with a deliberate script error and an image from the network proves
# first that those two checks catch what they look for. The screenshot of the report is kept as
# $ARTIFACTS/report.png (default results/test-artifacts/report.png).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts=${ARTIFACTS:-$root/results/test-artifacts}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check_label=report
. "$root/tests/check.sh"
command -v chromium >/dev/null 2>&1 ||
    { echo "FAIL report: chromium is missing: apt-get install chromium (make deps-test as root)"; exit 1; }

# ---------------------------------------------------------------- the browser
# browse NAME PAGE [SHOT]: PAGE opened headless, its DOM in NAME.dom, Chromium's log in NAME.err,
# its net log in NAME.net, and a screenshot in SHOT. As root Chromium needs --no-sandbox; a
# private profile, no background traffic of its own (what is left of it is marked as nobody's
# page: initiator "not an origin").
browse() {
    set -- "$1" "$2" "${3:-$tmp/$1.png}"
    timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/profile-$1" --enable-logging=stderr --v=0 \
        --log-net-log="$tmp/$1.net" --window-size=1280,3000 --screenshot="$3" --dump-dom \
        "file://$2" >"$tmp/$1.dom" 2>"$tmp/$1.err"
}
# the console's messages of NAME's page (Chromium logs them as INFO:CONSOLE)
console() { grep 'CONSOLE' "$tmp/$1.err"; }
# the URLs NAME's page asked for over the network; fails when there is no readable net log
requests() {
    jq -r '.constants.logEventTypes.URL_REQUEST_START_JOB as $t | .events[]
        | select(.type == $t and .params.url != null and .params.initiator != "not an origin")
        | .params.url' "$tmp/$1.net"
}
quiet() { ! console "$1" >/dev/null; }
offline() { got=$(requests "$1") && [ -z "$got" ]; }

# the checks can fail: a script error and an image from the network, without a CSP to stop them
printf '%s\n' '<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head><body>' \
    '<img src="http://report-test.invalid/x.png" alt=""><script>no_such_function();</script>' \
    '</body></html>' >"$tmp/bad.html"
browse bad "$tmp/bad.html"
caught_error() { console bad | grep -q no_such_function; }
caught_request() { requests bad | grep -q '^http://report-test.invalid/'; }
check "the console check catches a script error" caught_error
check "the network check catches a request" caught_request

# ---------------------------------------------------------------- the class
hostile='<script>alert(1)</script><img src=x onerror=alert(2)>"><svg onload=alert(3)></pre></td></table><h1>X'
if [ -n "${1:-}" ]; then
    out=$(cd "$1" && pwd) || { echo "FAIL report: no folder $1"; exit 1; }
    own=0
else
    own=1
    class=$tmp/class
    out=$tmp/out
    mkdir -p "$class/good/00_vadd" "$class/skeleton" "$tmp/x/y"
    cp "$root/solutions/00_vadd/main.c" "$root/solutions/00_vadd/kernel.cl" "$class/good/00_vadd/"
    sh "$root/tests/skeletons.sh" "$tmp/skeletons" >/dev/null &&
        cp -r "$tmp/skeletons/00_vadd" "$class/skeleton/"
    echo x >"$tmp/x/kernel.cl"
    tar -czf "$class/refused.tar.gz" -C "$tmp/x/y" --absolute-names ../kernel.cl
    started=$(date +%s)
    make -s -C "$root" batch SUBMISSIONS="$class" OUT="$out" EX=00_vadd JOBS=2 SANDBOX=none \
        GRADER_SECRET=report-test >"$tmp/batch.txt" 2>&1
    check "make batch of 3 students ($(($(date +%s) - started)) s)" \
        test -f "$out/students/good/status" -a -f "$out/students/refused/status"
    # hand-written students: what a forged or broken file could hold (the grader itself never
    # writes markup's reach: its outputs are its own text and the student's program's)
    s=$out/students
    mkdir -p "$s/hostile.1" "$s/err-2" "$s/junk_3" "$s/broken_4" "$s/.old-good" "$s/bad<id>"
    jq -n --arg x "$hostile" '{score: 3, extra_data: {max_score: 8, device: "<iframe src=\"http://evil.invalid/\">",
        reference_gflops: {"00_vadd": 4.25}},
      tests: [{name: "00_vadd: correct at N=1", score: 0, max_score: 1, status: "failed",
               output: ($x + "\u0001\u009b[31m & &amp;"), extra_data: {exercise: "00_vadd", verdict: "fail"}},
              {name: ("00_vadd: " + $x), score: 3, max_score: 7, status: "failed", output: $x,
               extra_data: {exercise: $x, verdict: "fail"}}],
      leaderboard: [{name: "00_vadd GFLOP/s", value: 3.5}, {name: ($x + " GFLOP/s"), value: 2},
                    {name: "00_vadd x CLBlast", value: "<b>"}]}' >"$s/hostile.1/results.json"
    echo graded >"$s/hostile.1/status"
    printf '%s\n' "$hostile" >"$s/hostile.1/grade.log"
    printf 'error: the grader exited with status 2: %s &amp;\n' "$hostile" >"$s/err-2/status"
    echo '{"score": "<b>", "tests": "none"}' >"$s/junk_3/results.json"
    echo graded >"$s/junk_3/status"
    echo "not json $hostile" >"$s/broken_4/results.json"
    echo graded >"$s/broken_4/status"
    echo graded >"$s/.old-good/status"
    echo graded >"$s/bad<id>/status"
    # two where raw GFLOP/s and the ratio to the reference disagree: the table ranks by the ratio
    for who in raw.5:9:90 ratio.6:1:0.5; do
        id=${who%%:*} g=${who#*:} g=${g%%:*} r=${who##*:}
        mkdir -p "$s/$id"
        jq -n --argjson g "$g" --argjson r "$r" '{score: 1, extra_data: {max_score: 8,
            reference_gflops: {"00_vadd": $r}}, tests: [],
          leaderboard: [{name: "00_vadd GFLOP/s", value: $g}]}' >"$s/$id/results.json"
        echo graded >"$s/$id/status"
        echo log >"$s/$id/grade.log"
    done
fi

# ---------------------------------------------------------------- the report
started=$(date +%s)
check "report.sh writes the page, nothing on stderr" \
    sh -c "sh '$root/grader/batch/report.sh' '$out' >/dev/null 2>'$tmp/report.sh.err' && ! grep -q . '$tmp/report.sh.err'"
cat "$tmp/report.sh.err"
page=$out/report.html
mkdir -p "$artifacts"
browse report "$page" "$artifacts/report.png"
check "Chromium renders it, and the screenshot is kept ($artifacts/report.png)" \
    test -s "$tmp/report.dom" -a -s "$artifacts/report.png"
check "no console message (no error, no blocked load)" quiet report
console report | head -n 5
check "no network request" offline report
requests report | head -n 5
for section in scores lost failures gflops students; do
    check "section $section" grep -q "<section id=\"$section\">" "$tmp/report.dom"
done
# every student of OUT, linked to its log (or its status where it has none), and nobody else
missing=""
students=0
for dir in "$out"/students/*/; do
    id=$(basename "$dir")
    case $id in '' | *[!A-Za-z0-9._-]* | .*) continue ;; esac
    students=$((students + 1))
    file=status
    [ -f "$dir/grade.log" ] && file=grade.log
    grep -qF "<a href=\"students/$id/$file\">$id</a>" "$tmp/report.dom" || missing="$missing $id"
done
check "every student ($students) in the table, linked to their log:$missing" test -z "$missing"
check "no folder that is not a student (.old-ID, a bad name)" \
    sh -c "! grep -qF -e '>.old-' -e 'bad&lt;id' -e 'bad<id' '$page'"
plots=$(grep -o '<svg' "$tmp/report.dom" | wc -l)
# the page's own tags only: a student's markup is text. Those of the page and of gnuplot's SVG
tags=$(grep -oE '<[A-Za-z][A-Za-z0-9]*' "$page" | sort -u | tr '\n' ' ')
allowed=" <a <body <circle <defs <desc <feComposite <feFlood <figure <filter <g <h1 <h2 <h3 \
    <head <html <line <meta <nav <p <path <polygon <polyline <pre <rect <section <span <style \
    <svg <table <tbody <td <text <th <thead <title <tr <use "
bad_tags=""
for tag in $tags; do
    case $allowed in *" $tag "*) ;; *) bad_tags="$bad_tags $tag" ;; esac
done
check "only the page's own tags (found:$bad_tags)" test -z "$bad_tags"
check "no event handler attribute, no javascript: URL" \
    sh -c "! grep -qiE '<[a-z][^>]*[[:space:]]on[a-z]+=|javascript:' '$page'"
check "links only inside the page or to students/ID/grade.log or status" \
    sh -c "! grep -oE 'href=.[^\"'\'']*' '$page' | grep -vE '^href=.(#|students/[A-Za-z0-9._-]+/(grade\.log|status)$)' | grep -q ."
check "a Content-Security-Policy that forbids every load" \
    grep -q "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';" "$page"
check "no control character (C0 but tab and newline, DEL, C1)" \
    sh -c "! LC_ALL=C grep -q '[$(printf '\001-\010\013\014\016-\037\177')]' '$page' &&
        ! LC_ALL=C.UTF-8 grep -qP '[\x{80}-\x{9f}]' '$page'"
if [ $own -eq 1 ]; then
    check "3 plots (scores, points lost, GFLOP/s)" test "$plots" -eq 3
    check "the hostile text is there, escaped" \
        grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;' "$page"
    check "its & escaped once (&amp;amp;)" grep -qF '&amp; &amp;amp;' "$page"
    check "a student without results.json keeps its status" \
        grep -qF 'error: the grader exited with status 2: &lt;script&gt;' "$tmp/report.dom"
    check "the forged GFLOP/s against its reference (3.5 and 4.25: ratio 0.82)" \
        grep -qE '>hostile\.1</a></td><td>0\.82</td><td>3\.5</td><td>4\.25</td>' "$tmp/report.dom"
    check "ranked by the ratio to the reference: ratio.6 (1 GFLOP/s, 2x) first, raw.5 (9, 0.1x) last" \
        sh -c "grep -qE '<tr><td>1</td><td><a [^>]*>ratio\.6</a></td><td>2</td><td>1</td>' '$tmp/report.dom' &&
            grep -oE '>(ratio\.6|raw\.5|hostile\.1)</a></td><td>[0-9.]+</td>' '$tmp/report.dom' |
            sed 's/<.*//; s/>//' | tr '\n' ' ' | grep -qx 'ratio.6 hostile.1 raw.5 '"
    check "the refused archive's category among the failures" grep -qF '<td>status: refused</td>' "$page"
    check "the skeleton's failure among the failures" grep -qF '00_vadd: correct at N=*' "$page"
else
    check "a plot at least" test "$plots" -ge 1
fi
echo "report: the page and its checks took $(($(date +%s) - started)) s"

# ---------------------------------------------------------------- no class, no GFLOP/s
# an empty class and one where nobody was timed: a page all the same, no gnuplot error (with a
# class of its own only: the hostile class's run, tests/corpus.sh, has them checked already)
[ $own -eq 1 ] || exit $((fails != 0))
mkdir -p "$tmp/empty/students" "$tmp/untimed/students/a" "$tmp/untimed/students/b"
echo "refused: archive refused" >"$tmp/untimed/students/a/status"
jq -n '{score: 0, extra_data: {max_score: 8}, tests: [{name: "00_vadd: correct at N=1", score: 0,
    max_score: 1, status: "failed", output: "wrong", extra_data: {exercise: "00_vadd", verdict: "fail"}}],
    leaderboard: []}' >"$tmp/untimed/students/b/results.json"
echo graded >"$tmp/untimed/students/b/status"
for class in empty untimed; do
    check "$class class: report.sh writes a page, nothing on stderr (gnuplot's warnings)" \
        sh -c "sh '$root/grader/batch/report.sh' '$tmp/$class' >/dev/null 2>'$tmp/$class.err' &&
            ! grep -q . '$tmp/$class.err'"
    cat "$tmp/$class.err"
done
check "empty class: says so" grep -q "No students in this batch" "$tmp/empty/report.html"
check "untimed class: says nobody has GFLOP/s, its other plots there" \
    sh -c "grep -q 'Nobody has GFLOP/s' '$tmp/untimed/report.html' && [ \$(grep -o '<svg' '$tmp/untimed/report.html' | wc -l) -eq 2 ]"
browse empty "$tmp/empty/report.html"
empty_renders() { grep -q '<section id="students">' "$tmp/empty.dom" && quiet empty && offline empty; }
check "empty class: Chromium renders it, no console message, no request" empty_renders

[ $fails -eq 0 ]
