/* plot.c - the benchmark's figures, drawn by gnuplot from bench.csv: the GFLOP/s of every case as
 * bars grouped by case with one colour per device (like the lecture's slide), GFLOP/s against N
 * when several N were measured, and a roofline for each device whose peak and bandwidth were
 * measured. Each figure's data (.dat) and script (.gp) stay next to its SVG, so anyone can edit a
 * script and plot again with `gnuplot bench-bars.gp` in that folder. */
#define _DEFAULT_SOURCE /* strdup, M_PI */
#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLOT_WIDTH   900              /* SVG width, pixels */
#define PLOT_HEIGHT  500              /* SVG height, pixels */
#define PLOT_TIMEOUT 60.0             /* seconds allowed to one gnuplot run */
#define PLOT_FIELDS  14               /* columns of BENCH_CSV_HEADER */
#define PLOT_LOG     "bench-plot.log" /* gnuplot's output, kept in out_dir only when it failed */

/* Plain text (noenhanced): '_', '^', '@', '&' and braces in case names are printed as they are. */
#define PLOT_TERMINAL                                                                              \
    "set terminal svg size %d,%d fixed noenhanced font 'Sans,11' background rgb 'white'\n"

/* One colour per device (bars, roofline points) and one per case (lines against N). */
static const char *const device_colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                             "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
static const char *const case_colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                           "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                           "#bcbd22", "#17becf", "#393b79", "#ad494a"};
/* Point type and dash type per device on the lines against N: filled circle, square, triangle,
 * diamond, ... */
static const int device_points[] = {7, 5, 9, 13, 11, 15};

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ---------------------------------------------------------------- reading bench.csv */

enum plot_kind { KIND_BASELINE, KIND_KERNEL, KIND_VENDOR, KIND_PEAK, KIND_BANDWIDTH };

static const char *const kind_names[] = {"baseline", "kernel", "vendor", "peak", "bandwidth"};

/* The columns this file reads, as numbered in BENCH_CSV_HEADER. */
enum { COL_KIND = 0, COL_CASE = 1, COL_DEVICE = 2, COL_N = 4, COL_VALUE = 10, COL_INTENSITY = 13 };

struct plot_row {
    enum plot_kind kind;
    int case_index;   /* into plot_data.cases; -1 for peak and bandwidth rows */
    int device_index; /* into plot_data.devices */
    int n;            /* matrix order; 0 for peak and bandwidth rows */
    double value;     /* GFLOP/s, or GB/s for bandwidth; NAN when empty */
    double intensity; /* flops per byte of global traffic; NAN when empty */
};

/* Distinct names in order of first appearance. */
struct plot_names {
    char **names;
    int count;
};

struct plot_data {
    struct plot_row *rows;
    int row_count;
    struct plot_names cases;   /* baseline, kernel and vendor cases: the lecture's table order */
    struct plot_names devices; /* device k is numbered k in bench-roofline-<k>.svg */
    int max_n;                 /* largest N with a GFLOP/s figure (0: none) */
};

static int fail(char *why, size_t why_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t why_size, const char *fmt, ...) {
    if (why_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int is_case(enum plot_kind kind) {
    return kind == KIND_BASELINE || kind == KIND_KERNEL || kind == KIND_VENDOR;
}

/* Index of name in the list, appended when new; -1 when out of memory. */
static int names_index(struct plot_names *l, const char *name) {
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->names[i], name) == 0)
            return i;
    char **more = realloc(l->names, (size_t)(l->count + 1) * sizeof *more);
    if (!more)
        return -1;
    l->names = more;
    if (!(l->names[l->count] = strdup(name)))
        return -1;
    return l->count++;
}

