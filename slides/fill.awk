# fill.awk - replace the placeholder lines of one deck with Markdown (see render.sh).
# Variables: results (this machine's results dir), refs (slides/results), list (plot list),
# exercises (the grader's table: `grader --list`).

BEGIN {
    # Row names of a placeholder -> bench.csv's key column (grader/bench/csv.h), which is what
    # the tables match on; the case text in bench.csv is for people and may change. An
    # exercise's row is its two-digit number, taken from the grader's table (`grader --list`,
    # the file exercises); the rows below are those the table does not hold: the baseline, 05 at
    # each block size that make bench measures, the vendors and the device's limits.
    split("seq|05|05x8|05x16|05x32|05x64|openblas|clblast|cublas|peak|bw", rk, "|")
    split("baseline:sequential|ex:05_blocked_16x16@b16|ex:05_blocked_16x16@b8|" \
          "ex:05_blocked_16x16@b16|ex:05_blocked_16x16@b32|ex:05_blocked_16x16@b64|" \
          "vendor:openblas|vendor:clblast|vendor:cublas|peak|bandwidth", kk, "|")
    # ... and the label of each row in the decks' tables
    B = "Blocked in local memory, "
    split("Sequential C (not OpenCL)|" B "16x16|" B "8x8|" B "16x16|" B "32x32|" B "64x64|" \
          "OpenBLAS sgemm (CPU)|CLBlast SGEMM|cuBLAS SGEMM (FP32, no TF32)|FP32 peak, GFLOP/s|" \
          "Memory bandwidth, GB/s", rl, "|")
    for (i = 1; i in rk; i++) { rowkey[rk[i]] = kk[i]; rowlabel[rk[i]] = rl[i] }
    # the table: id, kind, points, extension, title, tab-separated
    if (exercises == "" || (getline line < exercises) <= 0) {
        print "fill.awk: no exercise list (exercises=FILE, from grader --list)" > "/dev/stderr"
        exit 2
    }
    do {
        nf = split(line, ex, "\t"); key = substr(ex[1], 1, 2)
        if (nf >= 5 && !(key in rowkey)) { rowkey[key] = "ex:" ex[1]; rowlabel[key] = key " " ex[5] }
    } while ((getline line < exercises) > 0)
    close(exercises)
    nores = "No `make bench` results on this machine yet: run `make bench`, then `make slides`."
    while ((getline line < list) > 0) { nimg++; imgsrc[nimg] = line; sub(/ .*/, "", imgsrc[nimg])
        imgfile[nimg] = line; sub(/^[^ ]* /, "", imgfile[nimg]) }
    close(list)
    errors = 0
}

# ------------------------------------------------------------------ helpers

function fail(msg) {
    printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"
    errors++
}

# Split one CSV line (RFC 4180 quoting, no newlines inside fields) into f[1..n]; returns n.
function csvsplit(s, f,    n, i, ch, field, inq, len) {
    n = 0; field = ""; inq = 0; len = length(s)
    sub(/\r$/, "", s)
    for (i = 1; i <= len; i++) {
        ch = substr(s, i, 1)
        if (inq) {
            if (ch == "\"") {
                if (substr(s, i + 1, 1) == "\"") { field = field "\""; i++ } else inq = 0
            } else field = field ch
        } else if (ch == "\"") inq = 1
        else if (ch == ",") { f[++n] = field; field = "" }
        else field = field ch
    }
    f[++n] = field
    return n
}

function srcdir(src) { return src == "here" ? results : refs "/" src }
function srcname(src) { return src == "here" ? "this machine" : "reference " src }

