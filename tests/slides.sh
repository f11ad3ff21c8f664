#!/bin/sh
# tests/slides.sh [RESULTS_DIR] - `make slides` renders every deck, and fills its tables.
#
# RESULTS_DIR: a `make bench` output (bench.csv, bench.md, plots), such as the one tests/run.sh
# makes at a small N. Without one (or without a bench.csv in it) a small bench is run here.
# Renders the decks with those results, with none, and with a CUDA-vs-OpenCL CSV, and checks
# what the HTML says: one file per deck plus index.html, nothing fetched from the web, no
# placeholder left, this machine's device and figures in the tables, the H200 reference figures,
# the lecture's P100 figures, the plots, and the sentences that stand in for missing figures.
# Prints one ok/FAIL line per check; exits 1 if any failed.
# shellcheck disable=SC2015 # "check && ok ... || fail ...": ok only prints, it always succeeds
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
failures=0
ok() { echo "ok   $*"; }
fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}

if ! command -v pandoc >/dev/null 2>&1; then
    echo "FAIL pandoc is not installed (make slides installs it as root; apt-get install pandoc)"
    exit 1
fi

# ------------------------------------------------------------------ the bench results to use

res=${1:-}
if [ -z "$res" ] || [ ! -s "$res/bench.csv" ]; then
    [ -n "$res" ] && echo "note: no $res/bench.csv: measuring a small bench here"
    if [ ! -x build/grader/grader ]; then
        echo "FAIL no results dir given and build/grader/grader is not built (make all)"
        exit 1
    fi
    if ! build/grader/grader --bench --root "$root" --n 32 --no-traffic --out "$tmp/bench" \
        >"$tmp/bench.log" 2>&1; then
        tail -n 20 "$tmp/bench.log"
        echo "FAIL the small bench for the slides failed"
        exit 1
    fi
    res=$tmp/bench