static void names_free(struct plot_names *l) {
    for (int i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        s[--len] = '\0';
    return s;
}

/* A number field: 1 when read (NAN for an empty field), 0 when it is not a number. */
static int parse_number(const char *s, double *out) {
    if (!*s) {
        *out = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno == 0 && *end == '\0' && isfinite(*out);
}

static int parse_row(struct plot_data *d, char *line, const char *path, int line_no, char *why,
                     size_t why_size) {
    char *field[PLOT_FIELDS];
    int count = 0;
    for (char *p = line;;) {
        char *comma, *start = p;
        if (*p == '"') {
            /* a quoted field (RFC 4180): runs to the lone closing quote; "" stands for " */
            char *w = p;
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                *w++ = *p;
            }
            if (*p == '"')
                p++;
            comma = *p == ',' ? p : NULL;
            *w = '\0';
        } else {
            comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
        }
        if (count < PLOT_FIELDS)
            field[count] = trim(start);
        count++;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (count != PLOT_FIELDS)
        return fail(why, why_size, "%s line %d: %d fields, %d expected (%s)", path, line_no, count,
                    PLOT_FIELDS, BENCH_CSV_HEADER);
    struct plot_row r = {.case_index = -1};
    int kind = -1;
    for (int k = 0; k < COUNT_OF(kind_names); k++)
        if (strcmp(field[COL_KIND], kind_names[k]) == 0)
            kind = k;
    if (kind < 0)
        return fail(why, why_size,
                    "%s line %d: unknown kind '%.40s' (baseline, kernel, vendor, peak or "
                    "bandwidth expected)",
                    path, line_no, field[COL_KIND]);
    r.kind = (enum plot_kind)kind;
    double n;
    if (!parse_number(field[COL_N], &n) || (!isnan(n) && (n < 0 || n > INT_MAX || n != floor(n))))
        return fail(why, why_size, "%s line %d: n '%.40s' is not a matrix order", path, line_no,
                    field[COL_N]);
    r.n = isnan(n) ? 0 : (int)n;
    if (is_case(r.kind) && r.n <= 0)
        return fail(why, why_size, "%s line %d: a %s row without its N", path, line_no,
                    kind_names[kind]);
    if (!parse_number(field[COL_VALUE], &r.value))
        return fail(why, why_size, "%s line %d: value '%.40s' is not a number", path, line_no,
                    field[COL_VALUE]);
    if (!parse_number(field[COL_INTENSITY], &r.intensity))
        return fail(why, why_size, "%s line %d: flops_per_byte '%.40s' is not a number", path,
                    line_no, field[COL_INTENSITY]);
    const char *device = *field[COL_DEVICE] ? field[COL_DEVICE] : "(unnamed device)";
    const char *name = *field[COL_CASE] ? field[COL_CASE] : "(unnamed case)";
    r.device_index = names_index(&d->devices, device);
    if (is_case(r.kind))
        r.case_index = names_index(&d->cases, name);
    if (r.device_index < 0 || (is_case(r.kind) && r.case_index < 0))
        return fail(why, why_size, "out of memory reading %s", path);
    struct plot_row *more = realloc(d->rows, (size_t)(d->row_count + 1) * sizeof *more);
    if (!more)
        return fail(why, why_size, "out of memory reading %s", path);
    d->rows = more;
    d->rows[d->row_count++] = r;
    if (is_case(r.kind) && r.value > 0 && r.n > d->max_n)
        d->max_n = r.n;
    return 0;
}

/* Cases in the lecture's order even where a device lacks some (a kernel that failed there, a
 * vendor library of one kind of device): a case first seen after case p in the rows of one device
 * and N goes right after p, not at the end; one that opens those rows goes before the next case
 * already placed. Renumbers the cases in that order. */
static int order_cases(struct plot_data *d) {
    int count = d->cases.count, placed = 0, prev = -1, device = -1, n = -1;
    int *order = malloc((size_t)(count + 1) * sizeof *order);
    int *rank = malloc((size_t)(count + 1) * sizeof *rank);
    char **names = malloc((size_t)(count + 1) * sizeof *names);
    if (!order || !rank || !names) {
        free(order);
        free(rank);
        free(names);
        return -1;
    }
    for (int c = 0; c < count; c++)
        rank[c] = -1;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (!is_case(r->kind))
            continue;
        if (r->device_index != device || r->n != n) {
            prev = -1;
            device = r->device_index;
            n = r->n;
        }
        if (rank[r->case_index] < 0) {
            /* after the case before it, else before the next case already placed, else last */
            int at = placed, next = -1;
            for (int j = i + 1; prev < 0 && next < 0 && j < d->row_count; j++) {
                const struct plot_row *q = &d->rows[j];
                if (is_case(q->kind) && (q->device_index != device || q->n != n))
                    break;
                if (is_case(q->kind) && rank[q->case_index] >= 0)
                    next = q->case_index;
            }
            for (int j = 0; j < placed; j++)
                if (order[j] == (prev >= 0 ? prev : next))
                    at = prev >= 0 ? j + 1 : j;
            memmove(order + at + 1, order + at, (size_t)(placed - at) * sizeof *order);
            order[at] = r->case_index;
            rank[r->case_index] = at; /* any value >= 0: placed */
            placed++;
        }
        prev = r->case_index;
    }
    for (int i = 0; i < count; i++) {
        rank[order[i]] = i;
        names[i] = d->cases.names[order[i]];
    }
    for (int i = 0; i < d->row_count; i++)
        if (is_case(d->rows[i].kind))
            d->rows[i].case_index = rank[d->rows[i].case_index];
    free(d->cases.names);
    d->cases.names = names;
    free(order);
    free(rank);
    return 0;
}

static int read_csv(const char *path, struct plot_data *d, char *why, size_t why_size) {
    char *text = clu_read_file(path, NULL);
    if (!text)
        return fail(why, why_size, "cannot read %s: %s", path, strerror(errno));
    int status = 0, line_no = 0;
    char *line = text;
    if (strncmp(line, "\xef\xbb\xbf", 3) == 0) /* a byte-order mark, if an editor added one */
        line += 3;
    while (status == 0 && line && *line) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        char *content = trim(line);
        if (line_no == 1) {
            if (strcmp(content, BENCH_CSV_HEADER) != 0)
                status = fail(why, why_size, "%s is not a bench CSV: its first line is not '%s'",
                              path, BENCH_CSV_HEADER);
        } else if (*content) {
            status = parse_row(d, content, path, line_no, why, why_size);
        }
        line = next;
    }
    if (status == 0 && line_no == 0)
        status = fail(why, why_size, "%s is empty (no '%s' header)", path, BENCH_CSV_HEADER);
    if (status == 0 && order_cases(d) != 0)
        status = fail(why, why_size, "out of memory reading %s", path);
    free(text);
    return status;
}

/* ---------------------------------------------------------------- writing for gnuplot */

static void gp_quote(FILE *f, const char *s, int is_format) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("''", f);
        else if (*s == '%' && is_format)
            fputs("%%", f);
        else
            fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
    }
    fputc('\'', f);
}

/* s as a gnuplot single-quoted string: no escapes inside but '' for a quote. */
static void gp_string(FILE *f, const char *s) {
    gp_quote(f, s, 0);
}

/* The same for a tic label, which gnuplot reads as a format for the tic's value. */
static void gp_format_string(FILE *f, const char *s) {
    gp_quote(f, s, 1);
}

/* A figure for people: no more digits than a timing deserves. */
static void format_figure(char *buf, size_t size, double v) {
    snprintf(buf, size, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
}

/* The same rule inside gnuplot, for the labels on the bars. */
#define GP_FIGURE                                                                                  \
    "figure(v) = v >= 100 ? sprintf('%%.0f', v) : v >= 10 ? sprintf('%%.1f', v) : v >= 1 ? "       \
    "sprintf('%%.2f', v) : sprintf('%%.3g', v)\n"

static FILE *open_output(const char *out_dir, const char *name, char *why, size_t why_size) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", out_dir, name) >= (int)sizeof path) {
        fail(why, why_size, "path too long: %s/%s", out_dir, name);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        fail(why, why_size, "cannot write %s: %s", path, strerror(errno));
    return f;
}

static int close_output(FILE *f, const char *out_dir, const char *name, char *why,
                        size_t why_size) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return fail(why, why_size, "cannot write %s/%s: %s", out_dir, name,
                    strerror(errno ? errno : EIO));
    return 0;
}

/* The opening of every script: what it is, how to plot it again, the terminal and output. */
static void gp_begin(FILE *f, const char *base, const char *what) {
    fprintf(f,
            "# %s.gp - %s.\n"
            "# Written by `grader --bench` from bench.csv with its data in %s.dat; to plot again\n"
            "# after an edit, run `gnuplot %s.gp` in this folder.\n",
            base, what, base, base);
    fprintf(f, PLOT_TERMINAL, PLOT_WIDTH, PLOT_HEIGHT);
    fprintf(f, "set output '%s.svg'\n", base);
    fprintf(f, "set encoding utf8\n");
}

/* The first few non-blank lines of gnuplot's output on one line, spaces squeezed. */
static void first_lines(const char *text, char *buf, size_t size) {
    size_t used = 0;
    int lines = 0, in_line = 0, space = 0;
    if (size == 0)
        return;
    for (const char *p = text; *p && lines < 3 && used + 1 < size; p++) {
        if (*p == '\n' || *p == '\r') {
            if (in_line)
                lines++;
            in_line = 0;
            space = 0;
            continue;
        }
        if (*p == ' ' || *p == '\t') {
            space = in_line;
            continue;
        }
        const char *sep = !in_line && lines > 0 ? " | " : space ? " " : "";
        for (; *sep && used + 1 < size; sep++)
            buf[used++] = *sep;
        if (used + 1 < size)
            buf[used++] = (unsigned char)*p < ' ' ? ' ' : *p;
        in_line = 1;
        space = 0;
    }
    buf[used] = '\0';
}