# Load SOURCE/bench.csv once; returns 1 if it has figures.
function load(src,    path, line, f, nf, i, col, dev, d, n, key) {
    if (src in loaded) return loaded[src]
    path = srcdir(src) "/bench.csv"
    loaded[src] = 0; ndev[src] = 0; maxn[src] = 0
    if ((getline line < path) <= 0) { close(path); return 0 }
    nf = csvsplit(line, f)
    for (i = 1; i <= nf; i++) col[f[i]] = i
    if (!("key" in col) || !("device" in col) || !("n" in col) || !("value" in col)) {
        fail(path ": not a bench.csv with a key column (header: " line "): run make bench again")
        close(path)
        return 0
    }
    while ((getline line < path) > 0) {
        if (line ~ /^[ \t\r]*$/) continue
        csvsplit(line, f)
        dev = f[col["device"]]
        if (!((src, dev) in devindex)) {
            d = ++ndev[src]; devindex[src, dev] = d; devname[src, d] = dev
            devdriver[src, d] = ("driver" in col) ? f[col["driver"]] : ""
        }
        d = devindex[src, dev]; n = f[col["n"]] + 0
        key = src SUBSEP d SUBSEP f[col["key"]] SUBSEP n
        val[key] = f[col["value"]]
        pctv[key] = ("pct_peak" in col) ? f[col["pct_peak"]] : ""
        if (n > 0) { hasn[src, n] = 1; if (n > maxn[src]) maxn[src] = n }
        loaded[src] = 1
    }
    close(path)
    # the date of the run, from bench.md's "Measured 2026-11-22 on ..." line
    path = srcdir(src) "/bench.md"; when[src] = ""
    while ((getline line < path) > 0)
        if (line ~ /^Measured [^ ]+ on /) { split(line, f, " "); when[src] = f[2]; break }
    close(path)
    return loaded[src]
}

# The lecture's published figures (refs/lecture.csv: key, side cpu|gpu, device, figure as
# printed, source) into lect[side, key], lectdev[side] and lectpeak[side] (the number in the peak
# row's figure, for the % of peak); returns 1, or 0 after saying what is wrong.
function loadlecture(    path, line, f, nf, i, col, v) {
    if (lectloaded) return lectloaded > 0
    path = refs "/lecture.csv"; lectloaded = -1
    if ((getline line < path) <= 0) { close(path); fail("no " path); return 0 }
    nf = csvsplit(line, f)
    for (i = 1; i <= nf; i++) col[f[i]] = i
    if (!("key" in col) || !("side" in col) || !("device" in col) || !("figure" in col)) {
        fail(path ": header is not key,side,device,figure,source"); close(path); return 0
    }
    while ((getline line < path) > 0) {
        if (line ~ /^[ \t\r]*$/) continue
        csvsplit(line, f)
        lect[f[col["side"]], f[col["key"]]] = f[col["figure"]]
        lectdev[f[col["side"]]] = f[col["device"]]
        if (f[col["key"]] == "peak") { v = f[col["figure"]]; gsub(/[^0-9.]/, "", v); lectpeak[f[col["side"]]] = v + 0 }
    }
    close(path)
    lectloaded = 1
    return 1
}

# A GFLOP/s figure as the README prints them: 0.052, 4.23, 488.8, 2,701.8.
function fmt(v,    s, ip, fp, res, dot) {
    if (v == "") return "–"
    v += 0
    if (v < 0.1) return sprintf("%.3f", v)
    if (v < 100) return sprintf("%.2f", v)
    s = sprintf("%.1f", v); dot = index(s, ".")
    ip = substr(s, 1, dot - 1); fp = substr(s, dot); res = ""
    while (length(ip) > 3) { res = "," substr(ip, length(ip) - 2) res; ip = substr(ip, 1, length(ip) - 3) }
    return ip res fp
}

# "cpu-skylake-avx512-Intel(R) Xeon(R) Processor (Portable Computing Language)" ->
# "Intel Xeon Processor, POCL"; "NVIDIA H200 (NVIDIA CUDA)" -> "NVIDIA H200, NVIDIA OpenCL".
function shortdev(name) {
    devparts(name)
    return DP == "" ? DB : DB ", " DP
}

