/* plot.h - what the plots of `grader --bench` share: bench.csv read into plot_data, gnuplot's
 * quoting, the output files, and the figures (bars.c: bench-bars and bench-sizes; steps.c:
 * bench-steps; roofline.c: bench-roofline-<k>). Private to bench/; bench.h's bench_plot is the way
 * in.
 */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include "bench/bench.h"
#include "bench/csv.h"

#include <stdio.h>

#define PLOT_WIDTH  900  /* SVG width, pixels */
#define PLOT_HEIGHT 500  /* SVG height, pixels */
#define CHAR_WIDTH  0.55 /* average character width of a sans font, in font sizes (generous) */

#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* One colour per device (bars, roofline points). */
extern const char *const plot_device_colours[8];

/* ---------------------------------------------------------------- the data (plot.c) */

enum plot_kind { KIND_BASELINE, KIND_KERNEL, KIND_VENDOR, KIND_PEAK, KIND_BANDWIDTH };

struct plot_row {
    enum plot_kind kind;
    int case_index;   /* into plot_data.cases; -1 for peak and bandwidth rows */
    int device_index; /* into plot_data.devices */
    int n;            /* matrix order; 0 for peak and bandwidth rows */
    double value;     /* GFLOP/s, or GB/s for bandwidth; NAN when empty */
    double intensity; /* flops per byte of global traffic; NAN when empty */
    int timed_n;      /* the N timed when smaller than n (the figure scaled), else 0 */
    int step_index;   /* into plot_data.steps when the row is a step at its table's values */
};

/* Distinct keys in order of first appearance, each with its label. */
struct plot_names {
    char **names; /* labels, for people: a case's text, a device's name */
    char **keys;  /* what tells them apart: a case's key (csv.h), a device's name */
    int count;
};

struct plot_data {
    struct plot_row *rows;
    int row_count;
    struct plot_names cases;   /* baseline, kernel and vendor cases: the lecture's table order;
                                * names without their tuning values (plot_case_split) */
    struct plot_names devices; /* names shortened (plot_short_device); device k is bench.md's
                                * Device k + 1 and bench-roofline-<k + 1>.svg */
    struct plot_names steps;   /* the exercises' ids of the step rows, as first seen */
    struct plot_names tunings; /* by a case's key: its tuning values, out of its name ("") */
    int max_n;                 /* largest N with a GFLOP/s figure (0: none) */
};

/* bench.csv read into d (zeroed first): 0, or -1 with why (d then freed). */
int plot_read(const char *csv_path, struct plot_data *d, char *why, size_t why_size);
void plot_free(struct plot_data *d);

/* A device's name short enough for a slide, into out. */
void plot_short_device(const char *name, char *out, size_t size);

/* A case's name without its tuning values: "Wide vector loads (TS=32 WPT=8 WIDTH=4)" gives the
 * label "Wide vector loads" and the tuning "TS=32 WPT=8 WIDTH=4"; a name without "(X=...)" at its
 * end is all label ("OpenBLAS sgemm (CPU)"), its tuning "". A figure names the values once, in a
 * footnote, not in every label. */
void plot_case_split(const char *name, char *label, size_t label_size, char *tuning,
                     size_t tuning_size);

/* The tuning values of case c ("" when none). */
const char *plot_case_tuning(const struct plot_data *d, int c);

/* Whether rows of this kind are cases of the table (baseline, kernel, vendor). */
int plot_is_case(enum plot_kind kind);

/* GFLOP/s of case c on device k at size n (the last such row), or NAN. */
double plot_gflops_at(const struct plot_data *d, int c, int k, int n);

/* The row behind plot_gflops_at(d, c, k, n), or NULL. */
const struct plot_row *plot_row_at(const struct plot_data *d, int c, int k, int n);

/* ---------------------------------------------------------------- writing for gnuplot (plot.c) */

/* s as a gnuplot single-quoted string: no escapes inside but '' for a quote. */
void plot_gp_string(FILE *f, const char *s);

/* The same for a tic label, which gnuplot reads as a format for the tic's value. */
void plot_gp_format(FILE *f, const char *s);

/* A figure for people: no more digits than a timing deserves. */
void plot_figure(char *buf, size_t size, double v);

/* The same rule inside gnuplot, for the labels on the bars. */
#define GP_FIGURE                                                                                  \
    "figure(v) = v >= 100 ? sprintf('%%.0f', v) : v >= 10 ? sprintf('%%.1f', v) : v >= 1 ? "       \
    "sprintf('%%.2f', v) : sprintf('%%.3g', v)\n"

/* out_dir/name opened for writing, or NULL with why. */
FILE *plot_open(const char *out_dir, const char *name, char *why, size_t why_size);

/* Closes f: 0, or -1 with why when a write failed. */
int plot_close(FILE *f, const char *out_dir, const char *name, char *why, size_t why_size);

/* The opening of every script: what it is, how to plot it again, the terminal and output; the
 * canvas is PLOT_WIDTH x height. */
void plot_gp_begin(FILE *f, const char *base, const char *what, int height);

/* The tuning values of the cases shown (shown_case[c] non-zero; NULL: all) that have some, as
 * labels "name: values" under a figure of the given height, their first line's top at top pixels
 * from the canvas's bottom, in two columns where they fit. */
void plot_tuning_notes(FILE *f, const struct plot_data *d, const int *shown_case, double top,
                       int height);

/* The lines plot_tuning_notes takes. */
int plot_tuning_lines(const struct plot_data *d, const int *shown_case);

/* The footnote that a figure marked † was timed at a smaller N and scaled to n, as label number
 * `label`, under the tuning notes (which take note_lines lines from `top` down). */
void plot_scaled_note(FILE *f, int label, int n, double top, int note_lines, int height);
#define NOTE_FONT 9.0  /* footnotes, pixels */
#define NOTE_LINE 13.0 /* their line height, pixels */

/* ---------------------------------------------------------------- the figures */

/* bars.c: bench-bars.dat and .gp (GFLOP/s of each case and device at the largest N): 0 or -1. */
int plot_bars(const struct plot_data *d, const char *out_dir, char *why, size_t why_size);

/* bars.c: bench-sizes.dat and .gp (GFLOP/s against N): 1 when written, 0 when fewer than two N
 * were measured (nothing written), -1 on failure. */
int plot_sizes(const struct plot_data *d, const char *out_dir, char *why, size_t why_size);

/* steps.c: bench-steps.dat and .gp (GFLOP/s of each step of the workbook, 01 on, at the largest
 * N, one line per device, the vendor SGEMMs as horizontal lines): 1 when written, 0 when no step
 * has a figure (nothing written), -1 on failure. */
int plot_steps(const struct plot_data *d, const char *out_dir, char *why, size_t why_size);

/* roofline.c: bench-roofline-<k>.dat and .gp of device k: 1 when written, 0 when the device has
 * no peak or no bandwidth row, -1 on failure. */
int plot_roofline(const struct plot_data *d, int k, const char *out_dir, char *why,
                  size_t why_size);

#endif
