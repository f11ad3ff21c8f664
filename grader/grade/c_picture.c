/* c_picture.c - a wrong C as a small SVG (c_picture.h): a grid of cells over a background of the
 * "right" colour, each row's runs of one fault drawn as one rectangle, so a file of 64 x 64 cells
 * stays a few kilobytes; beside it, for a C of merged cells, a zoom at one cell per element; a
 * legend with each kind's count of elements below. The canvas is as wide as its texts need,
 * estimated generously (tests/plots.sh checks them in a browser). */
#include "grade/c_picture.h"

#include "clu.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define CELL_AREA  384 /* a grid's longest side at most, in pixels (a cell is at least 4) */
#define MARGIN     16
#define TITLE_H    28
#define LINE_H     22   /* a caption's or a legend's line */
#define GAP        24   /* between the whole and the zoom */
#define FONT       13   /* captions and legend, pixels */
#define TITLE_FONT 15   /* bold */
#define CHAR_EM    0.62 /* a character's width at most, in font sizes (sans-serif, generous) */
#define BOLD_EM    0.70
#define KEY_W      22 /* the legend's square and the space after it */

static const char *const kind_class[C_KINDS] = {"r", "w", "z", "u", "n"};
static const char *const kind_colour[C_KINDS] = {"#8fd19e", "#d55e00", "#0072b2", "#bdbdbd",
                                                 "#7b3294"};
static const char *const kind_label[C_KINDS] = {"right", "wrong", "0 where the expected is not",
                                                "never written (still the grader's NaN)",
                                                "NaN computed by the kernel"};

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
    if (err <= tol)
        return C_RIGHT;
    return got == 0.0f ? C_ZERO : C_WRONG; /* (an infinity: err is inf or NaN, wrong) */
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

/* The C drawn and the element each way a cell covers. */
struct c_in {
    const float *got;
    const double *expected, *tol;
    size_t rows, cols;
};

/* A window of C drawn as cells: elements [r0, r1) x [c0, c1), bh x bw of them a cell, cs pixels. */
struct grid {
    size_t r0, r1, c0, c1;
    size_t bh, bw, cs;
    size_t gr, gc; /* cells each way */
};

static struct grid grid_of(size_t r0, size_t r1, size_t c0, size_t c1, size_t bh, size_t bw) {
    struct grid g = {r0, r1, c0, c1, bh, bw, 0, (r1 - r0 + bh - 1) / bh, (c1 - c0 + bw - 1) / bw};
    size_t side = g.gr > g.gc ? g.gr : g.gc;
    g.cs = CELL_AREA / side;
    if (g.cs > C_PICTURE_CELL)
        g.cs = C_PICTURE_CELL;
    if (g.cs < 4)
        g.cs = 4;
    return g;
}

/* The kind of the cell of elements [r0, r1) x [c0, c1); counts each element's kind into total
 * when given. */
static enum c_kind cell_kind(const struct c_in *c, size_t r0, size_t r1, size_t c0, size_t c1,
                             size_t *total) {
    size_t count[C_KINDS] = {0};
    for (size_t i = r0; i < r1; i++)
        for (size_t j = c0; j < c1; j++) {
            size_t e = i * c->cols + j;
            count[c_picture_kind(c->got[e], c->expected[e], c->tol[e])]++;
        }
    enum c_kind best = C_RIGHT;
    for (int k = C_WRONG; k < C_KINDS; k++) /* the most; a tie to the later kind (c_picture.h) */
        if (count[k] > 0 && (best == C_RIGHT || count[k] >= count[best]))
            best = (enum c_kind)k;
    for (int k = 0; total && k < C_KINDS; k++)
        total[k] += count[k];
    return best;
}