# the two halves of shortdev: DB the device, DP the platform (may be empty)
function devparts(name,    base, plat, s) {
    base = name; plat = ""
    if (match(name, / \([^()]*\)$/)) {
        base = substr(name, 1, RSTART - 1); plat = substr(name, RSTART + 2, RLENGTH - 3)
    }
    gsub(/\((R|TM|tm)\)/, "", base)
    s = base; sub(/^[a-z0-9_]+(-[a-z0-9_]+)*-/, "", s)
    if (s != "" && s != base) base = s
    gsub(/  +/, " ", base); gsub(/\|/, "/", base)
    if (plat == "Portable Computing Language") plat = "POCL"
    else if (plat == "NVIDIA CUDA") plat = "NVIDIA OpenCL"
    gsub(/\|/, "/", plat)
    DB = base; DP = plat
}

# the driver field up to its second comma: "driver 580.159.04, OpenCL 3.0 CUDA 13.0.98"
function shortdriver(s,    f, n) {
    n = split(s, f, ",")
    s = n >= 2 ? f[1] "," f[2] : s
    gsub(/  +/, " ", s); sub(/ +Linux$/, "", s); sub(/ +$/, "", s)
    return s
}

function esc(s) { gsub(/\|/, "/", s); return s }

# The N a source is shown at: the requested one where measured, else 1024, else the largest.
function pickn(src, want) {
    if (want != "" && ((src, want + 0) in hasn)) return want + 0
    if ((src, 1024) in hasn) return 1024
    return maxn[src]
}

# ------------------------------------------------------------------ <!-- bench: ... -->

