/* plot.c - the benchmark's figures, drawn by gnuplot from bench.csv: the GFLOP/s of every case as
 * bars grouped by case with one colour per device (like the lecture's slide), GFLOP/s against N
 * when several N were measured, GFLOP/s step by step with the vendor SGEMMs for scale, and a
 * roofline for each device whose peak and bandwidth were measured. Each figure's data (.dat) and
 * script (.gp) stay next to its SVG, so anyone can edit a script and plot again with `gnuplot
 * bench-bars.gp` in that folder. */
#define _DEFAULT_SOURCE /* strdup */
#include "bench/csv.h"
#include "bench/plot.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLOT_TIMEOUT 60.0             /* seconds allowed to one gnuplot run */
#define PLOT_LOG     "bench-plot.log" /* gnuplot's output, kept in out_dir only when it failed */

/* Plain text (noenhanced): '_', '^', '@', '&' and braces in case names are printed as they are. */
#define PLOT_TERMINAL                                                                              \
    "set terminal svg size %d,%d fixed noenhanced font 'Sans,11' background rgb 'white'\n"

const char *const plot_device_colours[8] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                            "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

/* ---------------------------------------------------------------- reading bench.csv */

static const char *const kind_names[] = {"baseline", "kernel", "vendor", "peak", "bandwidth"};

/* The columns this file reads (by name: the header says where they are). */
#define PLOT_COLUMNS "kind,case,device,n,value,flops_per_byte,key"

int plot_is_case(enum plot_kind kind) {
    return kind == KIND_BASELINE || kind == KIND_KERNEL || kind == KIND_VENDOR;
}

/* Index of key in the list, appended with its label when new; -1 when out of memory. */
static int names_index(struct plot_names *l, const char *key, const char *label) {
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->keys[i], key) == 0)
            return i;
    char **more = realloc(l->names, (size_t)(l->count + 1) * sizeof *more);
    if (more)
        l->names = more;
    char **more_keys = realloc(l->keys, (size_t)(l->count + 1) * sizeof *more_keys);
    if (more_keys)
        l->keys = more_keys;
    if (!more || !more_keys || !(l->names[l->count] = strdup(label)))
        return -1;
    if (!(l->keys[l->count] = strdup(key))) {
        free(l->names[l->count]);
        return -1;
    }
    return l->count++;
}

static void names_free(struct plot_names *l) {
    for (int i = 0; i < l->count; i++) {
        free(l->names[i]);
        free(l->keys[i]);
    }
    free(l->names);
    free(l->keys);
}

/* A device's name for a slide: "cpu-skylake-avx512-Intel(R) Xeon(R) Processor (Portable Computing
 * Language)" is "Intel Xeon Processor (POCL)"; the full name stays the device's key and is in
 * bench.md. POCL's "cpu-" or "pthread-" prefix names its build target, (R) and (TM) say nothing
 * on a slide, and the platforms have short names of their own. */
void plot_short_device(const char *name, char *out, size_t size) {
    static const char *const dropped[] = {"(R)", "(r)", "(TM)", "(tm)"};
    static const char *const platforms[][2] = {{"(Portable Computing Language)", "(POCL)"},
                                               {"(NVIDIA CUDA)", "(CUDA)"},
                                               {"(AMD Accelerated Parallel Processing)", "(AMD)"},
                                               {"(Intel(R) OpenCL)", "(Intel)"}};
    if (size == 0)
        return;
    if (strncmp(name, "cpu-", 4) == 0 || strncmp(name, "pthread-", 8) == 0) {
        size_t word = strcspn(name, " ");
        const char *dash = name;
        for (const char *p = name; p < name + word; p++)
            if (*p == '-')
                dash = p;
        name = dash + 1;
    }
    size_t used = 0;
    for (const char *p = name; *p && used + 1 < size;) {
        int skipped = 0;
        for (int i = 0; i < COUNT_OF(platforms) && !skipped; i++)
            if (strncmp(p, platforms[i][0], strlen(platforms[i][0])) == 0) {
                used += (size_t)snprintf(out + used, size - used, "%s", platforms[i][1]);
                used = used < size ? used : size - 1;
                p += strlen(platforms[i][0]);
                skipped = 1;
            }
        for (int i = 0; i < COUNT_OF(dropped) && !skipped; i++)
            if (strncmp(p, dropped[i], strlen(dropped[i])) == 0) {
                p += strlen(dropped[i]);
                skipped = 1;
            }
        if (skipped)
            continue;
        if (*p == ' ' && (used == 0 || out[used - 1] == ' ')) { /* one space, none leading */
            p++;
            continue;
        }
        out[used++] = *p++;
    }
    while (used > 0 && out[used - 1] == ' ')
        used--;
    out[used] = '\0';
}

