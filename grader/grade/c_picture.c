/* c_picture.c - a wrong C as a small SVG (c_picture.h): a grid of cells over a background of the
 * "right" colour, each row's runs of one fault drawn as one rectangle, so a file of 64 x 64 cells
 * stays a few kilobytes; a legend with each kind's count of elements below. */
#include "grade/c_picture.h"

#include "clu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CELL_AREA 384 /* the grid's longest side, in pixels (a cell is at least 4) */
#define MARGIN    16
#define TITLE_H   28
#define LEGEND_H  22  /* a legend line */
#define MIN_W     440 /* room for the legend's and the title's text */

static const char *const kind_class[C_KINDS] = {"r", "w", "u", "n"};
static const char *const kind_colour[C_KINDS] = {"#8fd19e", "#d55e00", "#bdbdbd", "#7b3294"};
static const char *const kind_label[C_KINDS] = {
    "right", "wrong", "never written (still the grader's NaN)", "NaN computed by the kernel"};

enum c_kind c_picture_kind(float got, double expected, double tol) {
    switch (clu_nan_kind(got)) {
    case CLU_UNWRITTEN:
        return C_UNWRITTEN;
    case CLU_FROM_UNWRITTEN:
    case CLU_COMPUTED_NAN:
    case CLU_PAST_END:
        return C_NAN;
    case CLU_NOT_NAN:
        break;
    }
    double err = fabs((double)got - expected);
    return err <= tol ? C_RIGHT : C_WRONG; /* (an infinity: err is inf or NaN, wrong) */
}

/* text with XML's five special characters escaped */
static void put_text(FILE *f, const char *s) {
    for (; *s; s++)
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            fputc(*s, f);
        }
}

/* The kind of the cell of elements [r0, r1) x [c0, c1); counts each element's kind into total. */
static enum c_kind cell_kind(const float *got, const double *expected, const double *tol,
                             size_t cols, size_t r0, size_t r1, size_t c0, size_t c1,
                             size_t total[C_KINDS]) {
    size_t count[C_KINDS] = {0};
    for (size_t i = r0; i < r1; i++)
        for (size_t j = c0; j < c1; j++) {
            size_t e = i * cols + j;
            count[c_picture_kind(got[e], expected[e], tol[e])]++;
        }
    enum c_kind best = C_RIGHT;
    for (int k = C_WRONG; k < C_KINDS; k++) {
        total[k] += count[k];
        if (count[k] > count[best] || (best == C_RIGHT && count[k] > 0))
            best = (enum c_kind)k;
    }
    total[C_RIGHT] += count[C_RIGHT];
    return best;
}

int c_picture_write(const char *path, const char *title, const float *got, const double *expected,
                    const double *tol, size_t rows, size_t cols) {
    if (rows == 0 || cols == 0)
        return -1;
    /* elements a cell, each way, and the grid they make */
    size_t bh = (rows + C_PICTURE_CELLS - 1) / C_PICTURE_CELLS,
           bw = (cols + C_PICTURE_CELLS - 1) / C_PICTURE_CELLS;
    size_t gr = (rows + bh - 1) / bh, gc = (cols + bw - 1) / bw;
    size_t side = gr > gc ? gr : gc, cs = CELL_AREA / side;
    if (cs < 4)
        cs = 4;
    size_t grid_w = gc * cs, grid_h = gr * cs;
    size_t width = grid_w + 2 * MARGIN < MIN_W ? MIN_W : grid_w + 2 * MARGIN;
    size_t top = MARGIN + TITLE_H + LEGEND_H, legend_y = top + grid_h + MARGIN;
    size_t height = legend_y + C_KINDS * LEGEND_H + LEGEND_H + MARGIN;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
            "viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"13\">\n"
            "<style>",
            width, height, width, height);
    for (int k = 0; k < C_KINDS; k++)
        fprintf(f, ".%s{fill:%s}", kind_class[k], kind_colour[k]);
    fprintf(f,
            "</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">",
            MARGIN, MARGIN + 14);
    put_text(f, title);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\">C(0,0) top left, %zu x %zu elements", MARGIN,
            MARGIN + TITLE_H + 12, rows, cols);
    if (bh * bw > 1)
        fprintf(f, "; a cell is %zu x %zu of them", bh, bw);
    fprintf(f,
            "</text>\n<g id=\"cells\" transform=\"translate(%d %zu)\">\n"
            "<rect class=\"r\" width=\"%zu\" height=\"%zu\"/>\n",
            MARGIN, top, grid_w, grid_h);
    size_t total[C_KINDS] = {0};
    for (size_t gi = 0; gi < gr; gi++) {
        size_t r0 = gi * bh, r1 = r0 + bh > rows ? rows : r0 + bh;
        enum c_kind run = C_RIGHT;
        size_t run_start = 0;
        /* one past the last cell closes the row's last run */
        for (size_t gj = 0; gj <= gc; gj++) {
            enum c_kind k = C_RIGHT;
            if (gj < gc) {
                size_t c0 = gj * bw, c1 = c0 + bw > cols ? cols : c0 + bw;
                k = cell_kind(got, expected, tol, cols, r0, r1, c0, c1, total);
            }
            if (gj > 0 && k == run)
                continue;
            if (gj > 0 && run != C_RIGHT)
                fprintf(f,
                        "<rect class=\"%s\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\"/>\n",
                        kind_class[run], run_start * cs, gi * cs, (gj - run_start) * cs, cs);
            run = k;
            run_start = gj;
        }
    }
    fprintf(f, "</g>\n<g id=\"legend\">\n");
    for (int k = 0; k < C_KINDS; k++) {
        size_t y = legend_y + (size_t)k * LEGEND_H;
        fprintf(f,
                "<rect class=\"%s\" x=\"%d\" y=\"%zu\" width=\"14\" height=\"14\" "
                "stroke=\"black\" stroke-width=\"0.5\"/>"
                "<text x=\"%d\" y=\"%zu\">%s: %zu</text>\n",
                kind_class[k], MARGIN, y, MARGIN + 22, y + 12, kind_label[k], total[k]);
    }
    fprintf(f, "</g>\n</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