function bench(args,    a, na, i, kv, rows, cols, want, pct, nr, r, nc, c, spec, src, filt,
               d, ncol, n, cell, line, key, hdr, sep, notes, nn, missing, v, found, p) {
    na = split(args, a, /[ \t]+/); rows = ""; cols = ""; want = ""; pct = 0
    for (i in noted) delete noted[i]
    for (i in notei) delete notei[i]
    for (i = 1; i <= na; i++) {
        if (a[i] == "") continue
        if (a[i] ~ /^rows=/) rows = substr(a[i], 6)
        else if (a[i] ~ /^cols=/) cols = substr(a[i], 6)
        else if (a[i] ~ /^n=[0-9]+$/) want = substr(a[i], 3)
        else if (a[i] == "pct") pct = 1
        else { fail("bench: unknown word '" a[i] "'"); return }
    }
    nr = split(rows, r, ","); nc = split(cols, c, ",")
    if (nr == 0 || nc == 0) { fail("bench: needs rows= and cols="); return }
    for (i = 1; i <= nr; i++)
        if (!(r[i] in rowkey)) { fail("bench: unknown row '" r[i] "'"); return }
    ncol = 0; nn = 0; missing = ""
    for (i = 1; i <= nc; i++) {
        spec = c[i]
        if (spec ~ /^lecture/ && !loadlecture()) return
        if (spec == "lecture" || spec == "lecture-cpu") {
            ctype[++ncol] = "cpu"; chead[ncol] = lectdev["cpu"] "<br><small>lecture, N = 1024</small>"
        }
        if (spec == "lecture" || spec == "lecture-gpu") {
            ctype[++ncol] = "gpu"; chead[ncol] = lectdev["gpu"] "<br><small>lecture, N = 1024</small>"
        }
        if (spec ~ /^lecture/) { lecturenote = 1; continue }
        src = spec; filt = ""
        if (index(spec, "/")) { src = substr(spec, 1, index(spec, "/") - 1); filt = substr(spec, index(spec, "/") + 1) }
        if (src != "here" && src !~ /^[A-Za-z0-9._-]+$/) { fail("bench: bad column '" spec "'"); return }
        if (!load(src)) {
            if (src == "here") missing = nores
            else fail("bench: no reference results " refs "/" src "/bench.csv")
            continue
        }
        n = pickn(src, want); found = 0
        for (d = 1; d <= ndev[src]; d++) {
            if (filt != "" && !index(tolower(devname[src, d]), tolower(filt))) continue
            found = 1
            ctype[++ncol] = "csv"; csrc[ncol] = src; cdev[ncol] = d; cn[ncol] = n
            devparts(devname[src, d])
            chead[ncol] = esc(DB) "<br><small>" (DP != "" ? esc(DP) ", " : "") \
                (src == "here" ? "this machine" : "ref. " src) ", N = " n "</small>"
            if (!((src, d) in noted)) {
                noted[src, d] = 1
                if (!(src in notei)) {
                    notei[src] = ++nn
                    notes[nn] = (src == "here" ? "This machine" : "Reference `slides/results/" src "`") \
                        (when[src] != "" ? " (`make bench` of " when[src] ")" : "") ":"
                    notesep[nn] = " "
                }
                notes[notei[src]] = notes[notei[src]] notesep[notei[src]] esc(devname[src, d]) \
                    ", " esc(shortdriver(devdriver[src, d]))
                notesep[notei[src]] = "; "
            }
        }
        if (!found) fail("bench: no device matching '" filt "' in " srcdir(src) "/bench.csv")
    }
    if (ncol > 0) {
        hdr = "| Case |"; sep = "|:---|"
        for (i = 1; i <= ncol; i++) { hdr = hdr " " chead[i] " |"; sep = sep "---:|" }
        print hdr; print sep
        for (i = 1; i <= nr; i++) {
            line = "| " rowlabel[r[i]] " |"
            for (p = 1; p <= ncol; p++) {
                if (ctype[p] == "cpu" || ctype[p] == "gpu") {
                    key = rowkey[r[i]]
                    cell = (ctype[p] SUBSEP key) in lect ? lect[ctype[p], key] : "–"
                    if (cell == "") cell = "–"
                    if (pct && cell ~ /^[0-9,.]+$/ && key != "peak") {
                        v = cell; gsub(/,/, "", v)
                        cell = cell sprintf(" (%.1f%%)", 100 * v / lectpeak[ctype[p]])
                    }
                } else {
                    n = (r[i] == "peak" || r[i] == "bw") ? 0 : cn[p]
                    key = csrc[p] SUBSEP cdev[p] SUBSEP rowkey[r[i]] SUBSEP n
                    cell = (key in val) ? fmt(val[key]) : "–"
                    if (pct && (key in val) && pctv[key] != "" && r[i] != "peak")
                        cell = cell " (" sprintf("%.1f", pctv[key]) "%)"
                }
                line = line " " cell " |"
            }
            print line
        }
        print ""
    }
    # where the figures come from, in small print under the table
    print "::: {.sources}"
    if (lecturenote)
        print "Lecture: the \"Hands On OpenCL\" slides (Simon McIntosh-Smith, Tom Deakin et al.), " \
              "N = 1024, 2x Intel Xeon E5-2695 v4 and NVIDIA Tesla P100; not official benchmark " \
              "results." (pct ? " Their % is of the nominal peak." : "")
    for (i = 1; i <= nn; i++) { print ""; print notes[i] "." }
    print ""
    print "GFLOP/s (median of repeats) unless the row says otherwise" (pct ? "; in brackets, % of the FP32 peak our own kernel measured" : "") \
          "; –: not measured or not reported."
    print ":::"
    if (missing != "") { print ""; print "::: {.nobench}"; print missing; print ":::" }
    lecturenote = 0
    for (i in ctype) delete ctype[i]
}

# ------------------------------------------------------------------ <!-- plot: ... -->

function caption(file) {
    if (file ~ /^bench-bars/) return "GFLOP/s by case and device"
    if (file ~ /^bench-sizes/) return "GFLOP/s against N"
    if (file ~ /^bench-steps/) return "GFLOP/s per step, the vendor SGEMMs across"
    if (file ~ /^bench-roofline-[0-9]+/) {
        s = file; sub(/^bench-roofline-/, "", s); sub(/[^0-9].*/, "", s)
        return "Roofline, device " (s + 1)
    }
    return file
}