void plot_case_split(const char *name, char *label, size_t label_size, char *tuning,
                     size_t tuning_size) {
    const char *open = strrchr(name, '(');
    size_t length = strlen(name);
    int has_values = open && open > name && open[-1] == ' ' && length > 0 &&
                     name[length - 1] == ')' && memchr(open, '=', length - (size_t)(open - name));
    if (!has_values) {
        snprintf(label, label_size, "%s", name);
        snprintf(tuning, tuning_size, "%s", "");
        return;
    }
    snprintf(label, label_size, "%.*s", (int)(open - 1 - name), name);
    snprintf(tuning, tuning_size, "%.*s", (int)(name + length - 1 - (open + 1)), open + 1);
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

/* Row i of the CSV into d; 0, or -1 with why. */
static int parse_row(struct plot_data *d, const struct bench_csv *t, int i, const char *path,
                     char *why, size_t why_size) {
    const char *kind_text = bench_csv_cell(t, i, bench_csv_column(t, "kind"));
    const char *n_text = bench_csv_cell(t, i, bench_csv_column(t, "n"));
    const char *value = bench_csv_cell(t, i, bench_csv_column(t, "value"));
    const char *intensity = bench_csv_cell(t, i, bench_csv_column(t, "flops_per_byte"));
    const char *device = bench_csv_cell(t, i, bench_csv_column(t, "device"));
    const char *name = bench_csv_cell(t, i, bench_csv_column(t, "case"));
    const char *key = bench_csv_cell(t, i, bench_csv_column(t, "key"));
    /* columns newer than some bench.csv files: "" where the file has none */
    const char *timed_text = bench_csv_cell(t, i, bench_csv_column(t, "timed_n"));
    int step_column = bench_csv_column(t, "step");
    const char *step = bench_csv_cell(t, i, step_column);
    int line_no = t->lines[i];
    struct plot_row r = {.case_index = -1, .step_index = -1};
    int kind = -1;
    for (int k = 0; k < COUNT_OF(kind_names); k++)
        if (strcmp(kind_text, kind_names[k]) == 0)
            kind = k;
    if (kind < 0)
        return csv_fail(why, why_size,
                        "%s line %d: unknown kind '%.40s' (baseline, kernel, vendor, peak or "
                        "bandwidth expected)",
                        path, line_no, kind_text);
    r.kind = (enum plot_kind)kind;
    double n;
    if (!parse_number(n_text, &n) || (!isnan(n) && (n < 0 || n > INT_MAX || n != floor(n))))
        return csv_fail(why, why_size, "%s line %d: n '%.40s' is not a matrix order", path, line_no,
                        n_text);
    r.n = isnan(n) ? 0 : (int)n;
    double timed;
    if (!parse_number(timed_text, &timed) ||
        (!isnan(timed) && (timed < 0 || timed > INT_MAX || timed != floor(timed))))
        return csv_fail(why, why_size, "%s line %d: timed_n '%.40s' is not a matrix order", path,
                        line_no, timed_text);
    r.timed_n = !isnan(timed) && (int)timed != r.n ? (int)timed : 0;
    if (plot_is_case(r.kind) && r.n <= 0)
        return csv_fail(why, why_size, "%s line %d: a %s row without its N", path, line_no,
                        kind_names[kind]);
    if (plot_is_case(r.kind) && !*key)
        return csv_fail(why, why_size, "%s line %d: a %s row without its key", path, line_no,
                        kind_names[kind]);
    if (!parse_number(value, &r.value))
        return csv_fail(why, why_size, "%s line %d: value '%.40s' is not a number", path, line_no,
                        value);
    if (!parse_number(intensity, &r.intensity))
        return csv_fail(why, why_size, "%s line %d: flops_per_byte '%.40s' is not a number", path,
                        line_no, intensity);
    if (!*device)
        device = "(unnamed device)";
    char short_name[200];
    plot_short_device(device, short_name, sizeof short_name);
    r.device_index = names_index(&d->devices, device, short_name);
    /* cases are told apart by their key; the case text is only their label */
    if (plot_is_case(r.kind))
        r.case_index = names_index(&d->cases, key, *name ? name : key);
    if (r.case_index >= 0 && r.case_index >= d->tunings.count) {
        char label[200], tuning[200];
        plot_case_split(*name ? name : key, label, sizeof label, tuning, sizeof tuning);
        if (names_index(&d->tunings, key, tuning) < 0)
            return csv_fail(why, why_size, "out of memory reading %s", path);
        free(d->cases.names[r.case_index]);
        if (!(d->cases.names[r.case_index] = strdup(label)))
            return csv_fail(why, why_size, "out of memory reading %s", path);
    }
    if (r.device_index < 0 || (plot_is_case(r.kind) && r.case_index < 0))
        return csv_fail(why, why_size, "out of memory reading %s", path);
    /* a file from before the step column: its steps were 01-04 by key and 05 at BLOCK 16 */
    char old_step[64] = "";
    if (step_column < 0 && r.kind == KIND_KERNEL && strncmp(key, "ex:", 3) == 0) {
        size_t id = strcspn(key + 3, "@");
        if ((!key[3 + id] || strcmp(key + 3 + id, "@b16") == 0) && id < sizeof old_step)
            snprintf(old_step, sizeof old_step, "%.*s", (int)id, key + 3);
        step = old_step;
    }
    if (r.kind == KIND_KERNEL && *step && (r.step_index = names_index(&d->steps, step, step)) < 0)
        return csv_fail(why, why_size, "out of memory reading %s", path);
    struct plot_row *more = realloc(d->rows, (size_t)(d->row_count + 1) * sizeof *more);
    if (!more)
        return csv_fail(why, why_size, "out of memory reading %s", path);
    d->rows = more;
    d->rows[d->row_count++] = r;
    if (plot_is_case(r.kind) && r.value > 0 && r.n > d->max_n)
        d->max_n = r.n;
    return 0;
}

/* Cases in the lecture's order even where each device lacks different ones (a kernel that failed
 * there, a vendor library of one kind of device): every device and N lists its cases in that
 * order, so a case goes after every case that some device and N lists before it, and otherwise
 * as early as it was first seen. (Placing a new case right after the one before it in its first
 * device's rows put cuBLAS before the 64x64 block where the GPU could not run that block and
 * had no CLBlast.) A file whose rows disagree (edited by hand) gets the first-seen order where
 * they do. Renumbers the cases in that order. */
static int order_cases(struct plot_data *d) {
    int count = d->cases.count;
    size_t cc = (size_t)count * (size_t)count;
    char *before = calloc(cc + 1, 1); /* before[a * count + b]: a listed before b somewhere */
    int *order = malloc((size_t)(count + 1) * sizeof *order);
    int *rank = malloc((size_t)(count + 1) * sizeof *rank);
    char *placed = calloc((size_t)count + 1, 1);
    char **names = malloc((size_t)(count + 1) * sizeof *names);
    char **keys = malloc((size_t)(count + 1) * sizeof *keys);
    if (!before || !order || !rank || !placed || !names || !keys) {
        free(before);
        free(order);
        free(rank);
        free(placed);
        free(names);
        free(keys);
        return -1;
    }
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (!plot_is_case(r->kind))
            continue;
        for (int j = i + 1; j < d->row_count; j++) {
            const struct plot_row *q = &d->rows[j];
            if (plot_is_case(q->kind) && q->device_index == r->device_index && q->n == r->n &&
                q->case_index != r->case_index)
                before[(size_t)r->case_index * (size_t)count + (size_t)q->case_index] = 1;
        }
    }
    /* the cases are numbered in order of first appearance: take the first one whose every
     * predecessor is placed, or, where none is (rows that disagree), the first one left */
    for (int at = 0; at < count; at++) {
        int pick = -1, first_left = -1;
        for (int c = 0; c < count && pick < 0; c++) {
            if (placed[c])
                continue;
            if (first_left < 0)
                first_left = c;
            int free_of = 1;
            for (int p = 0; p < count && free_of; p++)
                free_of = placed[p] || p == c || !before[(size_t)p * (size_t)count + (size_t)c];
            if (free_of)
                pick = c;
        }
        if (pick < 0)
            pick = first_left;
        if (pick < 0)
            break; /* cannot happen: one is left for each place */
        placed[pick] = 1;
        order[at] = pick;
    }
    for (int i = 0; i < count; i++) {
        rank[order[i]] = i;
        names[i] = d->cases.names[order[i]];
        keys[i] = d->cases.keys[order[i]];
    }
    for (int i = 0; i < d->row_count; i++)
        if (plot_is_case(d->rows[i].kind))
            d->rows[i].case_index = rank[d->rows[i].case_index];
    free(d->cases.names);
    free(d->cases.keys);
    d->cases.names = names;
    d->cases.keys = keys;
    free(before);
    free(order);
    free(rank);
    free(placed);
    return 0;
}

