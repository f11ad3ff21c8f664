#!/bin/sh
# tests/outputs.sh - every file a batch wrote for the instructor, read back with a real parser:
# whatever a student's program prints must reach each of them well formed.
#
#   sh tests/outputs.sh OUT          check a finished batch's OUT: one line per fault, exit 1 if
#                                    any (2: no OUT, or a parser missing)
#   sh tests/outputs.sh --self-test  plant broken files (a junit.xml holding U+FFFF, a CSV with a
#                                    formula, JSON that is not) in a made-up OUT: each is reported
#
# Why real parsers: the batch's writers are jq filters that escape what they know of; the question
# is whether the readers (a CI system's JUnit import, a browser, a spreadsheet, jq) accept what
# came out, so the files are handed to those readers' parsers, not to more of our own regexes.
#   junit.xml     xmllint --noout and Python's xml.etree (expat): both refuse what is outside
#                 XML 1.0's Char production (a U+FFFF printed by a student made the class's file
#                 unreadable); then each testsuite's tests and failures match its testcases
#   report.html   Python's html.parser, as a checker: every element that is opened is closed in
#                 order, and no script element or on* attribute exists (the page runs nothing:
#                 one would be a student's markup that got through)
#   *.csv         Python's csv module, strict (gradebook, canvas, moodle): every row has the
#                 header's number of fields, and no cell, unquoted, starts a formula (= + - @
#                 first, or after white space that an import may trim; a tab or CR first): a
#                 leading ' is the writers' escape
#   summary.md    every row of a table has its header's number of cells (an unescaped | splits one)
#   *.json        jq -e . on OUT/*.json and every OUT/students/*/results.json, and Python's json:
#                 the strings inside too, since \u escapes hide characters from a look at the bytes
# Every file above, and each student's grade.log and status: valid UTF-8 (a strict decode) and
# no C0 control but tab and line breaks, no DEL, no C1 control (U+0080..U+009F) and no Unicode
# noncharacter (U+FDD0..U+FDEF, U+xFFFE, U+xFFFF): parsers accept some of these, but they are no
# text, and C1's CSI moves a terminal's cursor as ESC [ does.
set -u
die() {
    echo "outputs: $*" >&2
    exit 2
}
for tool in xmllint python3 jq; do
    command -v $tool >/dev/null 2>&1 ||
        die "$tool is missing: make deps-test as root (xmllint: libxml2-utils)"
done