function plot(args,    a, na, i, src, width, pats, np, re, j, found, s) {
    na = split(args, a, /[ \t]+/); src = ""; width = ""; np = 0
    for (i = 1; i <= na; i++) {
        if (a[i] == "") continue
        if (src == "") src = a[i]
        else if (a[i] ~ /^width=[0-9]+%$/) width = substr(a[i], 7)
        else pats[++np] = a[i]
    }
    if (src == "" || np == 0) { fail("plot: needs a source and a file"); return }
    for (i = 1; i <= np; i++) {
        re = pats[i]; gsub(/\./, "\\.", re); gsub(/\*/, ".*", re); re = "^" re "$"
        found = 0
        for (j = 1; j <= nimg; j++) {
            if (imgsrc[j] != src || imgfile[j] !~ re) continue
            found = 1
            print ""
            printf "![%s: %s (%s)](img/%s/%s)%s\n", caption(imgfile[j]), srcname(src),
                (src == "here" ? resname : "slides/results/" src) "/" imgfile[j], src, imgfile[j],
                width != "" ? "{width=" width "}" : ""
            print ""
        }
        if (found) continue
        if (src != "here") { fail("plot: no " pats[i] " in " refs "/" src); continue }
        print ""; print "::: {.nobench}"
        if (!load("here")) print nores
        else print "No plot `" pats[i] "` from `make bench` on this machine (gnuplot was missing?): " \
                   "`build/grader/grader --bench --replot " resname "/bench.csv` draws it, then `make slides`."
        print ":::"; print ""
    }
}

# ------------------------------------------------------------------ <!-- cuda: ... -->

function apiname(s) {
    if (tolower(s) == "cuda") return "CUDA"
    if (tolower(s) == "opencl") return "OpenCL"
    return s
}

