/* bars.c - two figures of `grader --bench`: bench-bars, the GFLOP/s of every case as bars grouped
 * by case with one colour per device (like the lecture's slide), and bench-sizes, GFLOP/s against
 * N when several N were measured.
 */
#define _DEFAULT_SOURCE /* M_PI */
#include "bench/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One colour per case (lines against N). */
static const char *const case_colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                           "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                           "#bcbd22", "#17becf", "#393b79", "#ad494a"};
/* Point type and dash type per device on the lines against N: filled circle, square, triangle,
 * diamond, ... */
static const int device_points[] = {7, 5, 9, 13, 11, 15};

/* ---------------------------------------------------------------- bench-bars: GFLOP/s per case */

#define BARS_SLANT      30   /* degrees of the case names under the bars */
#define BARS_FONT       10.0 /* their size, pixels */
#define SCALED_KEY      "ringed: timed at a smaller N, scaled"
#define BARS_CHAR_WIDTH 0.6 /* DejaVu Sans's widest lower case run, in font sizes: no name cut */

int plot_bars(const struct plot_data *d, const char *out_dir, char *why, size_t why_size) {
    int cases = d->cases.count, devices = d->devices.count, n = d->max_n;
    double *value = malloc(((size_t)cases * (size_t)devices + 1) * sizeof *value);
    int *shown = calloc((size_t)devices + 1, sizeof *shown);           /* devices with a bar */
    int *group = malloc(((size_t)cases + 1) * sizeof *group);          /* x of a case; -1: no bar */
    int *group_shown = calloc((size_t)cases + 1, sizeof *group_shown); /* a case with a bar */
    int status = 0;
    if (!value || !shown || !group || !group_shown) {
        status = csv_fail(why, why_size, "out of memory");
        goto done;
    }
    double low = INFINITY, high = 0;
    int shown_count = 0, groups = 0;
    for (int c = 0; c < cases; c++) {
        group[c] = -1;
        for (int k = 0; k < devices; k++) {
            double v = value[c * devices + k] = plot_gflops_at(d, c, k, n);
            if (v > 0) {
                low = fmin(low, v);
                high = fmax(high, v);
                shown_count += !shown[k];
                shown[k] = 1;
                if (group[c] < 0)
                    group[c] = groups++;
                group_shown[c] = 1;
            }
        }
    }
    /* bars from the bottom of the axis; room over the tallest for its label */
    double bottom = pow(10, floor(log10(low / 3))), top = pow(10, ceil(log10(high * 8)));
    double width = fmin(0.8 / shown_count, 0.4);

    FILE *f = plot_open(out_dir, "bench-bars.dat", why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f,
            "# bench-bars.dat - GFLOP/s (median) of each case at N = %d, from bench.csv.\n"
            "# One block per device (gnuplot's index 0, 1, ...), one line per bar:\n"
            "# x  GFLOP/s  x_left  x_right  y_bottom  case  N timed (N, or the smaller N it was\n"
            "# timed at: its label says so)\n"
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
            const struct plot_row *r = plot_row_at(d, c, k, n);
            fprintf(f, "%g %.6g %g %g %.6g %d %d\n", x, value[c * devices + k], x - width / 2,
                    x + width / 2, bottom, group[c], r && r->timed_n ? r->timed_n : n);
        }
    }
    if ((status = plot_close(f, out_dir, "bench-bars.dat", why, why_size)) != 0)
        goto done;

    if (!(f = plot_open(out_dir, "bench-bars.gp", why, why_size))) {
        status = -1;
        goto done;
    }
    /* under the case names: the tuning values of the cases that have some, and what a dagger
     * on a bar says; the canvas grows by their lines */
    int scaled = 0;
    for (int i = 0; i < d->row_count; i++)
        scaled |= plot_is_case(d->rows[i].kind) && d->rows[i].n == n && d->rows[i].timed_n > 0 &&
                  d->rows[i].value > 0;
    int note_lines = plot_tuning_lines(d, group_shown) + scaled;
    double notes = note_lines ? note_lines * NOTE_LINE + 8 : 0;
    int height = PLOT_HEIGHT + (int)notes;
    plot_gp_begin(f, "bench-bars", "GFLOP/s of each case and device at the largest N, log scale",
                  height);
    fprintf(f,
            "set label 1 'Matrix multiplication, N = %d: GFLOP/s (median)' at screen 0.5, "
            "screen %.4f center font ',14'\n",
            n, 1 - 18.0 / height);
    plot_tuning_notes(f, d, group_shown, notes - 4, height);
    if (scaled)
        plot_scaled_note(f, 99, n, notes - 4, note_lines, height);
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
            double reach = BARS_CHAR_WIDTH * BARS_FONT * (double)strlen(d->cases.names[c]);
            need = fmax(need, reach * cos(slant) + 8 - (group[c] + 0.6) * spacing);
            longest = fmax(longest, reach);
        }
        left = fmin(need, PLOT_WIDTH / 3.0);
    }
    double below = fmin(longest * sin(slant) + 2.5 * BARS_FONT, PLOT_HEIGHT / 2.5) + notes;
    fprintf(f,
            "set lmargin at screen %.3f\nset rmargin at screen %.3f\nset bmargin at screen "
            "%.3f\n",
            left / PLOT_WIDTH, 1 - 20.0 / PLOT_WIDTH, below / height);
    fprintf(f, "set grid ytics lc rgb '#dddddd' lt 1\nset ytics nomirror\n");
    fprintf(f, "# tic labels are formats: %%%% prints a %%\n");
    fprintf(f, "set xtics nomirror scale 0 rotate by %d right font ',%g' (", BARS_SLANT, BARS_FONT);
    for (int c = 0; c < cases; c++) {
        if (group[c] < 0)
            continue;
        fprintf(f, "%s", group[c] ? ", \\\n    " : "");
        plot_gp_format(f, d->cases.names[c]);
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
            1 - 34.0 / height, key_columns, 1 - (40.0 + 17.0 * key_rows) / height);
    fprintf(f, GP_FIGURE);
    fprintf(f, "plot ");
    for (int k = 0, block = 0; k < devices; k++) {
        if (!shown[k])
            continue;
        const char *colour = plot_device_colours[k % COUNT_OF(plot_device_colours)];
        fprintf(f,
                "%s'bench-bars.dat' index %d using 1:2:3:4:5:2 with boxxyerror lc rgb '%s' "
                "title ",
                block ? ", \\\n     " : "", block, colour);
        plot_gp_string(f, d->devices.names[k]);
        fprintf(f,
                ", \\\n     'bench-bars.dat' index %d using 1:2:(figure($2) . ($7 != %d ? "
                "' †' : '')) with labels rotate by 90 left offset 0,0.3 font ',9' notitle",
                block, n);
        block++;
    }
    fprintf(f, "\n");
    status = plot_close(f, out_dir, "bench-bars.gp", why, why_size);