# check OUT: prints one line per fault ("FILE: what"), returns 1 when there is any
check() {
    out=$1
    err=$(mktemp) || die "cannot make a temporary file"
    faults=$(
        for f in junit.xml report.html gradebook.csv summary.md; do
            [ -f "$out/$f" ] || echo "$f: missing (the batch writes it)"
        done
        # (canvas.csv and moodle.csv: the class's platform's, both for a class of both, or none)
        if [ -f "$out/junit.xml" ] && ! xmllint --noout "$out/junit.xml" 2>"$err"; then
            echo "junit.xml: xmllint: $(grep . "$err" | head -n 1 | sed "s|^$out/||")"
        fi
        for f in "$out"/*.json "$out"/students/*/results.json; do
            [ -f "$f" ] || continue
            jq -e . "$f" >/dev/null 2>"$err" && continue
            why=$(grep . "$err" | head -n 1)
            echo "${f#"$out"/}: jq -e: ${why:-null or false}"
        done
        python3 - "$out" <<'EOF'
import csv, html.parser, io, json, os, re, sys
import xml.etree.ElementTree as ET

out = sys.argv[1]

def fault(name, what):
    print(f"{name}: {what}")

def bad_char(c):
    """Why code point c has no place in an instructor's file, or None."""
    n = ord(c)
    if (n < 0x20 and c not in "\t\n\r") or n == 0x7f:
        return "a control character"
    if 0x80 <= n <= 0x9f:
        return "a C1 control"
    if 0xfdd0 <= n <= 0xfdef or (n & 0xfffe) == 0xfffe:
        return "a noncharacter"
    if 0xd800 <= n <= 0xdfff:
        return "a lone surrogate"
    return None

def first_bad(text):
    for i, c in enumerate(text):
        why = bad_char(c)
        if why:
            return f"U+{ord(c):04X} ({why}) at line {text.count(chr(10), 0, i) + 1}"
    return None

def read_text(name):
    """The file decoded as UTF-8 (None: a fault said why), its characters checked."""
    try:
        with open(os.path.join(out, name), "rb") as f:
            data = f.read()
    except OSError:
        return None
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        fault(name, f"invalid UTF-8 at byte {e.start}")
        return None
    bad = first_bad(text)
    if bad:
        fault(name, bad)
    return text

# junit.xml: expat, then the counts a CI system shows
text = read_text("junit.xml")
if text is not None:
    try:
        root = ET.fromstring(text.encode("utf-8"))
        if root.tag != "testsuites":
            fault("junit.xml", f"the root is <{root.tag}>, not <testsuites>")
        for suite in root.iter("testsuite"):
            cases = suite.findall("testcase")
            failed = [c for c in cases if c.find("failure") is not None]
            if suite.get("tests") != str(len(cases)) or suite.get("failures") != str(len(failed)):
                fault("junit.xml", f"testsuite {suite.get('name')!r} says {suite.get('tests')} "
                      f"tests, {suite.get('failures')} failures: it holds {len(cases)}, {len(failed)}")
    except ET.ParseError as e:
        fault("junit.xml", f"python xml.etree: {e}")

# report.html: elements closed in order, nothing that runs
class Page(html.parser.HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open = []
        self.faults = []

    def where(self):
        return f"line {self.getpos()[0]}"

    def attributes(self, tag, attrs):
        if tag == "script":
            self.faults.append(f"a script element at {self.where()}")
        for name, _ in attrs:
            if name.startswith("on"):
                self.faults.append(f"an {name} attribute on <{tag}> at {self.where()}")

    def handle_starttag(self, tag, attrs):
        self.attributes(tag, attrs)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.attributes(tag, attrs)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.open or self.open[-1] != tag:
            self.faults.append(f"</{tag}> at {self.where()} closes "
                               f"{'<' + self.open[-1] + '>' if self.open else 'nothing'}")
            if tag in self.open:  # go on from the element it closes, to report one fault
                del self.open[len(self.open) - 1 - self.open[::-1].index(tag):]
        else:
            self.open.pop()

text = read_text("report.html")
if text is not None:
    page = Page()
    page.feed(text)
    page.close()
    if page.open:
        page.faults.append(f"<{page.open[-1]}> (and {len(page.open) - 1} more) never closed")
    for what in page.faults[:5]:
        fault("report.html", what)

# the CSVs: fields per row, and no formula (a lone "-", Moodle's "none" in the worksheet it
# exported and make batch fills in, is text to a spreadsheet)
formula = re.compile(r"[\t\r]|\s*[=+@]|\s*-(?!$)")
number = re.compile(r"-?[0-9]+(\.[0-9]+)?")  # (a number, -1.5 say, is no formula)
for name in ("gradebook.csv", "canvas.csv", "moodle.csv"):
    text = read_text(name)
    if text is None:
        continue
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as e:
        fault(name, f"python csv: {e}")
        continue
    if not rows:
        fault(name, "empty: no header")
        continue
    for r, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            fault(name, f"row {r} has {len(row)} fields, the header {len(rows[0])}")
    for r, row in enumerate(rows, start=1):
        for c, cell in enumerate(row, start=1):
            if formula.match(cell) and not number.fullmatch(cell):
                fault(name, f"row {r}, field {c}: {cell[:40]!r} would run as a formula")

# summary.md: each table's rows as wide as its header
text = read_text("summary.md")
if text is not None:
    width = None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.startswith("|"):
            width = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", line)) - 1
        if width is None:
            width = cells
        elif cells != width:
            fault("summary.md", f"line {number} has {cells} cells, its table's header {width}")

# JSON: the strings inside, which \u escapes may hide
def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)

names = [n for n in os.listdir(out) if n.endswith(".json")]
students = os.path.join(out, "students")
if os.path.isdir(students):
    for id in sorted(os.listdir(students)):
        if id.startswith(".") or not os.path.isdir(os.path.join(students, id)):
            continue
        names += [f"students/{id}/{n}" for n in ("results.json", "grade.log", "status")
                  if os.path.isfile(os.path.join(students, id, n))]
for name in names:
    text = read_text(name)
    if text is None or not name.endswith(".json"):
        continue
    try:
        value = json.loads(text)
    except ValueError:
        continue  # jq -e has said so
    for s in strings(value):
        bad = first_bad(s)
        if bad:
            fault(name, f"a string holds {bad.rsplit(' at line', 1)[0]}")
            break
EOF
    )
    rm -f "$err"
    [ -z "$faults" ] && return 0
    printf '%s\n' "$faults"
    return 1
}

