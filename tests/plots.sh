#!/bin/sh
# tests/plots.sh [SVG|DIR]... - every plot fits its canvas and no two of its texts overlap, as
# headless Chromium lays them out (the fonts a slide will use, not the grader's estimate of them).
#
#   sh tests/plots.sh DIR...   every *.svg in each DIR (e.g. a `grader --bench --out DIR`)
#   sh tests/plots.sh          the committed figures: slides/results/*/*.svg
#
# Each SVG is put inline in a page whose script takes every non-empty <text>, its box (getBBox)
# carried to the page by its transform (getScreenCTM: a rotated label stays a rotated box), and
# writes what is wrong into the page: a text whose box leaves the canvas (the <svg>'s own box), or
# two texts whose boxes overlap by more than a pixel (the separating-axis test on the two convex
# quadrilaterals). `chromium --dump-dom` gives back the page with that verdict. A page planted with
# a text out of the canvas and two texts on top of each other proves first that both are caught.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v chromium >/dev/null 2>&1 ||
    { echo "FAIL plots: chromium is missing: apt-get install chromium (make deps-test as root)"; exit 1; }

# The script: for each plot (a <div class="plot"> holding one SVG) "PLOT i", "TEXTS n", then one
# line per fault, in <pre id="verdict">.
cat >"$tmp/check.js" <<'EOF'
(function () {
  var lines = [], plots = document.querySelectorAll('div.plot');
  for (var k = 0; k < plots.length; k++) {
    lines.push('PLOT ' + plots[k].id);
    lines = lines.concat(check(plots[k].querySelector('svg')));
  }
  document.getElementById('verdict').textContent = lines.join('\n');
})();
function check(svg) {
  var out = [];
  if (!svg) return ['NO SVG'];
  var canvas = svg.getBoundingClientRect(), boxes = [];
  var texts = svg.querySelectorAll('text');
  for (var i = 0; i < texts.length; i++) {
    var t = texts[i], s = t.textContent.trim();
    if (!s) continue;
    var b = t.getBBox(), m = t.getScreenCTM();
    if (b.width === 0 || b.height === 0) continue;
    /* the descent and the line gap are no ink: a pixel off each side of the box */
    var x0 = b.x + 1, y0 = b.y + 1, x1 = b.x + b.width - 1, y1 = b.y + b.height - 1;
    var pts = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(function (p) {
      return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f];
    });
    boxes.push({text: s, pts: pts});
    pts.forEach(function (p) {
      if (p[0] < canvas.left - 0.5 || p[0] > canvas.right + 0.5 ||
          p[1] < canvas.top - 0.5 || p[1] > canvas.bottom + 0.5)
        out.indexOf('OUT ' + s) < 0 && out.push('OUT ' + s);
    });
  }
  /* two convex quadrilaterals are apart when one of their edges' normals separates them */
  function apart(a, b) {
    var quads = [a, b];
    for (var q = 0; q < 2; q++)
      for (var e = 0; e < 4; e++) {
        var p = quads[q][e], r = quads[q][(e + 1) % 4], nx = p[1] - r[1], ny = r[0] - p[0];
        var len = Math.hypot(nx, ny);
        if (len === 0) continue;
        nx /= len; ny /= len;
        var amin = Infinity, amax = -Infinity, bmin = Infinity, bmax = -Infinity;
        a.forEach(function (v) { var d = v[0] * nx + v[1] * ny; amin = Math.min(amin, d); amax = Math.max(amax, d); });
        b.forEach(function (v) { var d = v[0] * nx + v[1] * ny; bmin = Math.min(bmin, d); bmax = Math.max(bmax, d); });
        if (amax <= bmin + 1 || bmax <= amin + 1) return true;
      }
    return false;
  }
  for (var i = 0; i < boxes.length; i++)
    for (var j = i + 1; j < boxes.length; j++)
      if (!apart(boxes[i].pts, boxes[j].pts))
        out.push('OVERLAP "' + boxes[i].text + '" and "' + boxes[j].text + '"');
  return ['TEXTS ' + boxes.length].concat(out);
}
EOF