/* Run gnuplot on out_dir/<base>.gp from inside out_dir (the script names its files without a
 * folder); 1 when <base>.svg was written, -1 with why otherwise. */
static int run_gnuplot(const char *gnuplot, const char *out_dir, const char *base, char *why,
                       size_t why_size) {
    char cd[2 * PATH_MAX + 8], script[64], log[PATH_MAX], svg[PATH_MAX];
    if (strlen(out_dir) + 32 >= PATH_MAX)
        return fail(why, why_size, "folder name too long: %s", out_dir);
    size_t used = (size_t)snprintf(cd, sizeof cd, "cd '");
    for (const char *s = out_dir; *s; s++) {
        if (*s == '\'') /* '' in a single-quoted gnuplot string */
            cd[used++] = '\'';
        cd[used++] = *s;
    }
    cd[used++] = '\'';
    cd[used] = '\0';
    snprintf(script, sizeof script, "%s.gp", base);
    snprintf(log, sizeof log, "%s/%s", out_dir, PLOT_LOG);
    snprintf(svg, sizeof svg, "%s/%s.svg", out_dir, base);
    unlink(svg);
    struct grader_argv command = GRADER_ARGV_INIT;
    grader_argv_push_all(&command, (const char *const[]){gnuplot, "-e", cd, script, NULL});
    struct grader_run_result result;
    grader_run(command.argv, log, PLOT_TIMEOUT, &result);
    grader_argv_clear(&command);
    if (result.how != RUN_EXITED || result.code != 0) {
        char how[200], said[400];
        grader_describe_run(&result, how, sizeof how);
        char *output = grader_read_capped(log, 4000);
        first_lines(output ? output : "", said, sizeof said);
        free(output);
        return fail(why, why_size, "gnuplot %s/%s %s (its output: %s/%s): %s", out_dir, script, how,
                    out_dir, PLOT_LOG, *said ? said : "(no output)");
    }
    unlink(log);
    struct stat st;
    if (stat(svg, &st) != 0 || st.st_size < 200)
        return fail(why, why_size, "gnuplot ran %s/%s but wrote no %s", out_dir, script, svg);
    return 1;
}

/* Plots of an earlier run, which this one might not redraw (fewer devices, a single N). */
static void remove_stale(const char *out_dir) {
    DIR *dir = opendir(out_dir);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        const char *name = e->d_name, *dot = strrchr(name, '.');
        int ours = strncmp(name, "bench-roofline-", 15) == 0 ||
                   strncmp(name, "bench-sizes.", 12) == 0 ||
                   strncmp(name, "bench-bars.", 11) == 0 || strcmp(name, PLOT_LOG) == 0;
        if (ours && dot &&
            (strcmp(dot, ".svg") == 0 || strcmp(dot, ".gp") == 0 || strcmp(dot, ".dat") == 0 ||
             strcmp(dot, ".log") == 0)) {
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", out_dir, name) < (int)sizeof path)
                unlink(path);
        }
    }
    closedir(dir);
}

/* GFLOP/s of case c on device k at size n (the last such row), or NAN. */
static double gflops_at(const struct plot_data *d, int c, int k, int n) {
    double v = NAN;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (is_case(r->kind) && r->case_index == c && r->device_index == k && r->n == n &&
            r->value > 0)
            v = r->value;
    }
    return v;
}

/* ---------------------------------------------------------------- bench-bars: GFLOP/s per case */

#define BARS_SLANT 30   /* degrees of the case names under the bars */
#define BARS_FONT  10.0 /* their size, pixels */
#define CHAR_WIDTH 0.55 /* average character width of a sans font, in font sizes (generous) */

