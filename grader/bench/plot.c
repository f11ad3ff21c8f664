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