/* The cells of window g as the group id at (x, y), each row's runs of one fault one rectangle. */
static void draw_grid(FILE *f, const char *id, size_t x, size_t y, const struct c_in *c,
                      const struct grid *g, size_t *total) {
    fprintf(f,
            "<g id=\"%s\" transform=\"translate(%zu %zu)\">\n"
            "<rect class=\"r\" width=\"%zu\" height=\"%zu\"/>\n",
            id, x, y, g->gc * g->cs, g->gr * g->cs);
    for (size_t gi = 0; gi < g->gr; gi++) {
        size_t r0 = g->r0 + gi * g->bh, r1 = r0 + g->bh > g->r1 ? g->r1 : r0 + g->bh;
        enum c_kind run = C_RIGHT;
        size_t run_start = 0;
        /* one past the last cell closes the row's last run */
        for (size_t gj = 0; gj <= g->gc; gj++) {
            enum c_kind k = C_RIGHT;
            if (gj < g->gc) {
                size_t c0 = g->c0 + gj * g->bw, c1 = c0 + g->bw > g->c1 ? g->c1 : c0 + g->bw;
                k = cell_kind(c, r0, r1, c0, c1, total);
            }
            if (gj > 0 && k == run)
                continue;
            if (gj > 0 && run != C_RIGHT)
                fprintf(f,
                        "<rect class=\"%s\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\"/>\n",
                        kind_class[run], run_start * g->cs, gi * g->cs, (gj - run_start) * g->cs,
                        g->cs);
            run = k;
            run_start = gj;
        }
    }
}

/* The first element (row-major) that is not right, or 0 when all are. */
static size_t first_fault(const struct c_in *c) {
    for (size_t e = 0; e < c->rows * c->cols; e++)
        if (c_picture_kind(c->got[e], c->expected[e], c->tol[e]) != C_RIGHT)
            return e;
    return 0;
}

/* The zoom's first row (or column) of `size` out of `count`: at `at` rounded down to 16 for
 * readable bounds, moved back where the window would pass the end (at stays inside). */
static size_t zoom_start(size_t at, size_t size, size_t count) {
    size_t start = at / 16 * 16;
    return start + size > count ? count - size : start;
}

/* pixels a text of `chars` characters takes at font size `font`, generously */
static size_t text_w(size_t chars, double em, int font) {
    return (size_t)ceil((double)chars * em * font);
}