static int write_bars(const struct plot_data *d, const char *out_dir, char *why, size_t why_size) {
    int cases = d->cases.count, devices = d->devices.count, n = d->max_n;
    double *value = malloc(((size_t)cases * (size_t)devices + 1) * sizeof *value);
    int *shown = calloc((size_t)devices + 1, sizeof *shown);  /* devices with a bar */
    int *group = malloc(((size_t)cases + 1) * sizeof *group); /* x of a case; -1: no bar */
    int status = 0;
    if (!value || !shown || !group) {
        status = fail(why, why_size, "out of memory");
        goto done;
    }
    double low = INFINITY, high = 0;
    int shown_count = 0, groups = 0;
    for (int c = 0; c < cases; c++) {
        group[c] = -1;
        for (int k = 0; k < devices; k++) {
            double v = value[c * devices + k] = gflops_at(d, c, k, n);
            if (v > 0) {
                low = fmin(low, v);
                high = fmax(high, v);
                shown_count += !shown[k];
                shown[k] = 1;
                if (group[c] < 0)
                    group[c] = groups++;
            }
        }
    }
    /* bars from the bottom of the axis; room over the tallest for its label */
    double bottom = pow(10, floor(log10(low / 3))), top = pow(10, ceil(log10(high * 8)));
    double width = fmin(0.8 / shown_count, 0.4);

    FILE *f = open_output(out_dir, "bench-bars.dat", why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f,
            "# bench-bars.dat - GFLOP/s (median) of each case at N = %d, from bench.csv.\n"
            "# One block per device (gnuplot's index 0, 1, ...), one line per bar:\n"
            "# x  GFLOP/s  x_left  x_right  y_bottom  case\n"
            "# Cases (x = case):",
            n);
    for (int c = 0; c < cases; c++)
        if (group[c] >= 0)
            fprintf(f, "%s %d = %s", group[c] ? ";" : "", group[c], d->cases.names[c]);
    fprintf(f, "\n");
    for (int k = 0, block = 0; k < devices; k++) {
        if (!shown[k])
            continue;
        fprintf(f, "%s# index %d: %s\n", block ? "\n\n" : "", block, d->devices.names[k]);
        block++;
        for (int c = 0; c < cases; c++) {
            if (!(value[c * devices + k] > 0))
                continue;
            /* the bars of a case side by side, centred on it, in device order */
            int here = 0, slot = 0;
            for (int j = 0; j < devices; j++)
                if (value[c * devices + j] > 0) {
                    slot += j < k;
                    here++;
                }
            double x = group[c] + (slot - (here - 1) / 2.0) * width;
            fprintf(f, "%g %.6g %g %g %.6g %d\n", x, value[c * devices + k], x - width / 2,
                    x + width / 2, bottom, group[c]);
        }
    }
    if ((status = close_output(f, out_dir, "bench-bars.dat", why, why_size)) != 0)
        goto done;

    if (!(f = open_output(out_dir, "bench-bars.gp", why, why_size))) {
        status = -1;
        goto done;
    }
    gp_begin(f, "bench-bars", "GFLOP/s of each case and device at the largest N, log scale");
    fprintf(f,
            "set label 1 'Matrix multiplication, N = %d: GFLOP/s (median)' at screen 0.5, "
            "screen %.3f center font ',14'\n",
            n, 1 - 18.0 / PLOT_HEIGHT);
    fprintf(f, "set ylabel 'GFLOP/s (median of the timed runs, log scale)'\n");
    fprintf(f, "set logscale y\nset format y '%%.12g'\nset yrange [%g:%g]\n", bottom, top);
    fprintf(f, "set xrange [-0.6:%g]\n", groups - 0.4);
    /* room for the slanted case names: below the plot, and left of the first ones */
    double slant = BARS_SLANT * M_PI / 180, left = 80, longest = 0;
    for (int pass = 0; pass < 2; pass++) {
        double spacing = ((PLOT_WIDTH - 20) - left) / (groups + 0.2), need = 80;
        for (int c = 0; c < cases; c++) {
            if (group[c] < 0)
                continue;
            double reach = CHAR_WIDTH * BARS_FONT * (double)strlen(d->cases.names[c]);
            need = fmax(need, reach * cos(slant) + 8 - (group[c] + 0.6) * spacing);
            longest = fmax(longest, reach);
        }
        left = fmin(need, PLOT_WIDTH / 3.0);
    }
    double below = fmin(longest * sin(slant) + 2.5 * BARS_FONT, PLOT_HEIGHT / 2.5);
    fprintf(f,
            "set lmargin at screen %.3f\nset rmargin at screen %.3f\nset bmargin at screen "
            "%.3f\n",
            left / PLOT_WIDTH, 1 - 20.0 / PLOT_WIDTH, below / PLOT_HEIGHT);
    fprintf(f, "set grid ytics lc rgb '#dddddd' lt 1\nset ytics nomirror\n");
    fprintf(f, "# tic labels are formats: %%%% prints a %%\n");
    fprintf(f, "set xtics nomirror scale 0 rotate by %d right font ',%g' (", BARS_SLANT, BARS_FONT);
    for (int c = 0; c < cases; c++) {
        if (group[c] < 0)
            continue;
        fprintf(f, "%s", group[c] ? ", \\\n    " : "");
        gp_format_string(f, d->cases.names[c]);
        fprintf(f, " %d", group[c]);
    }
    fprintf(f, ")\n");
    fprintf(f, "set style fill solid 0.85 border lc rgb '#333333'\n");
    /* the key under the title, over the plot: two devices a row, one when the names are long
     * (gnuplot would then choose one column itself and overlap the plot) */
    size_t longest_device = 0;
    for (int k = 0; k < devices; k++)
        if (shown[k] && strlen(d->devices.names[k]) > longest_device)
            longest_device = strlen(d->devices.names[k]);
    int key_columns = longest_device > 40 ? 1 : 2;
    int key_rows = (shown_count + key_columns - 1) / key_columns;
    fprintf(f,
            "set key at screen 0.5, screen %.3f center top horizontal maxcols %d reverse Left "
            "samplen 1.5 width -2\n"
            "set tmargin at screen %.3f\n",
            1 - 34.0 / PLOT_HEIGHT, key_columns, 1 - (40.0 + 17.0 * key_rows) / PLOT_HEIGHT);
    fprintf(f, GP_FIGURE);
    fprintf(f, "plot ");
    for (int k = 0, block = 0; k < devices; k++) {
        if (!shown[k])
            continue;
        const char *colour = device_colours[k % COUNT_OF(device_colours)];
        fprintf(f,
                "%s'bench-bars.dat' index %d using 1:2:3:4:5:2 with boxxyerror lc rgb '%s' "
                "title ",
                block ? ", \\\n     " : "", block, colour);
        gp_string(f, d->devices.names[k]);
        fprintf(f,
                ", \\\n     'bench-bars.dat' index %d using 1:2:(figure($2)) with labels "
                "rotate by 90 left offset 0,0.3 font ',9' notitle",
                block);
        block++;
    }
    fprintf(f, "\n");
    status = close_output(f, out_dir, "bench-bars.gp", why, why_size);
done:
    free(value);
    free(shown);
    free(group);
    return status;
}

/* ---------------------------------------------------------------- bench-sizes: GFLOP/s vs N */

static int compare_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The distinct N with a GFLOP/s figure, ascending, into sizes (row_count long); their count. */
static int distinct_sizes(const struct plot_data *d, int *sizes) {
    int count = 0;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (!is_case(r->kind) || !(r->value > 0))
            continue;
        int seen = 0;
        for (int j = 0; j < count && !seen; j++)
            seen = sizes[j] == r->n;
        if (!seen)
            sizes[count++] = r->n;
    }
    qsort(sizes, (size_t)count, sizeof *sizes, compare_int);
    return count;
}

