/* roofline.c - bench-roofline-<k> of `grader --bench`: the roofline min(peak, bandwidth x) of one
 * device from its measured peak and bandwidth, with each kernel that has a counted intensity
 * placed at (flops per byte, GFLOP/s) and labelled where its label overlaps nothing (labels.c).
 */
#define _DEFAULT_SOURCE /* M_PI */
#include "bench/labels.h"
#include "bench/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int plot_roofline(const struct plot_data *d, int k, const char *out_dir, char *why,
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
        if (r->device_index == k && plot_is_case(r->kind) && r->value > 0 && r->intensity > 0 &&
            r->n > n)
            n = r->n;
    }
    struct roof_point *points = calloc((size_t)d->cases.count + 1, sizeof *points);
    struct box *taken = calloc(2 * (size_t)d->cases.count + BANDWIDTH_PIECES + 2, sizeof *taken);
    if (!points || !taken) {
        free(points);
        free(taken);
        return csv_fail(why, why_size, "out of memory");
    }
    /* each point's label: its case, and the N it was timed at when that was smaller */
    char **labels = calloc((size_t)d->cases.count + 1, sizeof *labels);
    if (!labels) {
        free(points);
        free(taken);
        return csv_fail(why, why_size, "out of memory");
    }
    int count = 0, status = 0, scaled = 0;
    int *shown_case = calloc((size_t)d->cases.count + 1, sizeof *shown_case);
    if (!shown_case) {
        free(points);
        free(taken);
        free(labels);
        return csv_fail(why, why_size, "out of memory");
    }
    for (int c = 0; c < d->cases.count; c++) {
        double v = NAN, x = NAN;
        int timed_n = 0;
        for (int i = 0; i < d->row_count; i++) {
            const struct plot_row *r = &d->rows[i];
            if (r->device_index == k && plot_is_case(r->kind) && r->case_index == c && r->n == n &&
                r->value > 0 && r->intensity > 0) {
                v = r->value;
                x = r->intensity;
                timed_n = r->timed_n;
            }
        }
        size_t size = strlen(d->cases.names[c]) + 40;
        if (!(labels[c] = malloc(size))) {
            status = csv_fail(why, why_size, "out of memory");
            goto done;
        }
        /* a family's later members (05's sweep: "Block oriented approach using local, 16x16")
         * by what tells them apart ("16x16"): their dots sit close, and long labels there left
         * a label nearer a neighbour's dot than its own */
        const char *name = d->cases.names[c], *comma = strrchr(name, ',');
        for (int e = 0; comma && e < c; e++)
            if (strncmp(d->cases.names[e], name, (size_t)(comma - name + 1)) == 0) {
                name = comma + 2 <= name + strlen(name) ? comma + 2 : name;
                break;
            }
        snprintf(labels[c], size, timed_n ? "%s †" : "%s", name);
        scaled |= v > 0 && timed_n > 0;
        if (v > 0) {
            shown_case[c] = 1;
            points[count++] = (struct roof_point){.case_index = c, .x = x, .y = v};
        }
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
    plot_figure(figure, sizeof figure, peak);
    snprintf(peak_text, sizeof peak_text, "measured peak: %s GFLOP/s (FP32 multiply-add)", figure);
    plot_figure(figure, sizeof figure, bandwidth);
    snprintf(bandwidth_text, sizeof bandwidth_text, "measured bandwidth: %s GB/s", figure);
    plot_figure(figure, sizeof figure, ridge);
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
    labels_place(&fr, peak, bandwidth, points, count, labels, taken, taken_count);

    char base[64], name[80];
    snprintf(base, sizeof base, "bench-roofline-%d", k + 1); /* bench.md's Device k + 1 */
    snprintf(name, sizeof name, "%s.dat", base);
    FILE *f = plot_open(out_dir, name, why, why_size);
    if (!f) {
        status = -1;
        goto done;
    }
    fprintf(f, "# %s.dat - the cases of device %d (%s) at N = %d, from bench.csv.\n", base, k + 1,
            d->devices.keys[k], n);
    fprintf(f, "# measured peak %.6g GFLOP/s, measured bandwidth %.6g GB/s\n", peak, bandwidth);
    fprintf(f, "# flops_per_byte  GFLOP/s  case\n");
    for (int i = 0; i < count; i++)
        fprintf(f, "%.6g %.6g %d  # %s\n", points[i].x, points[i].y, points[i].case_index,
                labels[points[i].case_index]);
    if (count == 0) /* gnuplot stops on a data file without points */
        fprintf(f, "NaN NaN -1\n");
    if ((status = plot_close(f, out_dir, name, why, why_size)) != 0)
        goto done;

    snprintf(name, sizeof name, "%s.gp", base);
    if (!(f = plot_open(out_dir, name, why, why_size))) {
        status = -1;
        goto done;
    }
    /* under the figure, which grows by them: the tuning values, what a dagger says */
    int note_lines = plot_tuning_lines(d, shown_case) + scaled;
    double notes = note_lines ? note_lines * NOTE_LINE + 8 : 0;
    int height = PLOT_HEIGHT + (int)notes;
    plot_gp_begin(f, base, "the roofline of one device with its kernels placed on it", height);
    plot_tuning_notes(f, d, shown_case, notes - 4, height);
    if (scaled)
        plot_scaled_note(f, 9, n, notes - 4, note_lines, height);
    /* the title in one line across the canvas: a smaller font where a long name needs it */
    char title[400];
    if (count > 0)
        snprintf(title, sizeof title, "Device %d, %s: roofline, kernels at N = %d", k + 1,
                 d->devices.names[k], n);
    else
        snprintf(title, sizeof title, "Device %d, %s: roofline (no kernel has a counted intensity)",
                 k + 1, d->devices.names[k]);
    double title_font = fmax(8, fmin(14, (PLOT_WIDTH - 40) / (0.6 * (double)strlen(title))));
    fprintf(f, "set label 8 ");
    plot_gp_string(f, title);
    fprintf(f, " at screen 0.5, screen %.4f center font ',%.1f'\n", 1 - 20.0 / height, title_font);
    fprintf(f, "set xlabel 'arithmetic intensity (flops per byte of global memory traffic, log "
               "scale)'\n"
               "set ylabel 'GFLOP/s (median of the timed runs, log scale)'\n");
    fprintf(f, "set logscale xy\nset format x '%%.12g'\nset format y '%%.12g'\n");
    fprintf(f, "set xrange [%g:%g]\nset yrange [%g:%g]\n", pow(10, fr.x0), pow(10, fr.x1),
            pow(10, fr.y0), pow(10, fr.y1));
    fprintf(f,
            "# fixed margins: the labels were placed for this plot area\n"
            "set lmargin at screen %g\nset rmargin at screen %g\n"
            "set bmargin at screen %.4f\nset tmargin at screen %.4f\n",
            FRAME_LEFT, FRAME_RIGHT, (FRAME_BOTTOM * PLOT_HEIGHT + notes) / height,
            (FRAME_TOP * PLOT_HEIGHT + notes) / height);
    fprintf(f, "set grid xtics ytics lc rgb '#e4e4e4' lt 1\nset tics nomirror\nunset key\nset "
               "samples 2000\n");
    fprintf(f, "peak = %.6g       # GFLOP/s\nbandwidth = %.6g  # GB/s\n", peak, bandwidth);
    fprintf(f, "roof(x) = bandwidth * x < peak ? bandwidth * x : peak\n");
    fprintf(f, "set label 1 ");
    plot_gp_string(f, peak_text);
    fprintf(f, " at graph 1, first peak right offset -1.2,%s font ',11' tc rgb '#333333'\n",
            peak_under ? "-1.0" : "1.0");
    fprintf(f, "set label 2 ");
    plot_gp_string(f, bandwidth_text);
    fprintf(f, " at %.6g, %.6g center rotate by %.1f font ',11' tc rgb '#333333'\n",
            frame_x(&fr, bx), frame_y(&fr, by), slope * 180 / M_PI);
    fprintf(f, "set label 3 ");
    plot_gp_string(f, ridge_text);
    fprintf(f, " at %.6g, graph 0 left offset 0.4,0.7 font ',11' tc rgb '#666666'\n", ridge);
    fprintf(f, "set arrow 1 from %.6g, graph 0 to %.6g, first peak nohead dt 3 lc rgb '#888888'\n",
            ridge, ridge);
    /* each point's dot and label a plot of its own, titled "dot K" and "label K" (K = its line in
     * the .dat from 1), and a label away from its point, or as near another, a line from its
     * point to the label's nearest edge, "leader K": the SVG's groups say which label is whose,
     * and tests/plots.sh checks that each sits beside its dot or is joined to it (a title makes
     * the group's <title> only when noenhanced, the terminal's setting not being enough). The
     * leaders first, the labels after all the dots, over them. */
    fprintf(f, "plot roof(x) with lines lw 2.5 lc rgb '#444444'");
    for (int i = 0; i < count; i++) {
        const struct roof_point *p = &points[i];
        double ex, ey;
        nearest_edge(&p->text, p->px, p->py, &ex, &ey);
        if (!label_needs_leader(points, count, i) || hypot(ex - p->px, ey - p->py) < 1)
            continue;
        fprintf(f,
                ", \\\n     '%s.dat' every ::%d::%d using 1:2:(%.6g - $1):(%.6g - $2) with vectors "
                "nohead lw 0.5 lc rgb '#999999' title 'leader %d' noenhanced",
                base, i, i, frame_x(&fr, ex), frame_y(&fr, ey), i + 1);
    }
    for (int i = 0; i < count; i++)
        fprintf(f,
                ", \\\n     '%s.dat' every ::%d::%d using 1:2 with points pt 7 ps 1.2 "
                "lc rgb '%s' title 'dot %d' noenhanced",
                base, i, i, plot_device_colours[k % COUNT_OF(plot_device_colours)], i + 1);
    for (int i = 0; i < count; i++) {
        const struct roof_point *p = &points[i];
        double ax = p->align == ALIGN_LEFT    ? p->text.x0
                    : p->align == ALIGN_RIGHT ? p->text.x1
                                              : (p->text.x0 + p->text.x1) / 2;
        double ay = (p->text.y0 + p->text.y1) / 2;
        fprintf(f, ", \\\n     '%s.dat' every ::%d::%d using (%.6g):(%.6g):(", base, i, i,
                frame_x(&fr, ax), frame_y(&fr, ay));
        plot_gp_string(f, labels[p->case_index]);
        fprintf(f, ") with labels %s font ',%g' tc rgb 'black' title 'label %d' noenhanced",
                p->align == ALIGN_LEFT    ? "left"
                : p->align == ALIGN_RIGHT ? "right"
                                          : "center",
                LABEL_FONT, i + 1);
    }
    fprintf(f, "\n");
    status = plot_close(f, out_dir, name, why, why_size);
    if (status == 0)
        status = 1;
done:
    for (int c = 0; c < d->cases.count; c++)
        free(labels[c]);
    free(labels);
    free(shown_case);
    free(points);
    free(taken);
    return status;
}