fi
case $res in /*) ;; *) res=$root/$res ;; esac

# ------------------------------------------------------------------ helpers

# csv_value CSV DEVICE_TEXT KEY [N]: the value column of the row of KEY (the key column) on the first device whose
# name holds DEVICE_TEXT (empty: the first device), at N (default: 1024 if measured, else the
# largest N), formatted as the decks print figures; empty if there is none.
csv_value() {
    awk -v dev="$2" -v want_key="$3" -v want_n="${4:-}" '
    function split_csv(s, f,    n, i, ch, field, inq) {
        n = 0; field = ""; inq = 0
        for (i = 1; i <= length(s); i++) {
            ch = substr(s, i, 1)
            if (inq) {
                if (ch == "\"") { if (substr(s, i + 1, 1) == "\"") { field = field ch; i++ } else inq = 0 }
                else field = field ch
            } else if (ch == "\"") inq = 1
            else if (ch == ",") { f[++n] = field; field = "" }
            else field = field ch
        }
        f[++n] = field
        return n
    }
    function fmt(v,    s, ip, fp, res) {
        v += 0
        if (v < 0.1) return sprintf("%.3f", v)
        if (v < 100) return sprintf("%.2f", v)
        s = sprintf("%.1f", v); ip = substr(s, 1, index(s, ".") - 1); fp = substr(s, index(s, "."))
        res = ""
        while (length(ip) > 3) { res = "," substr(ip, length(ip) - 2) res; ip = substr(ip, 1, length(ip) - 3) }
        return ip res fp
    }
    NR == 1 { for (i = split_csv($0, h); i > 0; i--) col[h[i]] = i; next }
    {
        split_csv($0, f)
        name = f[col["device"]]
        if (first == "" && (dev == "" || index(name, dev))) first = name
        if (name != first) next
        n = f[col["n"]] + 0
        if (n > 0) { seen[n] = 1; if (n > maxn) maxn = n }
        if (f[col["key"]] == want_key) v[n] = f[col["value"]]
    }
    END {
        n = want_n != "" ? want_n + 0 : ((1024 in seen) ? 1024 : maxn)
        if (want_key ~ /^(peak|bandwidth)$/) n = 0
        if (n in v) print fmt(v[n])
    }' "$1"
}

# the first device name in a bench.csv
csv_device() {
    awk -F, 'NR == 2 {
        s = substr($0, index($0, ",") + 1); s = substr(s, index(s, ",") + 1)   # from the device on
        if (substr(s, 1, 1) == "\"") { s = substr(s, 2); s = substr(s, 1, index(s, "\"") - 1) }
        else s = substr(s, 1, index(s, ",") - 1)
        print s; exit }' "$1"
}

# decks_with REGEX: the decks (names without .md) with a placeholder line matching REGEX
decks_with() {
    for d in slides/[0-9][0-9]_*.md; do
        grep -Eq "$1" "$d" && basename "$d" .md
    done
}

# in_cell HTML VALUE: VALUE is a whole table cell (optionally followed by " (x.y%)")
in_cell() {
    v=$(printf '%s' "$2" | sed 's/[.]/\\./g')
    grep -Eq ">$v( \([0-9.]+%\))?</td>" "$1"
}

html_escape() { printf '%s' "$1" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g'; }

# a placeholder's row name -> bench.csv's key column
key_of() {
    case $1 in
    01) echo "ex:01_per_element" ;;
    04) echo "ex:04_local_B" ;;
    05x8) echo "ex:05_blocked_16x16@b8" ;;
    05x16) echo "ex:05_blocked_16x16@b16" ;;
    esac
}

# a placeholder line naming row KEY and a column of SOURCE (here, h200, lecture)
row_col_re() { echo "<!-- bench: rows=([^ ]*,)?$1(,[^ ]*)? cols=([^ ]*,)?$2"; }

decks=$(ls slides/[0-9][0-9]_*.md 2>/dev/null)
[ "$(echo "$decks" | grep -c .)" -ge 7 ] && ok "7 decks or more in slides/" ||
    fail "fewer than 7 decks in slides/: $decks"

# ------------------------------------------------------------------ 1. with this machine's results

out=$tmp/out
if sh slides/render.sh "$res" "$out" >"$tmp/render.log" 2>&1; then
    ok "render.sh with $res"
else
    cat "$tmp/render.log"
    fail "render.sh with $res exited non-zero"
fi

# render_ok DIR WHAT: one non-empty, complete, self-contained HTML per deck, plus index.html
render_ok() {
    good=1
    for d in $decks; do
        name=$(basename "$d" .md)
        h=$1/$name.html
        if [ ! -s "$h" ] || ! grep -q '</html>' "$h" || ! grep -q '<section id=' "$h"; then
            fail "$2: $name.html missing, empty or without slides"
            good=0
            continue
        fi
        grep -q 'class="title"' "$h" || { fail "$2: $name.html has no title slide"; good=0; }
        grep -q "href=\"$name.html\"" "$1/index.html" 2>/dev/null ||
            { fail "$2: index.html does not link $name.html"; good=0; }
    done
    left=$(grep -l -E '<!--[ ]*(bench|plot|cuda):' "$1"/*.html 2>/dev/null)
    [ -z "$left" ] || { fail "$2: placeholders left in $left"; good=0; }
    # offline: nothing to fetch (scripts, styles, images from the web; images not embedded)
    remote=$(grep -l -E '<(script|link|img)[^>]* (src|href)="(https?:)?//' "$1"/*.html 2>/dev/null)
    [ -z "$remote" ] || { fail "$2: resources fetched from the web in $remote"; good=0; }
    if grep -o '<img [^>]*>' "$1"/*.html | grep -v 'src="data:' | grep -q .; then
        fail "$2: an image is not embedded"
        good=0
    fi
    [ $good = 1 ] && ok "$2: one self-contained HTML per deck and index.html, no placeholder left"
}
render_ok "$out" "with results"

# this machine's device and figures in the tables
device=$(csv_device "$res/bench.csv")
edev=$(html_escape "$device")
here_decks=$(decks_with '<!-- bench: .*cols=([^ ]*,)?here')
[ -n "$here_decks" ] || fail "no deck has a table of this machine's results (cols=...here)"
for name in $here_decks; do
    grep -qF "$edev" "$out/$name.html" || fail "$name: this machine's device '$device' not named"
    grep -q "No <code>make bench</code> results" "$out/$name.html" &&
        fail "$name: says there are no bench results although $res/bench.csv exists"
done
[ -n "$device" ] && ok "this machine's device named in $(echo "$here_decks" | wc -w) decks: $device"
for key in 01 05x16; do
    want=$(csv_value "$res/bench.csv" "$device" "$(key_of "$key")")
    in_decks=$(decks_with "$(row_col_re "$key" here)")
    if [ -z "$want" ]; then
        fail "$res/bench.csv has no figure for $(key_of "$key")"
    elif [ -z "$in_decks" ]; then
        fail "no deck shows row $key for this machine"
    else
        for name in $in_decks; do
            in_cell "$out/$name.html" "$want" && ok "$name: this machine's $key figure $want" ||
                fail "$name: this machine's $key figure $want not in a table cell"
        done
    fi
done

# the committed H200 reference
h200=slides/results/h200/bench.csv
for key in 01 05x8; do
    want=$(csv_value "$h200" "NVIDIA H200" "$(key_of "$key")" 1024)
    in_decks=$(decks_with "$(row_col_re "$key" h200)")
    [ -n "$want" ] && [ -n "$in_decks" ] || { fail "H200 $key: no figure ($want) or no deck ($in_decks)"; continue; }
    for name in $in_decks; do
        in_cell "$out/$name.html" "$want" && ok "$name: H200 reference $key figure $want" ||
            fail "$name: H200 reference $key figure $want not in a table cell"
    done
done

# the lecture's published P100 figures ("Hands On OpenCL", N = 1024), cited
for pair in 01=70.3 02=9.1 03=24.9 04=55.4 05x16=1,801.8; do
    key=${pair%%=*}
    want=${pair#*=}
    in_decks=$(decks_with "$(row_col_re "$key" lecture)")
    [ -n "$in_decks" ] || { fail "no deck shows the lecture's figure for row $key"; continue; }
    for name in $in_decks; do
        if in_cell "$out/$name.html" "$want" && grep -q 'Hands On OpenCL' "$out/$name.html"; then
            ok "$name: lecture P100 $key figure $want, cited"
        else
            fail "$name: lecture P100 $key figure $want not in a cell, or the lecture not cited"
        fi
    done
done

# plots: the reference ones embedded as SVG; this machine's where make bench drew them
for name in $(decks_with '<!-- plot: h200 '); do
    grep -q 'src="data:image/svg+xml' "$out/$name.html" && ok "$name: H200 plot embedded" ||
        fail "$name: H200 plot not embedded"
done
if [ -s "$res/bench-bars.svg" ]; then
    for name in $(decks_with '<!-- plot: here bench-bars'); do
        n=$(grep -o 'src="data:image/svg+xml' "$out/$name.html" | wc -l)
        [ "$n" -ge 2 ] && ok "$name: this machine's bar chart embedded" ||
            fail "$name: this machine's bar chart not embedded ($n images)"
    done
fi

# CUDA against OpenCL on the H200 reference: its ratio where the CSV is committed, else "not measured"
h200cuda=slides/results/h200/cuda-vs-opencl.csv
for name in $(decks_with '<!-- cuda: ([^ ]+ )*h200'); do
    if [ -s "$h200cuda" ]; then
        # the mean GFLOP/s of each API at N = 1024 over its rounds, CUDA over OpenCL
        want=$(awk -F, 'NR > 1 && $0 ~ /,1024,[0-9]+,[^,]*,[^,]*,[^,]*,[^,]*$/ {
                   api = tolower($1); sum[api] += $NF; cnt[api]++ }
               END { if (cnt["cuda"] && cnt["opencl"])
                         printf "%.2f", (sum["cuda"] / cnt["cuda"]) / (sum["opencl"] / cnt["opencl"]) }' "$h200cuda")
        [ -n "$want" ] && in_cell "$out/$name.html" "$want" &&
            ok "$name: CUDA / OpenCL on the H200 reference, $want" ||
            fail "$name: CUDA / OpenCL ratio '$want' of $h200cuda not in a table cell"
    else
        grep -q 'reference h200: not measured yet' "$out/$name.html" &&
            ok "$name: CUDA on the H200 'not measured yet'" ||
            fail "$name: no 'not measured yet' without $h200cuda"
    fi
done

# ------------------------------------------------------------------ 2. no results at all

mkdir -p "$tmp/empty"
if sh slides/render.sh "$tmp/empty" "$tmp/out-empty" >"$tmp/render-empty.log" 2>&1; then
    ok "render.sh with an empty results dir"
else
    cat "$tmp/render-empty.log"
    fail "render.sh with an empty results dir exited non-zero"
fi
render_ok "$tmp/out-empty" "without results"
said=1
for name in $here_decks; do
    grep -q "No <code>make bench</code> results on this machine yet" "$tmp/out-empty/$name.html" ||
        { fail "$name: without results, no 'No make bench results' sentence"; said=0; }
done
[ $said = 1 ] && ok "without results: every deck with a table of this machine says 'No make bench results'"
want=$(csv_value "$h200" "NVIDIA H200" "$(key_of 01)" 1024)
for name in $(decks_with "$(row_col_re 01 h200)"); do
    in_cell "$tmp/out-empty/$name.html" "$want" && ok "$name: without results, the H200 figures still shown" ||
        fail "$name: without results, the H200 figure $want is missing"
done

# ------------------------------------------------------------------ 3. this machine's CUDA-vs-OpenCL

# a scratch deck in a copy of slides/, rendered with and without a cuda-vs-opencl.csv (the copy
# has no build: its render.sh lists the exercises with this workbook's grader)
GRADER=$root/build/grader/grader
export GRADER
mkdir -p "$tmp/copy" "$tmp/cuda"
cp -R slides "$tmp/copy/"
printf -- '---\ntitle: "cuda"\n---\n\n## CUDA\n\n<!-- cuda: here -->\n' >"$tmp/copy/slides/98_cuda.md"
cp "$res"/bench.csv "$tmp/cuda/"
cat >"$tmp/cuda/cuda-vs-opencl.csv" <<'CSV'
api,kernel,device,driver,n,repeats,min_s,median_s,max_s,gflops
opencl,kernel.cl mmul BLOCK=16,Test GPU,driver 1.0,1024,10,0.0017,0.0017,0.0018,1234.0
cuda,kernel.cu mmul_blocked BLOCK=16,Test GPU,driver 1.0,1024,10,0.0008,0.0009,0.0009,2469.0
opencl,kernel.cl mmul BLOCK=16,Test GPU,driver 1.0,1024,10,0.0017,0.0017,0.0018,1235.0
cuda,kernel.cu mmul_blocked BLOCK=16,Test GPU,driver 1.0,1024,10,0.0008,0.0009,0.0009,2469.0
CSV
if sh "$tmp/copy/slides/render.sh" "$tmp/cuda" "$tmp/out-cuda" >"$tmp/render-cuda.log" 2>&1; then
    h=$tmp/out-cuda/98_cuda.html
    # the rounds averaged (1,234.5), the ratio (2.00), the device and the kernels named
    if in_cell "$h" "1,234.5" && in_cell "$h" "2,469.0" && in_cell "$h" "2.00" &&
        grep -q 'Test GPU' "$h" && grep -q 'kernel.cu mmul_blocked' "$h"; then
        ok "this machine's CUDA-vs-OpenCL table filled (rounds averaged, ratio, kernels named)"
    else
        fail "this machine's CUDA-vs-OpenCL table not filled from cuda-vs-opencl.csv"
    fi
else
    cat "$tmp/render-cuda.log"
    fail "render.sh with a cuda-vs-opencl.csv exited non-zero"
fi
sh "$tmp/copy/slides/render.sh" "$tmp/empty" "$tmp/out-cuda0" >/dev/null 2>&1 &&
    grep -q 'this machine: not measured yet' "$tmp/out-cuda0/98_cuda.html" &&
    ok "no cuda-vs-opencl.csv: 'not measured yet'" ||
    fail "no cuda-vs-opencl.csv: no 'not measured yet'"

# ------------------------------------------------------------------ 4. errors said in one line

mkdir -p "$tmp/nopath"
msg=$(PATH=$tmp/nopath /bin/sh slides/render.sh "$res" "$tmp/out-x" 2>&1)
status=$?
# shellcheck disable=SC2016 # the backquotes are text
if [ $status -ne 0 ] && [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] &&
    printf '%s' "$msg" | grep -q '^pandoc not found: run `make slides` as root'; then
    ok "without pandoc: exit $status and one line: $msg"
else
    fail "without pandoc: exit $status, said: $msg"
fi

# a malformed placeholder stops the rendering with the line, instead of an empty table
printf -- '---\ntitle: "bad"\n---\n\n## Bad\n\n<!-- bench: rows=nonsense cols=here -->\n' \
    >"$tmp/copy/slides/99_bad.md"
msg=$(sh "$tmp/copy/slides/render.sh" "$res" "$tmp/out-bad" 2>&1)
status=$?
if [ $status -ne 0 ] && printf '%s' "$msg" | grep -q "99_bad.md:7: bench: unknown row 'nonsense'"; then
    ok "a malformed placeholder fails the rendering and names its line"
else
    fail "a malformed placeholder: exit $status, said: $msg"
fi

if [ $failures -gt 0 ]; then
    echo "slides: $failures check(s) failed"
    exit 1
fi
echo "slides: all checks passed"