/* 1 when written, 0 when fewer than two N were measured (nothing written), -1 on failure. */
static int write_sizes(const struct plot_data *d, const char *out_dir, char *why, size_t why_size) {
    int cases = d->cases.count, devices = d->devices.count;
    int *sizes = malloc((size_t)(d->row_count + 1) * sizeof *sizes);
    int *used = calloc((size_t)cases * (size_t)devices + 1, sizeof *used); /* series with data */
    int status = 0;
    if (!sizes || !used) {
        status = fail(why, why_size, "out of memory");
        goto done;
    }
    int size_count = distinct_sizes(d, sizes);
    if (size_count < 2)
        goto done;

    FILE *f = open_output(out_dir, "bench-sizes.dat", why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f, "# bench-sizes.dat - GFLOP/s (median) against N, from bench.csv.\n"
               "# One block per case and device (gnuplot's index 0, 1, ...): N  GFLOP/s\n");
    int block = 0;
    size_t longest = 0; /* of the names in the key */
    double low = INFINITY, high = 0;
    for (int c = 0; c < cases; c++)
        for (int k = 0; k < devices; k++) {
            int points = 0;
            for (int s = 0; s < size_count; s++) {
                double v = gflops_at(d, c, k, sizes[s]);
                if (v > 0) {
                    points++;
                    low = fmin(low, v);
                    high = fmax(high, v);
                }
            }
            if (!points)
                continue;
            used[c * devices + k] = 1;
            size_t case_length = strlen(d->cases.names[c]);
            size_t device_length = strlen(d->devices.names[k]);
            longest = case_length > longest ? case_length : longest;
            longest = device_length > longest ? device_length : longest;
            fprintf(f, "%s# index %d: %s on %s\n", block ? "\n\n" : "", block, d->cases.names[c],
                    d->devices.names[k]);
            block++;
            for (int s = 0; s < size_count; s++) {
                double v = gflops_at(d, c, k, sizes[s]);
                if (v > 0)
                    fprintf(f, "%d %.6g\n", sizes[s], v);
            }
        }
    if ((status = close_output(f, out_dir, "bench-sizes.dat", why, why_size)) != 0)
        goto done;

    if (!(f = open_output(out_dir, "bench-sizes.gp", why, why_size))) {
        status = -1;
        goto done;
    }
    gp_begin(f, "bench-sizes", "GFLOP/s against N, one line per case and device, log-log");
    fprintf(f, "set title 'Matrix multiplication: GFLOP/s (median) against N' font ',14'\n");
    fprintf(f, "set xlabel 'N (matrix order, log scale)'\n"
               "set ylabel 'GFLOP/s (median of the timed runs, log scale)'\n");
    fprintf(f, "set logscale xy\nset format y '%%.12g'\nset xrange [%g:%g]\n", sizes[0] / 1.2,
            sizes[size_count - 1] * 1.2);
    if (size_count <= 12) {
        fprintf(f, "set xtics (");
        for (int s = 0; s < size_count; s++)
            fprintf(f, "%s%d", s ? ", " : "", sizes[s]);
        fprintf(f, ")\n");
    }
    /* GFLOP/s from a power of ten to a power of ten, with 2 and 5 labelled when that is few */
    double bottom = floor(log10(low / 1.2)), top = ceil(log10(high * 1.2));
    fprintf(f, "set yrange [%g:%g]\n", pow(10, bottom), pow(10, top));
    if (top - bottom <= 2) {
        fprintf(f, "set ytics (");
        for (double e = bottom; e <= top; e++)
            for (int m = 1; m <= 5 && (m == 1 || e < top); m += m == 1 ? 1 : 3)
                fprintf(f, "%s'%%.12g' %g", e > bottom || m > 1 ? ", " : "", m * pow(10, e));
        fprintf(f, ")\n");
    }
    fprintf(f, "set grid xtics ytics lc rgb '#dddddd' lt 1\n");
    /* the key at the right, as wide as its longest name needs (gnuplot guesses wider) */
    double key_width = fmin(CHAR_WIDTH * 9 * (double)longest + 50, PLOT_WIDTH / 2.0);
    fprintf(f,
            "set rmargin at screen %.3f\nset lmargin at screen 0.09\n"
            "set key at screen %.3f, graph 1 left top Left reverse samplen 2.5 font ',9' "
            "spacing 1.1\n",
            1 - (key_width + 15) / PLOT_WIDTH, 1 - (key_width + 5) / PLOT_WIDTH);
    fprintf(f, "plot ");
    block = 0;
    /* colour by case, dashes and point shape by device; the key lists each once */
    for (int c = 0; c < cases; c++)
        for (int k = 0; k < devices; k++) {
            if (!used[c * devices + k])
                continue;
            fprintf(f,
                    "%s'bench-sizes.dat' index %d using 1:2 with linespoints lw 1.5 lc rgb '%s' "
                    "dt %d pt %d ps 0.8 notitle",
                    block ? ", \\\n     " : "", block, case_colours[c % COUNT_OF(case_colours)],
                    k % 5 + 1, device_points[k % COUNT_OF(device_points)]);
            block++;
        }
    for (int k = 0; k < devices; k++) {
        int any = 0;
        for (int c = 0; c < cases; c++)
            any |= used[c * devices + k];
        if (!any)
            continue;
        fprintf(f,
                ", \\\n     keyentry with linespoints lw 1.5 lc rgb 'black' dt %d pt %d ps 0.8 "
                "title ",
                k % 5 + 1, device_points[k % COUNT_OF(device_points)]);
        gp_string(f, d->devices.names[k]);
    }
    for (int c = 0; c < cases; c++) {
        int any = 0;
        for (int k = 0; k < devices; k++)
            any |= used[c * devices + k];
        if (!any)
            continue;
        fprintf(f, ", \\\n     keyentry with lines lw 3 lc rgb '%s' title ",
                case_colours[c % COUNT_OF(case_colours)]);
        gp_string(f, d->cases.names[c]);
    }
    fprintf(f, "\n");
    if ((status = close_output(f, out_dir, "bench-sizes.gp", why, why_size)) == 0)
        status = 1;
done:
    free(sizes);
    free(used);
    return status;
}

/* ---------------------------------------------------------------- bench-roofline-<k> */

/* The plot area of a log-log figure, in pixels from its bottom-left corner, so that labels can
 * be placed where they overlap nothing (the script fixes the margins to match). */
struct frame {
    double x0, x1, y0, y1; /* axis ranges, log10 */
    double width, height;  /* plot area, pixels */
};

#define FRAME_LEFT       0.10 /* margins, fractions of the figure */
#define FRAME_RIGHT      0.97
#define FRAME_BOTTOM     0.12
#define FRAME_TOP        0.90
#define LABEL_FONT       9.0  /* point labels, pixels */
#define LEADER_MIN       12.0 /* pixels between a point and its label that call for a line */
#define LABEL_SHIFTS     10   /* lines a label may move up or down from its point */
#define LABEL_ROUNDS     4    /* rounds of moving each label again once all are placed */
#define BANDWIDTH_PIECES 8    /* the slanted bandwidth label, as boxes for the label placement */

static double frame_px(const struct frame *f, double x) {
    return f->width * (log10(x) - f->x0) / (f->x1 - f->x0);
}

static double frame_py(const struct frame *f, double y) {
    return f->height * (log10(y) - f->y0) / (f->y1 - f->y0);
}

static double frame_x(const struct frame *f, double px) {
    return pow(10, f->x0 + px / f->width * (f->x1 - f->x0));
}

static double frame_y(const struct frame *f, double py) {
    return pow(10, f->y0 + py / f->height * (f->y1 - f->y0));
}

struct box {
    double x0, y0, x1, y1; /* pixels */
    int is_point;          /* a point's marker: worse to cover than a label */
};

static int boxes_overlap(const struct box *a, const struct box *b) {
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* How much of the smaller of two boxes the other covers, 0 to 1. */
static double overlap_fraction(const struct box *a, const struct box *b) {
    double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0), h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
    double smaller = fmin((a->x1 - a->x0) * (a->y1 - a->y0), (b->x1 - b->x0) * (b->y1 - b->y0));
    return w > 0 && h > 0 && smaller > 0 ? fmin(1, w * h / smaller) : 0;
}

/* Whether the roofline min(peak, bandwidth x) passes through box b. */
static int crosses_roof(const struct frame *f, double peak, double bandwidth, const struct box *b) {
    double ya = frame_py(f, fmin(peak, bandwidth * frame_x(f, b->x0)));
    double yb = frame_py(f, fmin(peak, bandwidth * frame_x(f, b->x1)));
    return fmax(ya, yb) >= b->y0 && fmin(ya, yb) <= b->y1;
}

enum label_align { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_CENTRE };

struct roof_point {
    int case_index;
    double x, y;            /* flops per byte, GFLOP/s */
    double px, py;          /* pixels */
    struct box text;        /* where its label went */
    enum label_align align; /* how the label hangs from its anchor */
};