void plot_free(struct plot_data *d) {
    free(d->rows);
    names_free(&d->cases);
    names_free(&d->tunings);
    names_free(&d->devices);
    names_free(&d->steps);
    memset(d, 0, sizeof *d);
}

int plot_read(const char *path, struct plot_data *d, char *why, size_t why_size) {
    memset(d, 0, sizeof *d);
    struct bench_csv t;
    if (bench_csv_read(path, PLOT_COLUMNS, &t, why, why_size) != 0)
        return -1;
    int status = 0;
    for (int i = 0; status == 0 && i < t.rows; i++)
        status = parse_row(d, &t, i, path, why, why_size);
    if (status == 0 && order_cases(d) != 0)
        status = csv_fail(why, why_size, "out of memory reading %s", path);
    bench_csv_free(&t);
    if (status != 0)
        plot_free(d);
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

void plot_gp_string(FILE *f, const char *s) {
    gp_quote(f, s, 0);
}

void plot_gp_format(FILE *f, const char *s) {
    gp_quote(f, s, 1);
}

void plot_figure(char *buf, size_t size, double v) {
    snprintf(buf, size, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : v >= 1 ? "%.2f" : "%.3g", v);
}

FILE *plot_open(const char *out_dir, const char *name, char *why, size_t why_size) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", out_dir, name) >= (int)sizeof path) {
        csv_fail(why, why_size, "path too long: %s/%s", out_dir, name);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        csv_fail(why, why_size, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int plot_close(FILE *f, const char *out_dir, const char *name, char *why, size_t why_size) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return csv_fail(why, why_size, "cannot write %s/%s: %s", out_dir, name,
                        strerror(errno ? errno : EIO));
    return 0;
}

void plot_gp_begin(FILE *f, const char *base, const char *what, int height) {
    fprintf(f,
            "# %s.gp - %s.\n"
            "# Written by `grader --bench` from bench.csv with its data in %s.dat; to plot again\n"
            "# after an edit, run `gnuplot %s.gp` in this folder.\n",
            base, what, base, base);
    fprintf(f, PLOT_TERMINAL, PLOT_WIDTH, height);
    fprintf(f, "set output '%s.svg'\n", base);
    fprintf(f, "set encoding utf8\n");
}

/* Whether case c has tuning values to name in a note. */
static int has_note(const struct plot_data *d, const int *shown_case, int c) {
    return *plot_case_tuning(d, c) && (!shown_case || shown_case[c]);
}

/* The notes' columns: two where every note fits in half the width. */
static int note_columns(const struct plot_data *d, const int *shown_case) {
    for (int c = 0; c < d->cases.count; c++)
        if (has_note(d, shown_case, c) &&
            0.62 * NOTE_FONT *
                    (double)(strlen(d->cases.names[c]) + strlen(plot_case_tuning(d, c)) + 2) >
                PLOT_WIDTH / 2.0 - 20)
            return 1;
    return 2;
}

int plot_tuning_lines(const struct plot_data *d, const int *shown_case) {
    int count = 0;
    for (int c = 0; c < d->cases.count; c++)
        count += has_note(d, shown_case, c);
    int columns = note_columns(d, shown_case);
    return (count + columns - 1) / columns;
}

void plot_tuning_notes(FILE *f, const struct plot_data *d, const int *shown_case, double top,
                       int height) {
    int lines = plot_tuning_lines(d, shown_case);
    for (int c = 0, at = 0; c < d->cases.count; c++) {
        if (!has_note(d, shown_case, c))
            continue;
        char text[400];
        snprintf(text, sizeof text, "%s: %s", d->cases.names[c], plot_case_tuning(d, c));
        fprintf(f, "set label %d ", 100 + at);
        plot_gp_string(f, text);
        fprintf(f, " at screen %.4f, screen %.4f left front font ',%g' tc rgb '#444444'\n",
                at / lines ? 0.5 + 10.0 / PLOT_WIDTH : 10.0 / PLOT_WIDTH,
                (top - NOTE_FONT - (at % lines) * NOTE_LINE) / height, NOTE_FONT);
        at++;
    }
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
        return csv_fail(why, why_size, "folder name too long: %s", out_dir);
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
        return csv_fail(why, why_size, "gnuplot %s/%s %s (its output: %s/%s): %s", out_dir, script,
                        how, out_dir, PLOT_LOG, *said ? said : "(no output)");
    }
    unlink(log);
    struct stat st;
    if (stat(svg, &st) != 0 || st.st_size < 200)
        return csv_fail(why, why_size, "gnuplot ran %s/%s but wrote no %s", out_dir, script, svg);
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
                   strncmp(name, "bench-steps.", 12) == 0 ||
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

const char *plot_case_tuning(const struct plot_data *d, int c) {
    for (int i = 0; i < d->tunings.count; i++)
        if (strcmp(d->tunings.keys[i], d->cases.keys[c]) == 0)
            return d->tunings.names[i];
    return "";
}

const struct plot_row *plot_row_at(const struct plot_data *d, int c, int k, int n) {
    const struct plot_row *found = NULL;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (plot_is_case(r->kind) && r->case_index == c && r->device_index == k && r->n == n &&
            r->value > 0)
            found = r;
    }
    return found;
}