# One table per source: a row per N (and BLOCK, where the kernel names one), a column per API
# (per API and device if there are several devices), the mean over the rounds of each median
# GFLOP/s, and CUDA / OpenCL where both were run on one device. The note names the kernels.
function cuda(args,    a, na, i, src, path, line, f, nf, col, k, nr, na2, nd, kname, api, dev,
              rk, blk, ci, hdr, sep, cu, oc, v, out, key, rounds) {
    na = split(args, a, /[ \t]+/)
    for (i = 1; i <= na; i++) {
        src = a[i]
        if (src == "") continue
        if (src != "here" && src !~ /^[A-Za-z0-9._-]+$/) { fail("cuda: bad source '" src "'"); continue }
        path = srcdir(src) "/cuda-vs-opencl.csv"
        if ((getline line < path) <= 0) {
            close(path)
            print ""; print "::: {.nobench}"
            print "CUDA against OpenCL, " srcname(src) ": not measured yet (no `" \
                (src == "here" ? resname : "slides/results/" src) "/cuda-vs-opencl.csv`)."
            print ":::"; print ""
            continue
        }
        for (k in col) delete col[k]
        nf = csvsplit(line, f)
        for (k = 1; k <= nf; k++) col[f[k]] = k
        if (!("api" in col) || !("kernel" in col) || !("gflops" in col) || !("n" in col)) {
            fail(path ": header is not api,kernel,device,driver,n,...,gflops"); close(path); continue
        }
        nr = 0; na2 = 0; nd = 0; rounds = 0
        for (k in cv) delete cv[k]
        for (k in cc) delete cc[k]
        for (k in rseen) delete rseen[k]
        for (k in aseen) delete aseen[k]
        for (k in dseen) delete dseen[k]
        for (k in kdesc) delete kdesc[k]
        for (k in kdrv) delete kdrv[k]
        while ((getline line < path) > 0) {
            if (line ~ /^[ \t\r]*$/) continue
            csvsplit(line, f)
            kname = f[col["kernel"]]; api = f[col["api"]]
            dev = ("device" in col) ? f[col["device"]] : ""
            blk = match(kname, /BLOCK=[0-9]+/) ? substr(kname, RSTART + 6, RLENGTH - 6) : ""
            rk = (f[col["n"]] + 0) SUBSEP blk
            if (!(rk in rseen)) { rseen[rk] = ++nr; rown[nr] = f[col["n"]] + 0; rowb[nr] = blk }
            if (!((api SUBSEP dev) in aseen)) { aseen[api, dev] = ++na2; apis[na2] = api; devs[na2] = dev }
            if (!(dev in dseen)) { dseen[dev] = ++nd; dname[nd] = dev }
            key = api SUBSEP dev
            if (!(key in kdesc)) { kdesc[key] = kname; kdrv[key] = ("driver" in col) ? f[col["driver"]] : "" }
            cv[rk, key] += f[col["gflops"]]; cc[rk, key]++
            if (cc[rk, key] > rounds) rounds = cc[rk, key]
        }
        close(path)
        hdr = "| N |"; sep = "|:---|"
        for (ci = 1; ci <= na2; ci++) {
            hdr = hdr " " esc(apiname(apis[ci])) (nd > 1 ? ", " esc(shortdev(devs[ci])) : "") " GFLOP/s |"
            sep = sep "---:|"
        }
        cu = 0; oc = 0
        if (nd == 1) for (ci = 1; ci <= na2; ci++) {
            if (tolower(apis[ci]) == "cuda") cu = ci
            if (tolower(apis[ci]) == "opencl") oc = ci
        }
        if (cu && oc) { hdr = hdr " CUDA / OpenCL |"; sep = sep "---:|" }
        print ""; print hdr; print sep
        for (k = 1; k <= nr; k++) {
            rk = rown[k] SUBSEP rowb[k]
            out = "| " rown[k] (rowb[k] != "" ? ", BLOCK " rowb[k] : "") " |"
            for (ci = 1; ci <= na2; ci++) {
                key = rk SUBSEP apis[ci] SUBSEP devs[ci]
                out = out " " ((key in cc) ? fmt(cv[key] / cc[key]) : "–") " |"
            }
            if (cu && oc) {
                v = "–"
                if (((rk, apis[cu], devs[cu]) in cc) && ((rk, apis[oc], devs[oc]) in cc) && cv[rk, apis[oc], devs[oc]] > 0)
                    v = sprintf("%.2f", (cv[rk, apis[cu], devs[cu]] / cc[rk, apis[cu], devs[cu]]) / \
                                        (cv[rk, apis[oc], devs[oc]] / cc[rk, apis[oc], devs[oc]]))
                out = out " " v " |"
            }
            print out
        }
        print ""; print "::: {.sources}"
        printf "%s, `%s/cuda-vs-opencl.csv`: %s; GFLOP/s %s.\n", \
            (src == "here" ? "This machine" : "Reference"), \
            (src == "here" ? resname : "slides/results/" src), esc(dname[1]) (nd > 1 ? " and others" : ""), \
            (rounds > 1 ? "= 2N³ / median time, the mean of " rounds " rounds" : "= 2N³ / median time")
        for (ci = 1; ci <= na2; ci++) {
            print ""
            key = apis[ci] SUBSEP devs[ci]
            print esc(apiname(apis[ci])) ": `" esc(kdesc[key]) "`" (kdrv[key] != "" ? ", driver " esc(kdrv[key]) : "") "."
        }
        print ":::"; print ""
    }
}

# ------------------------------------------------------------------ the deck, line by line

/^[ \t]*<!--[ \t]*(bench|plot|cuda):.*-->[ \t]*$/ {
    s = $0
    sub(/^[ \t]*<!--[ \t]*/, "", s); sub(/[ \t]*-->[ \t]*$/, "", s)
    kind = s; sub(/:.*/, "", kind); sub(/^[a-z]+:[ \t]*/, "", s)
    print ""
    if (kind == "bench") bench(s)
    else if (kind == "plot") plot(s)
    else cuda(s)
    print ""
    next
}
/<!--[ \t]*(bench|plot|cuda)[ \t]*:/ { fail("placeholder must be alone on one line: " $0); next }
{ print }
END { if (errors) exit 3 }