# page SVG...: one page of every SVG, each in a <div class="plot" id="pN"> (N from 1), checked in
# one run of Chromium (one launch for all: each costs seconds of CPU); the verdict of plot N in
# pN.verdict
page() {
    {
        printf '%s\n' '<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}</style></head><body>'
        n=0
        for svg in "$@"; do
            n=$((n + 1))
            printf '<div class="plot" id="p%d">\n' $n
            # the XML prolog and DOCTYPE are no HTML: left out
            sed -e 's/<?xml[^>]*?>//' -e '/<!DOCTYPE/,/>/d' "$svg"
            printf '%s\n' '</div>'
        done
        printf '%s\n' '<pre id="verdict">NOT RUN</pre><script>'
        cat "$tmp/check.js"
        printf '%s\n' '</script></body></html>'
    } >"$tmp/page.html"
    timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$tmp/profile" --window-size=1400,1000 --dump-dom \
        "file://$tmp/page.html" 2>"$tmp/page.err" |
        sed -n '/<pre id="verdict">/,/<\/pre>/p' | sed -e 's/<pre id="verdict">//' -e 's/<\/pre>.*//' \
            -e 's/&quot;/"/g' -e 's/&amp;/\&/g' -e 's/&lt;/</g' -e 's/&gt;/>/g' >"$tmp/page.verdict"
    awk -v dir="$tmp" '/^PLOT / { f = dir "/" $2 ".verdict"; next } f { print > f }' "$tmp/page.verdict"
}

fails=0
# the checks can fail: a text out of the canvas, two on top of each other, a rotated one cut
cat >"$tmp/bad.svg" <<'EOF'
<svg width="300" height="200" viewBox="0 0 300 200" xmlns="http://www.w3.org/2000/svg">
<text x="250" y="50" font-size="14">past the right edge</text>
<text x="20" y="100" font-size="14">first label</text>
<text x="30" y="104" font-size="14">second label</text>
<g transform="translate(150,190) rotate(-30)"><text text-anchor="end" font-size="12">slanted off the bottom edge</text></g>
<text x="20" y="160" font-size="14">alone</text>
</svg>
EOF
[ $# -gt 0 ] || set -- "$root"/slides/results/*/
svgs=""
for arg in "$@"; do
    if [ -d "$arg" ]; then
        for svg in "$arg"/*.svg; do [ -f "$svg" ] && svgs="$svgs $svg"; done
    elif [ -f "$arg" ]; then
        svgs="$svgs $arg"
    fi
done
# shellcheck disable=SC2086 # (paths without spaces: the workbook's and mktemp's)
page "$tmp/bad.svg" $svgs
if grep -q '^OUT past the right edge$' "$tmp/p1.verdict" &&
    grep -q '^OVERLAP "first label" and "second label"$' "$tmp/p1.verdict" &&
    ! grep -q 'alone' "$tmp/p1.verdict" && grep -q '^TEXTS 5$' "$tmp/p1.verdict"; then
    echo "ok   plots: the check catches a text out of the canvas and two overlapping"
else
    echo "FAIL plots: the planted faults were not caught:"
    cat "$tmp/p1.verdict" "$tmp/page.err" 2>/dev/null
    fails=$((fails + 1))
fi
count=0
for svg in $svgs; do
    count=$((count + 1))
    v=$tmp/p$((count + 1)).verdict
    name=$(echo "$svg" | sed "s|^$root/||; s|//*|/|g")
    texts=$(sed -n 's/^TEXTS //p' "$v" 2>/dev/null)
    faults=$(grep -c -e '^OUT ' -e '^OVERLAP ' "$v" 2>/dev/null)
    if [ -n "$texts" ] && [ "$texts" -gt 0 ] && [ "${faults:-0}" -eq 0 ]; then
        echo "ok   plots: $name ($texts texts, all inside, none overlapping)"
    else
        echo "FAIL plots: $name (${texts:-no} texts read):"
        grep -e '^OUT ' -e '^OVERLAP ' -e 'NO SVG' "$v" 2>/dev/null | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
[ $count -gt 0 ] || { echo "FAIL plots: no SVG found in $*"; fails=$((fails + 1)); }
[ $fails -eq 0 ]