int c_picture_write(const char *path, const char *title, const float *got, const double *expected,
                    const double *tol, size_t rows, size_t cols) {
    if (rows == 0 || cols == 0)
        return -1;
    struct c_in c = {got, expected, tol, rows, cols};
    /* the whole: elements a cell, each way, as few as keep it within C_PICTURE_CELLS cells */
    struct grid whole = grid_of(0, rows, 0, cols, (rows + C_PICTURE_CELLS - 1) / C_PICTURE_CELLS,
                                (cols + C_PICTURE_CELLS - 1) / C_PICTURE_CELLS);
    int zoomed = whole.bh * whole.bw > 1;
    /* The zoom, one cell per element, around the first faulty element rather than at C(0,0): an
     * index bug shows first where it starts, and that may be past the top-left corner (a C right
     * but for its last rows); when C(0,0) is wrong, it is the top-left corner. */
    size_t zh = rows < C_PICTURE_CELLS ? rows : C_PICTURE_CELLS;
    size_t zw = cols < C_PICTURE_CELLS ? cols : C_PICTURE_CELLS, at = first_fault(&c);
    size_t zr0 = zoom_start(at / cols, zh, rows), zc0 = zoom_start(at % cols, zw, cols);
    struct grid zoom = grid_of(zr0, zr0 + zh, zc0, zc0 + zw, 1, 1);

    char caption[160], zoom_caption[160];
    int n = snprintf(caption, sizeof caption, "C(0,0) top left, %zu x %zu elements", rows, cols);
    if (zoomed && n > 0 && (size_t)n < sizeof caption)
        snprintf(caption + n, sizeof caption - (size_t)n, "; a cell is %zu x %zu of them", whole.bh,
                 whole.bw);
    snprintf(zoom_caption, sizeof zoom_caption,
             "framed, zoomed: rows %zu-%zu, columns %zu-%zu, one cell per element", zr0,
             zr0 + zh - 1, zc0, zc0 + zw - 1);
    size_t whole_w = whole.gc * whole.cs, whole_h = whole.gr * whole.cs;
    size_t zoom_x = MARGIN + whole_w + GAP, zoom_w = zoom.gc * zoom.cs, zoom_h = zoom.gr * zoom.cs;
    size_t top = MARGIN + TITLE_H + (zoomed ? 2 : 1) * LINE_H;
    size_t grid_h = zoomed && zoom_h > whole_h ? zoom_h : whole_h;
    size_t legend_y = top + grid_h + MARGIN;
    size_t height = legend_y + C_KINDS * LINE_H + MARGIN;

    /* the legend's counts first: the widest line sizes the canvas */
    size_t total[C_KINDS] = {0};
    (void)cell_kind(&c, 0, rows, 0, cols, total);
    /* as wide as the grids and the longest text need */
    size_t width = (zoomed ? zoom_x + zoom_w : MARGIN + whole_w) + MARGIN, need;
    need = MARGIN + text_w(strlen(title), BOLD_EM, TITLE_FONT) + MARGIN;
    width = need > width ? need : width;
    need = MARGIN + text_w(strlen(caption), CHAR_EM, FONT) + MARGIN;
    width = need > width ? need : width;
    need = zoom_x + text_w(strlen(zoom_caption), CHAR_EM, FONT) + MARGIN;
    width = zoomed && need > width ? need : width;
    for (int k = 0; k < C_KINDS; k++) {
        char line[120];
        snprintf(line, sizeof line, "%s: %zu", kind_label[k], total[k]);
        need = MARGIN + KEY_W + text_w(strlen(line), CHAR_EM, FONT) + MARGIN;
        width = need > width ? need : width;
    }

    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\" "
            "viewBox=\"0 0 %zu %zu\" font-family=\"sans-serif\" font-size=\"%d\">\n"
            "<style>",
            width, height, width, height, FONT);
    for (int k = 0; k < C_KINDS; k++)
        fprintf(f, ".%s{fill:%s}", kind_class[k], kind_colour[k]);
    fprintf(f,
            "</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"%d\" font-size=\"%d\" font-weight=\"bold\">",
            MARGIN, MARGIN + 14, TITLE_FONT);
    put_text(f, title);
    fprintf(f, "</text>\n<text x=\"%d\" y=\"%d\">%s</text>\n", MARGIN, MARGIN + TITLE_H + 12,
            caption);
    draw_grid(f, "cells", MARGIN, top, &c, &whole, NULL);
    if (zoomed) { /* the zoom's window framed on the whole: the cells it covers */
        size_t fr0 = zr0 / whole.bh, fr1 = (zr0 + zh + whole.bh - 1) / whole.bh;
        size_t fc0 = zc0 / whole.bw, fc1 = (zc0 + zw + whole.bw - 1) / whole.bw;
        fprintf(f,
                "<rect id=\"zoom-frame\" x=\"%zu\" y=\"%zu\" width=\"%zu\" height=\"%zu\" "
                "fill=\"none\" stroke=\"black\" stroke-width=\"1.5\"/>\n",
                fc0 * whole.cs, fr0 * whole.cs, (fc1 - fc0) * whole.cs, (fr1 - fr0) * whole.cs);
    }
    fprintf(f, "</g>\n");
    if (zoomed) {
        fprintf(f, "<text x=\"%zu\" y=\"%d\">%s</text>\n", zoom_x, MARGIN + TITLE_H + LINE_H + 12,
                zoom_caption);
        draw_grid(f, "zoom", zoom_x, top, &c, &zoom, NULL);
        fprintf(f, "</g>\n");
    }
    fprintf(f, "<g id=\"legend\">\n");
    for (int k = 0; k < C_KINDS; k++) {
        size_t y = legend_y + (size_t)k * LINE_H;
        fprintf(f,
                "<rect class=\"%s\" x=\"%d\" y=\"%zu\" width=\"14\" height=\"14\" "
                "stroke=\"black\" stroke-width=\"0.5\"/>"
                "<text x=\"%d\" y=\"%zu\">%s: %zu</text>\n",
                kind_class[k], MARGIN, y, MARGIN + KEY_W, y + 12, kind_label[k], total[k]);
    }
    fprintf(f, "</g>\n</svg>\n");
    return fclose(f) == 0 ? 0 : -1;
}
