/* steps.c - bench-steps of `grader --bench`: GFLOP/s step by step through the workbook (01, 02,
 * ... in the table's order, each exercise at its table's values), one line per device, with the
 * vendor SGEMMs of each device (CLBlast dashed; OpenBLAS or cuBLAS dotted) as horizontal lines:
 * how far each step gets towards what a tuned library does on the same device.
 */
#define _DEFAULT_SOURCE /* M_PI */
#include "bench/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEPS_SLANT 30   /* degrees of the step ids under the axis */
#define STEPS_FONT  10.0 /* their size, pixels */

/* Point type per device, as on the lines against N: filled circle, square, triangle, ... */
static const int step_points[] = {7, 5, 9, 13, 11, 15};

/* The row of step s on device k at size n, or NULL. */
static const struct plot_row *step_row(const struct plot_data *d, int s, int k, int n) {
    const struct plot_row *found = NULL;
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (r->step_index == s && r->device_index == k && r->n == n && r->value > 0)
            found = r;
    }
    return found;
}

int plot_steps(const struct plot_data *d, const char *out_dir, char *why, size_t why_size) {
    int steps = d->steps.count, devices = d->devices.count, cases = d->cases.count, n = d->max_n;
    int *order = malloc(((size_t)steps + 1) * sizeof *order); /* x -> step */
    int *shown = calloc((size_t)devices + 1, sizeof *shown);  /* devices with a step figure */
    int status = 0;
    if (!order || !shown) {
        status = csv_fail(why, why_size, "out of memory");
        goto done;
    }
    /* the steps measured at N on some device, in the table's order */
    int xs = 0;
    double low = INFINITY, high = 0;
    for (int s = 0; s < steps; s++) {
        int any = 0;
        for (int k = 0; k < devices; k++) {
            const struct plot_row *r = step_row(d, s, k, n);
            if (r) {
                any = shown[k] = 1;
                low = fmin(low, r->value);
                high = fmax(high, r->value);
            }
        }
        if (!any)
            continue;
        /* the table's order is the ids' ("01_per_element" < ... < "11_..."): the order the
         * rows come in cannot say it where each device lacks a different step */
        int at = xs++;
        while (at > 0 && strcmp(d->steps.names[order[at - 1]], d->steps.names[s]) > 0) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = s;
    }
    if (xs == 0 || n <= 0)
        goto done; /* nothing to plot: status 0 */
    /* the vendor SGEMMs of the devices shown, as lines across the plot */
    for (int c = 0; c < cases; c++)
        for (int k = 0; k < devices; k++) {
            double v = plot_gflops_at(d, c, k, n);
            if (shown[k] && strncmp(d->cases.keys[c], "vendor:", 7) == 0 && v > 0) {
                low = fmin(low, v);
                high = fmax(high, v);
            }
        }

    /* room under the axis for the slanted ids, left of the first for the longest */
    size_t longest = 0;
    for (int x = 0; x < xs; x++)
        if (strlen(d->steps.names[order[x]]) > longest)
            longest = strlen(d->steps.names[order[x]]);
    double slant = STEPS_SLANT * M_PI / 180, reach = CHAR_WIDTH * STEPS_FONT * (double)longest;
    double left = fmin(fmax(80, reach * cos(slant) + 10), PLOT_WIDTH / 3.0);
    /* room at the right, past the last step, for the names of the vendor lines: there they
     * cover no point */
    size_t longest_label = 0;
    for (int c = 0; c < cases; c++)
        if (strncmp(d->cases.keys[c], "vendor:", 7) == 0 &&
            strlen(d->cases.names[c]) > longest_label)
            longest_label = strlen(d->cases.names[c]);
    double area = PLOT_WIDTH - 20 - left, room = 0;
    if (longest_label > 0) {
        double room_px = fmin(CHAR_WIDTH * 9 * (double)(longest_label + 8) + 10, area / 2);
        room = room_px / (area - room_px) * xs;
    }
    double right = xs - 0.5 + room;

    FILE *f = plot_open(out_dir, "bench-steps.dat", why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f,
            "# bench-steps.dat - GFLOP/s (median) of each step of the workbook at N = %d, from "
            "bench.csv.\n# Steps (x):",
            n);
    for (int x = 0; x < xs; x++)
        fprintf(f, "%s %d = %s", x ? ";" : "", x, d->steps.names[order[x]]);
    fprintf(f, "\n# One block per device (gnuplot's index 0, 1, ...): x  GFLOP/s  N timed (N, or "
               "the smaller N\n# it was timed at); a blank line where the device has no figure "
               "for a step. Then one block\n# per vendor SGEMM and device, a line across the "
               "plot: x  GFLOP/s.\n");
    int block = 0, scaled = 0;
    for (int k = 0; k < devices; k++) {
        if (!shown[k])
            continue;
        fprintf(f, "%s# index %d: %s\n", block ? "\n\n" : "", block, d->devices.names[k]);
        block++;
        /* a step without a figure breaks the line (one blank line: two would end the block),
         * so that it does not pretend the step was measured */
        int points = 0, gap = 0;
        for (int x = 0; x < xs; x++) {
            const struct plot_row *r = step_row(d, order[x], k, n);
            if (!r) {
                gap = points > 0;
                continue;
            }
            fprintf(f, "%s%d %.6g %d\n", gap ? "\n" : "", x, r->value, r->timed_n ? r->timed_n : n);
            scaled |= r->timed_n > 0;
            points++;
            gap = 0;
        }
    }
    for (int k = 0; k < devices; k++)
        for (int c = 0; c < cases && shown[k]; c++) {
            double v = plot_gflops_at(d, c, k, n);
            if (strncmp(d->cases.keys[c], "vendor:", 7) != 0 || !(v > 0))
                continue;
            fprintf(f, "\n\n# index %d: %s on %s\n%g %.6g\n%g %.6g\n", block++, d->cases.names[c],
                    d->devices.names[k], -0.5, v, right, v);
        }
    if ((status = plot_close(f, out_dir, "bench-steps.dat", why, why_size)) != 0)
        goto done;

    if (!(f = plot_open(out_dir, "bench-steps.gp", why, why_size))) {
        status = -1;
        goto done;
    }
    plot_gp_begin(f, "bench-steps",
                  "GFLOP/s of each step of the workbook at the largest N, one line per device, "
                  "the vendor SGEMMs across",
                  PLOT_HEIGHT);
    fprintf(f,
            "set label 1 'Matrix multiplication, N = %d: GFLOP/s per step' at screen 0.5, "
            "screen %.3f center font ',14'\n",
            n, 1 - 18.0 / PLOT_HEIGHT);
    fprintf(f, "set ylabel 'GFLOP/s (median of the timed runs, log scale)'\n");
    fprintf(f, "set logscale y\nset format y '%%.12g'\nset yrange [%g:%g]\n",
            pow(10, floor(log10(low / 2))), pow(10, ceil(log10(high * 3))));
    fprintf(f,
            "set lmargin at screen %.3f\nset rmargin at screen %.3f\nset bmargin at screen "
            "%.3f\n",
            left / PLOT_WIDTH, 1 - 20.0 / PLOT_WIDTH,
            fmin(reach * sin(slant) + 3.5 * STEPS_FONT, PLOT_HEIGHT / 2.5) / PLOT_HEIGHT);
    fprintf(f, "set xrange [-0.5:%g]\n", right);
    fprintf(f, "set grid ytics lc rgb '#dddddd' lt 1\nset ytics nomirror\n");
    fprintf(f, "# tic labels are formats: %%%% prints a %%\n");
    fprintf(f, "set xtics nomirror scale 0 rotate by %d right font ',%g' (", STEPS_SLANT,
            STEPS_FONT);
    for (int x = 0; x < xs; x++) {
        fprintf(f, "%s", x ? ", " : "");
        plot_gp_format(f, d->steps.names[order[x]]);
        fprintf(f, " %d", x);
    }
    fprintf(f, ")\n");
    /* each vendor line named at its right end, in its device's colour */
    int label = 2;
    for (int k = 0; k < devices; k++)
        for (int c = 0; c < cases && shown[k]; c++) {
            double v = plot_gflops_at(d, c, k, n);
            if (strncmp(d->cases.keys[c], "vendor:", 7) != 0 || !(v > 0))
                continue;
            char figure[32], text[200];
            plot_figure(figure, sizeof figure, v);
            snprintf(text, sizeof text, "%s: %s", d->cases.names[c], figure);
            fprintf(f, "set label %d ", label++);
            plot_gp_string(f, text);
            fprintf(f, " at graph 1, first %.6g right offset -0.5,0.55 font ',9' tc rgb '%s'\n", v,
                    plot_device_colours[k % COUNT_OF(plot_device_colours)]);
        }
    /* the key under the title: the devices, and what the two kinds of line are */
    int entries = 2 + scaled;
    size_t longest_device = 0;
    for (int k = 0; k < devices; k++)
        if (shown[k]) {
            entries++;
            if (strlen(d->devices.names[k]) > longest_device)
                longest_device = strlen(d->devices.names[k]);
        }
    int key_columns = longest_device > 40 ? 1 : 2, key_rows = (entries + key_columns - 1) / 2;
    if (key_columns == 1)
        key_rows = entries;
    fprintf(f,
            "set key at screen 0.5, screen %.3f center top horizontal maxcols %d reverse Left "
            "samplen 3 width -2 font ',10'\n"
            "set tmargin at screen %.3f\n",
            1 - 34.0 / PLOT_HEIGHT, key_columns, 1 - (40.0 + 16.0 * key_rows) / PLOT_HEIGHT);
    fprintf(f, "plot ");
    block = 0;
    for (int k = 0; k < devices; k++) {
        if (!shown[k])
            continue;
        const char *colour = plot_device_colours[k % COUNT_OF(plot_device_colours)];
        fprintf(f,
                "%s'bench-steps.dat' index %d using 1:2 with linespoints lw 2 lc rgb '%s' pt %d "
                "ps 1.1 title ",
                block ? ", \\\n     " : "", block, colour, step_points[k % COUNT_OF(step_points)]);
        plot_gp_string(f, d->devices.names[k]);
        /* a figure timed at a smaller N and scaled: a ring round its point (a label each
         * covered the next where several were) */
        fprintf(f,
                ", \\\n     'bench-steps.dat' index %d using 1:($3 != %d ? $2 : 1/0) with points "
                "pt 6 ps 2 lw 1 lc rgb '%s' notitle",
                block, n, colour);
        block++;
    }
    for (int k = 0; k < devices; k++)
        for (int c = 0; c < cases && shown[k]; c++) {
            double v = plot_gflops_at(d, c, k, n);
            if (strncmp(d->cases.keys[c], "vendor:", 7) != 0 || !(v > 0))
                continue;
            fprintf(f,
                    ", \\\n     'bench-steps.dat' index %d using 1:2 with lines lw 1.5 dt %d lc "
                    "rgb '%s' notitle",
                    block++, strcmp(d->cases.keys[c], "vendor:clblast") == 0 ? 2 : 3,
                    plot_device_colours[k % COUNT_OF(plot_device_colours)]);
        }
    fprintf(f, ", \\\n     keyentry with lines lw 1.5 dt 2 lc rgb '#555555' title 'CLBlast SGEMM'"
               ", \\\n     keyentry with lines lw 1.5 dt 3 lc rgb '#555555' title 'vendor BLAS "
               "(OpenBLAS on a CPU, cuBLAS on NVIDIA)'");
    if (scaled)
        fprintf(f, ", \\\n     keyentry with points pt 6 ps 2 lc rgb '#555555' title 'ringed: "
                   "timed at a smaller N, scaled'");
    fprintf(f, "\n");
    if ((status = plot_close(f, out_dir, "bench-steps.gp", why, why_size)) == 0)
        status = 1;
done:
    free(order);
    free(shown);
    return status;
}
