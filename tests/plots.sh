#!/bin/sh
# tests/plots.sh [SVG|DIR]... - every plot fits its canvas and no two of its texts overlap, as
# headless Chromium lays them out (the fonts a slide will use, not the grader's estimate of them);
# a roofline's point labels sit beside their dots.
#
#   sh tests/plots.sh DIR...   every *.svg in each DIR (e.g. a `grader --bench --out DIR`)
#   sh tests/plots.sh          the committed figures: slides/results/*/*.svg
#
# Either way also the grader's pictures of a wrong C (grade/c_picture.c) of a 100 x 100 pattern
# (merged cells and a zoom) and of a 1 x 1 x 1 case, as the unit test test_c_picture writes them
# (TEST_C_PICTURE_SVGS; built here when missing).
#
# Each SVG is put inline in a page whose script takes every non-empty <text>, its box (getBBox)
# carried to the page by its transform (getScreenCTM: a rotated label stays a rotated box), and
# writes what is wrong into the page: a text whose box leaves the canvas (the <svg>'s own box), or
# two texts whose boxes overlap by more than a pixel (the separating-axis test on the two convex
# quadrilaterals). A roofline (grader/bench/roofline.c) draws each point's dot and label as plots
# titled "dot K" and "label K": the label's box must come within 12 pixels of its dot's centre and
# nearer to it than to any other dot, else the reader cannot tell whose it is. `chromium
# --dump-dom` gives back the page with that verdict. Pages planted with a text out of the canvas,
# two texts on top of each other, a label far from its dot and one nearer another dot prove first
# that each is caught.
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
  return ['TEXTS ' + boxes.length].concat(out).concat(beside(svg));
}
/* "PAIRS n" and "UNMARKED n" (plots of dots or texts titled otherwise: not paired),
 * then FAR, NEARER and UNPAIRED for labels not beside their dots, unless a leader line joins the
 * two: a plot titled "leader K" whose one end is on dot K and the other on label K's box */