done:
    free(value);
    free(shown);
    free(group);
    free(group_shown);
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
        if (!plot_is_case(r->kind) || !(r->value > 0))
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

int plot_sizes(const struct plot_data *d, const char *out_dir, char *why, size_t why_size) {
    int cases = d->cases.count, devices = d->devices.count;
    int *sizes = malloc((size_t)(d->row_count + 1) * sizeof *sizes);
    int *used = calloc((size_t)cases * (size_t)devices + 1, sizeof *used); /* series with data */
    int *case_used = calloc((size_t)cases + 1, sizeof *case_used);         /* a case with data */
    int status = 0;
    if (!sizes || !used || !case_used) {
        status = csv_fail(why, why_size, "out of memory");
        goto done;
    }
    int size_count = distinct_sizes(d, sizes);
    if (size_count < 2)
        goto done;

    FILE *f = plot_open(out_dir, "bench-sizes.dat", why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f, "# bench-sizes.dat - GFLOP/s (median) against N, from bench.csv.\n"
               "# One block per case and device (gnuplot's index 0, 1, ...): N  GFLOP/s  N timed\n"
               "# (N, or the smaller N it was timed at: its label says so)\n");
    int block = 0, scaled = 0;
    size_t longest = strlen(SCALED_KEY); /* of the names in the key */
    double low = INFINITY, high = 0;
    for (int c = 0; c < cases; c++)
        for (int k = 0; k < devices; k++) {
            int points = 0;
            for (int s = 0; s < size_count; s++) {
                double v = plot_gflops_at(d, c, k, sizes[s]);
                if (v > 0) {
                    points++;
                    low = fmin(low, v);
                    high = fmax(high, v);
                }
            }
            if (!points)
                continue;
            used[c * devices + k] = case_used[c] = 1;
            size_t case_length = strlen(d->cases.names[c]);
            size_t device_length = strlen(d->devices.names[k]);
            longest = case_length > longest ? case_length : longest;
            longest = device_length > longest ? device_length : longest;
            fprintf(f, "%s# index %d: %s on %s\n", block ? "\n\n" : "", block, d->cases.names[c],
                    d->devices.names[k]);
            block++;
            for (int s = 0; s < size_count; s++) {
                const struct plot_row *r = plot_row_at(d, c, k, sizes[s]);
                scaled |= r && r->timed_n > 0;
                if (r)
                    fprintf(f, "%d %.6g %d\n", sizes[s], r->value,
                            r->timed_n ? r->timed_n : sizes[s]);
            }
        }
    if ((status = plot_close(f, out_dir, "bench-sizes.dat", why, why_size)) != 0)
        goto done;

    if (!(f = plot_open(out_dir, "bench-sizes.gp", why, why_size))) {
        status = -1;
        goto done;
    }
    /* the tuning values under the figure, which grows by their lines */
    int note_lines = plot_tuning_lines(d, case_used);
    double notes = note_lines ? note_lines * NOTE_LINE + 8 : 0;
    int height = PLOT_HEIGHT + (int)notes;
    plot_gp_begin(f, "bench-sizes", "GFLOP/s against N, one line per case and device, log-log",
                  height);
    plot_tuning_notes(f, d, case_used, notes - 4, height);
    fprintf(f, "set bmargin at screen %.4f\n", (notes + 0.1 * PLOT_HEIGHT) / height);
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
            /* a figure timed at a smaller N and scaled: a ring round its point (a label each
             * covered the next where several were) */
            fprintf(f,
                    ", \\\n     'bench-sizes.dat' index %d using 1:($3 != $1 ? $2 : 1/0) with "
                    "points pt 6 ps 1.9 lw 1 lc rgb '%s' notitle",
                    block, case_colours[c % COUNT_OF(case_colours)]);
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
        plot_gp_string(f, d->devices.names[k]);
    }
    for (int c = 0; c < cases; c++) {
        int any = 0;
        for (int k = 0; k < devices; k++)
            any |= used[c * devices + k];
        if (!any)
            continue;
        fprintf(f, ", \\\n     keyentry with lines lw 3 lc rgb '%s' title ",
                case_colours[c % COUNT_OF(case_colours)]);
        plot_gp_string(f, d->cases.names[c]);
    }
    if (scaled)
        fprintf(f, ", \\\n     keyentry with points pt 6 ps 1.9 lc rgb 'black' title '%s'",
                SCALED_KEY);
    fprintf(f, "\n");
    if ((status = plot_close(f, out_dir, "bench-sizes.gp", why, why_size)) == 0)
        status = 1;
done:
    free(sizes);
    free(used);
    free(case_used);
    return status;
}