/* The point of box b nearest to (px, py): where a leader line from that point meets the label. */
static void nearest_edge(const struct box *b, double px, double py, double *ex, double *ey) {
    *ex = fmin(fmax(px, b->x0), b->x1);
    *ey = fmin(fmax(py, b->y0), b->y1);
}

/* The cost of the label of the point at (px, py) in box b: out of the plot, over another point or
 * label, across the roof, or with a leader line that crosses the roof or another label. */
static double label_cost(const struct frame *f, double peak, double bandwidth, const struct box *b,
                         double px, double py, const struct box *taken, int taken_count) {
    double cost = 0, ex, ey;
    if (b->x0 < 0 || b->x1 > f->width || b->y0 < 0 || b->y1 > f->height)
        cost += 1000;
    for (int i = 0; i < taken_count; i++)
        if (boxes_overlap(b, &taken[i])) /* a corner touched costs less than a point covered */
            cost += (30.0 + 70.0 * overlap_fraction(b, &taken[i])) * (1 + taken[i].is_point);
    nearest_edge(b, px, py, &ex, &ey);
    double leader = hypot(ex - px, ey - py);
    double roof_at_point = frame_py(f, fmin(peak, bandwidth * frame_x(f, px)));
    double roof_at_end = frame_py(f, fmin(peak, bandwidth * frame_x(f, ex)));
    if (leader > LEADER_MIN && (py < roof_at_point) != (ey < roof_at_end))
        cost += 40;
    if (leader > LEADER_MIN)
        for (int i = 0; i < taken_count; i++)
            for (double t = 6 / leader; t < 1; t += 0.05) {
                struct box dot = {px + t * (ex - px), py + t * (ey - py), 0, 0, 0};
                dot.x1 = dot.x0 + 0.5;
                dot.y1 = dot.y0 + 0.5;
                if (boxes_overlap(&dot, &taken[i])) {
                    cost += 25.0 * (1 + taken[i].is_point);
                    break;
                }
            }
    return cost + 60.0 * crosses_roof(f, peak, bandwidth, b);
}

/* Boxes already taken by points, labels and the annotations; a label goes where it overlaps the
 * fewest, off the roofline, close to its point: at its right or left, a few lines up or down,
 * else over or under it. */
static double place_label(const struct frame *f, double peak, double bandwidth,
                          struct roof_point *p, const char *name, const struct box *taken,
                          int taken_count) {
    double w = CHAR_WIDTH * LABEL_FONT * (double)strlen(name), h = 1.4 * LABEL_FONT;
    double best = INFINITY;
    for (int side = 0; side < 2; side++) /* right, left: level with it, then lines away */
        for (int shift = -LABEL_SHIFTS; shift <= LABEL_SHIFTS; shift++) {
            double cy = p->py + shift * (h + 1);
            struct box b = {side ? p->px - 7 - w : p->px + 7, cy - h / 2,
                            side ? p->px - 7 : p->px + 7 + w, cy + h / 2, 0};
            double cost = 3.0 * abs(shift) + 2.0 * side +
                          label_cost(f, peak, bandwidth, &b, p->px, p->py, taken, taken_count);
            if (cost < best) {
                best = cost;
                p->text = b;
                p->align = side ? ALIGN_RIGHT : ALIGN_LEFT;
            }
        }
    for (int up = -1; up <= 1; up += 2) /* under and over, centred or hanging to one side */
        for (int away = 0; away < LABEL_SHIFTS / 2; away++)
            for (int hang = 0; hang < 3; hang++) {
                double cy = p->py + up * (h / 2 + 6 + away * (h + 1));
                double x0 = hang == 0 ? p->px - w / 2 : hang == 1 ? p->px - 8 : p->px + 8 - w;
                struct box b = {x0, cy - h / 2, x0 + w, cy + h / 2, 0};
                double cost = 3.0 * (away + 1) + hang +
                              label_cost(f, peak, bandwidth, &b, p->px, p->py, taken, taken_count);
                if (cost < best) {
                    best = cost;
                    p->text = b;
                    p->align = hang == 0 ? ALIGN_CENTRE : hang == 1 ? ALIGN_LEFT : ALIGN_RIGHT;
                }
            }
    return best;
}

/* Labels for all the points, one at a time, in whichever of a few orders (the table's, by
 * intensity, by GFLOP/s) costs least in all; taken has room for count more boxes. Returns 0, or
 * -1 when out of memory (the labels then placed in the table's order). */
static int place_labels(const struct frame *f, double peak, double bandwidth,
                        struct roof_point *points, int count, char *const *names, struct box *taken,
                        int taken_count) {
    struct roof_point *trial = malloc(((size_t)count + 1) * sizeof *trial);
    struct box *boxes = malloc(((size_t)taken_count + (size_t)count + 1) * sizeof *boxes);
    int *order = malloc(((size_t)count + 1) * sizeof *order);
    int status = trial && boxes && order ? 0 : -1;
    double best = INFINITY;
    for (int way = 0; way < (status == 0 ? 5 : 0); way++) {
        for (int i = 0; i < count; i++) { /* insertion sort by the way's key */
            int j = i;
            for (; j > 0; j--) {
                const struct roof_point *a = &points[order[j - 1]], *b = &points[i];
                double ka = way == 1 ? -a->x : way == 2 ? a->x : way == 3 ? -a->y : a->y;
                double kb = way == 1 ? -b->x : way == 2 ? b->x : way == 3 ? -b->y : b->y;
                if (way == 0 || ka <= kb)
                    break;
                order[j] = order[j - 1];
            }
            order[j] = i;
        }
        memcpy(trial, points, (size_t)count * sizeof *trial);
        memcpy(boxes, taken, (size_t)taken_count * sizeof *boxes);
        for (int i = 0; i < count; i++) {
            struct roof_point *p = &trial[order[i]];
            place_label(f, peak, bandwidth, p, names[p->case_index], boxes, taken_count + i);
            boxes[taken_count + i] = p->text;
        }
        /* then move each label again knowing where all the others went, a few rounds */
        double total = 0;
        for (int round = 0; round < LABEL_ROUNDS; round++) {
            total = 0;
            for (int i = 0; i < count; i++) {
                struct roof_point *p = &trial[order[i]];
                boxes[taken_count + i] =
                    (struct box){-1e9, -1e9, -1e9, -1e9, 0}; /* out of the way */
                total += place_label(f, peak, bandwidth, p, names[p->case_index], boxes,
                                     taken_count + count);
                boxes[taken_count + i] = p->text;
            }
        }
        if (total < best) {
            best = total;
            memcpy(points, trial, (size_t)count * sizeof *points);
        }
    }
    for (int i = 0; status != 0 && i < count; i++) {
        place_label(f, peak, bandwidth, &points[i], names[points[i].case_index], taken,
                    taken_count + i);
        taken[taken_count + i] = points[i].text;
    }
    free(trial);
    free(boxes);
    free(order);
    return status;
}