function beside(svg) {
  var REACH = 12, TOUCH = 4, dots = {}, labels = {}, leaders = {}, out = [], pairs = 0,
      unmarked = 0;
  var groups = svg.querySelectorAll('g[id^="gnuplot_plot_"]');
  for (var i = 0; i < groups.length; i++) {
    var title = groups[i].querySelector('title');
    var m = title && /^(dot|label|leader) (\d+)$/.exec(title.textContent.trim());
    if (!m) {
      if (groups[i].querySelector('use, circle, text')) unmarked++;
      continue;
    }
    if (m[1] === 'leader') {
      var line = groups[i].querySelector('path');
      if (!line || !line.getTotalLength) continue;
      var c = line.getScreenCTM(), len = line.getTotalLength();
      leaders[m[2]] = [0, len].map(function (at) {
        var q = line.getPointAtLength(at);
        return [c.a * q.x + c.c * q.y + c.e, c.b * q.x + c.d * q.y + c.f];
      });
      continue;
    }
    var mark = groups[i].querySelector(m[1] === 'dot' ? 'use, circle' : 'text');
    if (!mark) continue;
    var r = mark.getBoundingClientRect();
    if (m[1] === 'dot') dots[m[2]] = [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
    else labels[m[2]] = {text: mark.textContent.trim(), r: r};
  }
  /* from a point to the nearest point of a box (0 inside) */
  function reach(p, r) {
    return Math.hypot(Math.max(r.left - p[0], 0, p[0] - r.right),
                      Math.max(r.top - p[1], 0, p[1] - r.bottom));
  }
  /* a leader from dot k to label k's box (either way round) */
  function joined(k) {
    var l = leaders[k];
    if (!l) return false;
    for (var e = 0; e < 2; e++)
      if (Math.hypot(l[e][0] - dots[k][0], l[e][1] - dots[k][1]) <= TOUCH &&
          reach(l[1 - e], labels[k].r) <= TOUCH)
        return true;
    return false;
  }
  for (var k in labels) {
    if (!dots[k]) { out.push('UNPAIRED label ' + k + ' "' + labels[k].text + '"'); continue; }
    pairs++;
    if (joined(k)) continue;
    var own = reach(dots[k], labels[k].r);
    if (own > REACH)
      out.push('FAR "' + labels[k].text + '" ' + own.toFixed(1) + ' px from its dot');
    for (var j in dots) {
      var other = reach(dots[j], labels[k].r);
      if (j !== k && other <= own)
        out.push('NEARER "' + labels[k].text + '" to dot ' + j + ' (' + other.toFixed(1) +
                 ' px) than to its own (' + own.toFixed(1) + ' px)');
    }
  }
  for (var d in dots)
    if (!labels[d]) out.push('UNPAIRED dot ' + d);
  return ['PAIRS ' + pairs, 'UNMARKED ' + unmarked].concat(out);
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
# a roofline's labels: 1 far from its dot, 2 nearer dot 3 than its own, 3 beside its dot, 4 far
# but joined to its dot by its leader line, 5 far with a leader that stops short of it
cat >"$tmp/bad-roofline.svg" <<'EOF'
<svg width="300" height="200" viewBox="0 0 300 200" xmlns="http://www.w3.org/2000/svg" font-size="9">
<g id="gnuplot_plot_1"><title>roof(x)</title></g>
<g id="gnuplot_plot_2"><title>dot 1</title><circle cx="40" cy="40" r="4"/></g>
<g id="gnuplot_plot_3"><title>label 1</title><text x="70" y="43">far away</text></g>
<g id="gnuplot_plot_4"><title>dot 2</title><circle cx="40" cy="120" r="4"/></g>
<g id="gnuplot_plot_5"><title>label 2</title><text x="128" y="112">on the wrong dot</text></g>
<g id="gnuplot_plot_6"><title>dot 3</title><circle cx="120" cy="120" r="4"/></g>
<g id="gnuplot_plot_7"><title>label 3</title><text x="100" y="136">beside</text></g>
<g id="gnuplot_plot_8"><title>leader 4</title><path d="M200,40 L236,76"/></g>
<g id="gnuplot_plot_9"><title>dot 4</title><circle cx="200" cy="40" r="4"/></g>
<g id="gnuplot_plot_10"><title>label 4</title><text x="236" y="84">led far</text></g>
<g id="gnuplot_plot_11"><title>leader 5</title><path d="M200,150 L230,150"/></g>
<g id="gnuplot_plot_12"><title>dot 5</title><circle cx="200" cy="150" r="4"/></g>
<g id="gnuplot_plot_13"><title>label 5</title><text x="240" y="190">badly led</text></g>
</svg>
EOF
[ $# -gt 0 ] || set -- "$root"/slides/results/*/
# the pictures of a wrong C, as the unit test draws them
pictures=$tmp/c-pictures
mkdir -p "$pictures"
test_c_picture=$root/build/tests/test_c_picture
[ -x "$test_c_picture" ] || make -s -C "$root" "$test_c_picture" >"$tmp/make.log" 2>&1 ||
    { echo "FAIL plots: cannot build $test_c_picture:"; cat "$tmp/make.log"; exit 1; }
TEST_C_PICTURE_SVGS=$pictures "$test_c_picture" >"$tmp/test_c_picture.log" 2>&1 ||
    { echo "FAIL plots: test_c_picture failed:"; cat "$tmp/test_c_picture.log"; exit 1; }
svgs="$pictures/c-picture-zoom-100.svg $pictures/c-picture-tiny-1x1.svg"
for arg in "$@"; do
    if [ -d "$arg" ]; then
        for svg in "$arg"/*.svg; do [ -f "$svg" ] && svgs="$svgs $svg"; done
    elif [ -f "$arg" ]; then
        svgs="$svgs $arg"
    fi
done
# shellcheck disable=SC2086 # (paths without spaces: the workbook's and mktemp's)
page "$tmp/bad.svg" "$tmp/bad-roofline.svg" $svgs
if grep -q '^OUT past the right edge$' "$tmp/p1.verdict" &&
    grep -q '^OVERLAP "first label" and "second label"$' "$tmp/p1.verdict" &&
    ! grep -q 'alone' "$tmp/p1.verdict" && grep -q '^TEXTS 5$' "$tmp/p1.verdict"; then
    echo "ok   plots: the check catches a text out of the canvas and two overlapping"
else
    echo "FAIL plots: the planted faults were not caught:"
    cat "$tmp/p1.verdict" "$tmp/page.err" 2>/dev/null
    fails=$((fails + 1))
fi
if grep -q '^FAR "far away" ' "$tmp/p2.verdict" &&
    grep -q '^NEARER "on the wrong dot" to dot 3 ' "$tmp/p2.verdict" &&
    grep -q '^FAR "badly led" ' "$tmp/p2.verdict" &&
    ! grep -q -e '"beside"' -e '"led far"' -e '^OVERLAP ' -e '^UNPAIRED ' "$tmp/p2.verdict" &&
    grep -q '^PAIRS 5$' "$tmp/p2.verdict"; then
    echo "ok   plots: the check catches a label far from its dot, one nearer another dot and one whose leader misses it"
else
    echo "FAIL plots: the planted labels were not caught:"
    cat "$tmp/p2.verdict" "$tmp/page.err" 2>/dev/null
    fails=$((fails + 1))
fi
count=0
for svg in $svgs; do
    count=$((count + 1))
    v=$tmp/p$((count + 2)).verdict
    name=$(echo "$svg" | sed "s|^$root/||; s|^$tmp/||; s|//*|/|g")
    texts=$(sed -n 's/^TEXTS //p' "$v" 2>/dev/null)
    pairs=$(sed -n 's/^PAIRS //p' "$v" 2>/dev/null)
    faults=$(grep -c -e '^OUT ' -e '^OVERLAP ' -e '^FAR ' -e '^NEARER ' -e '^UNPAIRED ' "$v" 2>/dev/null)
    # a roofline whose dots and labels are not marked cannot be checked: a fault of its own
    unmarked=$(sed -n 's/^UNMARKED //p' "$v" 2>/dev/null)
    case $(basename "$svg") in
    bench-roofline-*.svg) [ "${unmarked:-0}" -eq 0 ] || faults=$((${faults:-0} + 1)) ;;
    esac
    if [ -n "$texts" ] && [ "$texts" -gt 0 ] && [ "${faults:-0}" -eq 0 ]; then
        beside=""
        [ "${pairs:-0}" -eq 0 ] || beside=", $pairs labels beside their dots"
        echo "ok   plots: $name ($texts texts, all inside, none overlapping$beside)"
    else
        echo "FAIL plots: $name (${texts:-no} texts read, ${pairs:-no} labels paired with dots, ${unmarked:-0} plots unmarked):"
        grep -e '^OUT ' -e '^OVERLAP ' -e '^FAR ' -e '^NEARER ' -e '^UNPAIRED ' -e 'NO SVG' "$v" \
            2>/dev/null | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
[ $count -gt 0 ] || { echo "FAIL plots: no SVG found in $*"; fails=$((fails + 1)); }
[ $fails -eq 0 ]