# ---------------------------------------------------------------- the self-test
# A made-up OUT whose every file is well formed must pass; then each planted fault, in a copy of
# it, must be reported by the line expected, so that a check that can no longer fail is noticed.
self_test() {
    tmp=$(mktemp -d) || die "cannot make a temporary folder"
    trap 'rm -rf "$tmp"' EXIT
    good=$tmp/good
    mkdir -p "$good/students/ada"
    printf '%s\n' '<?xml version="1.0" encoding="UTF-8"?>' '<testsuites>' \
        '  <testsuite name="ada" tests="1" failures="1">' \
        '    <testcase classname="04_local_B" name="host"><failure message="0/2">A[?]&lt;x&gt;</failure></testcase>' \
        '  </testsuite>' '</testsuites>' >"$good/junit.xml"
    printf '%s\n' '<!DOCTYPE html>' '<html lang="en"><head><meta charset="utf-8"><title>t</title></head>' \
        '<body><p>&lt;script&gt;</p><svg><path d="M0 0"/></svg></body></html>' >"$good/report.html"
    printf '%s\n' 'student,name,total' "'-A1,\"a, b\",7" "ada,'=SUM(1+2),5" >"$good/gradebook.csv"
    printf '%s\n' 'Student,ID,Workbook' 'Points Possible,,7' "'@evil,1001,5" >"$good/canvas.csv"
    printf '%s\n' 'Identifier,Full name,Grade' 'Participant 1001,ada,5' >"$good/moodle.csv"
    printf '%s\n' '# Batch summary' '' '| test | students |' '|---|---:|' '| a \| b | 1 |' >"$good/summary.md"
    printf '%s\n' '{"score": 5, "tests": [{"name": "host", "output": "A[?]"}]}' \
        >"$good/students/ada/results.json"
    echo graded >"$good/students/ada/status"
    fails=0
    if got=$(check "$good"); then
        echo "ok   outputs: a well-formed OUT passes"
    else
        echo "FAIL outputs: a well-formed OUT was faulted:"
        printf '%s\n' "$got"
        fails=$((fails + 1))
    fi
    # plant WHAT FILE EXPECTED: FILE of a copy of the good OUT replaced by stdin, and the check
    # must fail with a line matching EXPECTED (grep -E)
    plant() {
        rm -rf "$tmp/bad" && cp -r "$good" "$tmp/bad" && cat >"$tmp/bad/$2"
        if got=$(check "$tmp/bad"); then
            echo "FAIL outputs: $1: not reported"
            fails=$((fails + 1))
        elif printf '%s\n' "$got" | grep -Eq -- "$3"; then
            echo "ok   outputs: $1: $(printf '%s\n' "$got" | grep -E -- "$3" | head -n 1)"
        else
            echo "FAIL outputs: $1: reported, but not as /$3/:"
            printf '%s\n' "$got"
            fails=$((fails + 1))
        fi
    }
    ffff=$(printf '\357\277\277')
    sed "s/A\[?\]/A[$ffff]/" "$good/junit.xml" | plant "junit.xml holding U+FFFF (xmllint)" junit.xml \
        '^junit.xml: xmllint: '
    sed "s/A\[?\]/A[$ffff]/" "$good/junit.xml" | plant "junit.xml holding U+FFFF (xml.etree)" junit.xml \
        '^junit.xml: python xml.etree: '
    sed "s/A\[?\]/A[$(printf '\302\205')]/" "$good/junit.xml" |
        plant "junit.xml holding a C1 control (which XML parsers take)" junit.xml '^junit.xml: U\+0085'
    sed 's/tests="1"/tests="2"/' "$good/junit.xml" | plant "junit.xml miscounting" junit.xml \
        '^junit.xml: testsuite .* says 2 tests'
    sed "s/'=SUM(1+2)/\"=HYPERLINK(\"\"http:\/\/x\"\")\"/" "$good/gradebook.csv" |
        plant "gradebook.csv with a formula" gradebook.csv \
        '^gradebook.csv: row 3, field 2: .*HYPERLINK.* would run as a formula'
    sed "s/'@evil/  @evil/" "$good/canvas.csv" | plant "canvas.csv with a formula after spaces" \
        canvas.csv '^canvas.csv: row 3, field 1: .* formula'
    sed 's/Points Possible,,7/Points Possible,7/' "$good/canvas.csv" |
        plant "canvas.csv with a short row" canvas.csv '^canvas.csv: row 2 has 2 fields, the header 3'
    sed "s/ada/ad$(printf '\377')a/" "$good/moodle.csv" | plant "moodle.csv not UTF-8" moodle.csv \
        '^moodle.csv: invalid UTF-8 at byte'
    printf '{"score": 5, "tests": [' | plant "results.json that is not JSON" \
        students/ada/results.json '^students/ada/results.json: jq -e: '
    printf '{"tests": [{"output": "A[\\ufffe]"}]}\n' | plant "results.json hiding U+FFFE in an escape" \
        students/ada/results.json '^students/ada/results.json: a string holds U\+FFFE'
    sed 's|<p>&lt;script&gt;</p>|<p><script>alert(1)</script></p>|' "$good/report.html" |
        plant "report.html running a script" report.html '^report.html: a script element'
    sed 's|</p>||' "$good/report.html" | plant "report.html with an unclosed element" report.html \
        '^report.html: </body> at line 3 closes <p>'
    sed 's/a \\| b/a | b/' "$good/summary.md" | plant "summary.md with a row split by |" summary.md \
        '^summary.md: line 5 has 3 cells'
    rm "$good/summary.md"
    plant "a class file missing" report.html '^summary.md: missing' </dev/null
    [ "$fails" -eq 0 ] && echo "outputs: self-test passed" && return 0
    echo "outputs: self-test: $fails failed"
    return 1
}

case ${1:-} in
--self-test) self_test ;;
'' | -*) die "usage: sh tests/outputs.sh OUT (a make batch's results folder) | --self-test" ;;
*)
    [ -d "$1" ] || die "$1 is not a folder (a make batch's OUT)"
    if check "$1"; then
        echo "outputs: every class file in $1 is well formed"
    else
        exit 1
    fi
    ;;
esac