static int write_roofline(const struct plot_data *d, int k, const char *out_dir, char *why,
                          size_t why_size) {
    double peak = 0, bandwidth = 0;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (r->device_index == k && r->kind == KIND_PEAK && r->value > peak)
            peak = r->value;
        if (r->device_index == k && r->kind == KIND_BANDWIDTH && r->value > bandwidth)
            bandwidth = r->value;
    }
    if (!(peak > 0) || !(bandwidth > 0))
        return 0;
    /* the device's cases with an intensity, at the largest N that has them */
    int n = 0;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (r->device_index == k && is_case(r->kind) && r->value > 0 && r->intensity > 0 &&
            r->n > n)
            n = r->n;
    }
    struct roof_point *points = calloc((size_t)d->cases.count + 1, sizeof *points);
    struct box *taken = calloc(2 * (size_t)d->cases.count + BANDWIDTH_PIECES + 2, sizeof *taken);
    if (!points || !taken) {
        free(points);
        free(taken);
        return fail(why, why_size, "out of memory");
    }
    int count = 0;
    for (int c = 0; c < d->cases.count; c++) {
        double v = NAN, x = NAN;
        for (int i = 0; i < d->row_count; i++) {
            const struct plot_row *r = &d->rows[i];
            if (r->device_index == k && is_case(r->kind) && r->case_index == c && r->n == n &&
                r->value > 0 && r->intensity > 0) {
                v = r->value;
                x = r->intensity;
            }
        }
        if (v > 0)
            points[count++] = (struct roof_point){.case_index = c, .x = x, .y = v};
    }

    /* axes: every point, the ridge, the peak with room for its label, two decades of slope */
    double ridge = peak / bandwidth, xlo = ridge / 30, xhi = ridge, ylo = peak / 100, yhi = peak;
    for (int i = 0; i < count; i++) {
        xlo = fmin(xlo, points[i].x);
        xhi = fmax(xhi, points[i].x);
        ylo = fmin(ylo, points[i].y);
        yhi = fmax(yhi, points[i].y);
    }
    struct frame fr = {floor(log10(xlo / 3)),
                       ceil(log10(xhi * 3)),
                       floor(log10(ylo / 2)),
                       ceil(log10(yhi * 2.5)),
                       (FRAME_RIGHT - FRAME_LEFT) * PLOT_WIDTH,
                       (FRAME_TOP - FRAME_BOTTOM) * PLOT_HEIGHT};
    int taken_count = 0;
    for (int i = 0; i < count; i++) {
        points[i].px = frame_px(&fr, points[i].x);
        points[i].py = frame_py(&fr, points[i].y);
        taken[taken_count++] =
            (struct box){points[i].px - 6, points[i].py - 6, points[i].px + 6, points[i].py + 6, 1};
    }
    /* the peak's label over the flat roof at the right; the bandwidth's along the slope, rotated
     * to match it, halfway along the part in view; the ridge's at the foot of a dotted line */
    char peak_text[120], bandwidth_text[120], ridge_text[120], figure[32];
    format_figure(figure, sizeof figure, peak);
    snprintf(peak_text, sizeof peak_text, "measured peak: %s GFLOP/s (FP32 multiply-add)", figure);
    format_figure(figure, sizeof figure, bandwidth);
    snprintf(bandwidth_text, sizeof bandwidth_text, "measured bandwidth: %s GB/s", figure);
    format_figure(figure, sizeof figure, ridge);
    snprintf(ridge_text, sizeof ridge_text, "ridge: %s flops/byte", figure);
    double note_w = CHAR_WIDTH * 11, note_h = 1.3 * 11;
    /* over the flat roof, unless a point is there and under it is clear */
    double peak_py = frame_py(&fr, peak),
           peak_x0 = fr.width - 8 - note_w * (double)strlen(peak_text);
    struct box over = {peak_x0, peak_py + 9, fr.width - 8, peak_py + 24, 0}; /* a line off it */
    struct box under = {peak_x0, peak_py - 17, fr.width - 8, peak_py - 3, 0};
    double cost_over = 20.0 * crosses_roof(&fr, peak, bandwidth, &over);
    double cost_under = 1 + 20.0 * crosses_roof(&fr, peak, bandwidth, &under);
    for (int i = 0; i < count; i++) {
        cost_over += 100.0 * boxes_overlap(&over, &taken[i]);
        cost_under += 100.0 * boxes_overlap(&under, &taken[i]);
    }
    int peak_under = cost_under < cost_over;
    taken[taken_count++] = peak_under ? under : over;
    double slope = atan2(fr.height / (fr.y1 - fr.y0), fr.width / (fr.x1 - fr.x0));
    double sx0 = fmax(fr.x0, fr.y0 - log10(bandwidth)), sx1 = fmin(log10(ridge), fr.x1);
    double smid = (sx0 + sx1) / 2;
    double bx = fr.width * (smid - fr.x0) / (fr.x1 - fr.x0) - sin(slope) * 0.8 * note_h;
    double by = frame_py(&fr, bandwidth * pow(10, smid)) + cos(slope) * 0.8 * note_h;
    /* the rotated label as the boxes of its pieces of BANDWIDTH_PIECES characters */
    double length = note_w * (double)strlen(bandwidth_text), piece = length / BANDWIDTH_PIECES;
    for (int part = 0; part < BANDWIDTH_PIECES; part++) {
        double along = (part + 0.5) * piece - length / 2;
        double cx = bx + along * cos(slope), cy = by + along * sin(slope);
        double rx = piece / 2 * cos(slope) + note_h / 4, ry = piece / 2 * sin(slope) + note_h / 2;
        taken[taken_count++] = (struct box){cx - rx, cy - ry, cx + rx, cy + ry, 0};
    }
    double ridge_px = frame_px(&fr, ridge);
    taken[taken_count++] = (struct box){
        ridge_px + 3, 0, ridge_px + 5 + note_w * (double)strlen(ridge_text), note_h, 0};
    place_labels(&fr, peak, bandwidth, points, count, d->cases.names, taken, taken_count);

    char base[64], name[80];
    snprintf(base, sizeof base, "bench-roofline-%d", k);
    snprintf(name, sizeof name, "%s.dat", base);
    int status = 0;
    FILE *f = open_output(out_dir, name, why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f, "# %s.dat - the cases of device %d (%s) at N = %d, from bench.csv.\n", base, k,
            d->devices.names[k], n);
    fprintf(f, "# measured peak %.6g GFLOP/s, measured bandwidth %.6g GB/s\n", peak, bandwidth);
    fprintf(f, "# flops_per_byte  GFLOP/s  case\n");
    for (int i = 0; i < count; i++)
        fprintf(f, "%.6g %.6g %d  # %s\n", points[i].x, points[i].y, points[i].case_index,
                d->cases.names[points[i].case_index]);
    if (count == 0) /* gnuplot stops on a data file without points */
        fprintf(f, "NaN NaN -1\n");
    if ((status = close_output(f, out_dir, name, why, why_size)) != 0)
        goto done;

    snprintf(name, sizeof name, "%s.gp", base);
    if (!(f = open_output(out_dir, name, why, why_size))) {
        status = -1;
        goto done;
    }
    gp_begin(f, base, "the roofline of one device with its kernels placed on it");
    fprintf(f, "set title ");
    gp_string(f, d->devices.names[k]);
    if (count > 0)
        fprintf(f, ".': roofline, kernels at N = %d'", n);
    else
        fprintf(f, ".': roofline (no kernel has a counted intensity)'");
    fprintf(f, " font ',14'\n");
    fprintf(f, "set xlabel 'arithmetic intensity (flops per byte of global memory traffic, log "
               "scale)'\n"
               "set ylabel 'GFLOP/s (median of the timed runs, log scale)'\n");
    fprintf(f, "set logscale xy\nset format x '%%.12g'\nset format y '%%.12g'\n");
    fprintf(f, "set xrange [%g:%g]\nset yrange [%g:%g]\n", pow(10, fr.x0), pow(10, fr.x1),
            pow(10, fr.y0), pow(10, fr.y1));
    fprintf(f,
            "# fixed margins: the labels were placed for this plot area\n"
            "set lmargin at screen %g\nset rmargin at screen %g\n"
            "set bmargin at screen %g\nset tmargin at screen %g\n",
            FRAME_LEFT, FRAME_RIGHT, FRAME_BOTTOM, FRAME_TOP);
    fprintf(f, "set grid xtics ytics lc rgb '#e4e4e4' lt 1\nset tics nomirror\nunset key\nset "
               "samples 2000\n");
    fprintf(f, "peak = %.6g       # GFLOP/s\nbandwidth = %.6g  # GB/s\n", peak, bandwidth);
    fprintf(f, "roof(x) = bandwidth * x < peak ? bandwidth * x : peak\n");
    fprintf(f, "set label 1 ");
    gp_string(f, peak_text);
    fprintf(f, " at graph 1, first peak right offset -1.2,%s font ',11' tc rgb '#333333'\n",
            peak_under ? "-1.0" : "1.0");
    fprintf(f, "set label 2 ");
    gp_string(f, bandwidth_text);
    fprintf(f, " at %.6g, %.6g center rotate by %.1f font ',11' tc rgb '#333333'\n",
            frame_x(&fr, bx), frame_y(&fr, by), slope * 180 / M_PI);
    fprintf(f, "set label 3 ");
    gp_string(f, ridge_text);
    fprintf(f, " at %.6g, graph 0 left offset 0.4,0.7 font ',11' tc rgb '#666666'\n", ridge);
    fprintf(f, "set arrow 1 from %.6g, graph 0 to %.6g, first peak nohead dt 3 lc rgb '#888888'\n",
            ridge, ridge);
    for (int i = 0; i < count; i++) {
        const struct roof_point *p = &points[i];
        double ax = p->align == ALIGN_LEFT    ? p->text.x0
                    : p->align == ALIGN_RIGHT ? p->text.x1
                                              : (p->text.x0 + p->text.x1) / 2;
        double ay = (p->text.y0 + p->text.y1) / 2;
        fprintf(f, "set label %d ", 10 + i);
        gp_string(f, d->cases.names[p->case_index]);
        fprintf(f, " at %.6g, %.6g %s font ',%g'\n", frame_x(&fr, ax), frame_y(&fr, ay),
                p->align == ALIGN_LEFT    ? "left"
                : p->align == ALIGN_RIGHT ? "right"
                                          : "center",
                LABEL_FONT);
        /* a label moved away from its point: a leader line to the nearest edge of it */
        double ex, ey;
        nearest_edge(&p->text, p->px, p->py, &ex, &ey);
        if (hypot(ex - p->px, ey - p->py) > LEADER_MIN)
            fprintf(f,
                    "set arrow %d from %.6g, %.6g to %.6g, %.6g nohead lw 0.5 lc rgb '#999999'\n",
                    10 + i, p->x, p->y, frame_x(&fr, ex), frame_y(&fr, ey));
    }
    fprintf(f,
            "plot roof(x) with lines lw 2.5 lc rgb '#444444', \\\n"
            "     '%s.dat' using 1:2 with points pt 7 ps 1.2 lc rgb '%s'\n",
            base, device_colours[k % COUNT_OF(device_colours)]);
    status = close_output(f, out_dir, name, why, why_size);
    if (status == 0)
        status = 1;