double plot_gflops_at(const struct plot_data *d, int c, int k, int n) {
    const struct plot_row *r = plot_row_at(d, c, k, n);
    return r ? r->value : NAN;
}

/* ---------------------------------------------------------------- all of them */

static int plot_all(const struct plot_data *d, const char *out_dir, const char *gnuplot, char *why,
                    size_t why_size) {
    int written = 0;
    if (d->max_n > 0) {
        if (plot_bars(d, out_dir, why, why_size) != 0 ||
            run_gnuplot(gnuplot, out_dir, "bench-bars", why, why_size) < 0)
            return -1;
        written++;
    }
    int sizes = plot_sizes(d, out_dir, why, why_size);
    if (sizes < 0 || (sizes > 0 && run_gnuplot(gnuplot, out_dir, "bench-sizes", why, why_size) < 0))
        return -1;
    written += sizes;
    int steps = plot_steps(d, out_dir, why, why_size);
    if (steps < 0 || (steps > 0 && run_gnuplot(gnuplot, out_dir, "bench-steps", why, why_size) < 0))
        return -1;
    written += steps;
    for (int k = 0; k < d->devices.count; k++) {
        int roof = plot_roofline(d, k, out_dir, why, why_size);
        char base[64];
        snprintf(base, sizeof base, "bench-roofline-%d", k + 1);
        if (roof < 0 || (roof > 0 && run_gnuplot(gnuplot, out_dir, base, why, why_size) < 0))
            return -1;
        written += roof;
    }
    if (written == 0)
        csv_fail(why, why_size,
                 "nothing to plot: no GFLOP/s figure and no device with both a peak "
                 "and a bandwidth row");
    return written;
}