done:
    free(points);
    free(taken);
    return status;
}

/* ---------------------------------------------------------------- all of them */

static int plot_all(const struct plot_data *d, const char *out_dir, const char *gnuplot, char *why,
                    size_t why_size) {
    int written = 0;
    if (d->max_n > 0) {
        if (write_bars(d, out_dir, why, why_size) != 0 ||
            run_gnuplot(gnuplot, out_dir, "bench-bars", why, why_size) < 0)
            return -1;
        written++;
    }
    int sizes = write_sizes(d, out_dir, why, why_size);
    if (sizes < 0 || (sizes > 0 && run_gnuplot(gnuplot, out_dir, "bench-sizes", why, why_size) < 0))
        return -1;
    written += sizes;
    for (int k = 0; k < d->devices.count; k++) {
        int roof = write_roofline(d, k, out_dir, why, why_size);
        char base[64];
        snprintf(base, sizeof base, "bench-roofline-%d", k);
        if (roof < 0 || (roof > 0 && run_gnuplot(gnuplot, out_dir, base, why, why_size) < 0))
            return -1;
        written += roof;
    }
    if (written == 0)
        fail(why, why_size,
             "nothing to plot: no GFLOP/s figure and no device with both a peak "
             "and a bandwidth row");
    return written;
}

int bench_plot(const char *csv_path, const char *out_dir, char *why, size_t why_size) {
    if (why_size > 0)
        why[0] = '\0';
    struct plot_data d = {0};
    int written = read_csv(csv_path, &d, why, why_size);
    if (written == 0) {
        char gnuplot[PATH_MAX];
        if (grader_find_program("gnuplot", gnuplot, sizeof gnuplot) != 0)
            written = fail(why, why_size, "gnuplot not installed (apt-get install gnuplot-nox)");
        else if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
            written = fail(why, why_size, "cannot make %s: %s", out_dir, strerror(errno));
        else {
            remove_stale(out_dir);
            written = plot_all(&d, out_dir, gnuplot, why, why_size);
        }
    }
    free(d.rows);
    names_free(&d.cases);
    names_free(&d.devices);
    return written;
}