int bench_plot(const char *csv_path, const char *out_dir, char *why, size_t why_size) {
    if (why_size > 0)
        why[0] = '\0';
    struct plot_data d;
    int written = plot_read(csv_path, &d, why, why_size);
    if (written == 0) {
        char gnuplot[PATH_MAX];
        if (grader_find_program("gnuplot", gnuplot, sizeof gnuplot) != 0)
            written =
                csv_fail(why, why_size, "gnuplot not installed (apt-get install gnuplot-nox)");
        else if (mkdir(out_dir, 0755) != 0 && errno != EEXIST)
            written = csv_fail(why, why_size, "cannot make %s: %s", out_dir, strerror(errno));
        else {
            remove_stale(out_dir);
            written = plot_all(&d, out_dir, gnuplot, why, why_size);
        }
    }
    plot_free(&d);
    return written;
}

void plot_scaled_note(FILE *f, int label, int n, double top, int note_lines, int height) {
    fprintf(f,
            "set label %d '† timed at a smaller N and scaled to N = %d (bench.md says which N)' "
            "at screen %.4f, screen %.4f left font ',%g' tc rgb '#444444'\n",
            label, n, 10.0 / PLOT_WIDTH, (top - NOTE_FONT - (note_lines - 1) * NOTE_LINE) / height,
            NOTE_FONT);
}
