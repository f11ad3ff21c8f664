/* labels.h - where the labels of a roofline go: the plot area in pixels, the boxes that labels,
 * points and annotations take, and the placement of each point's label where it overlaps the
 * fewest and crosses no roof (labels.c). Private to bench/ (roofline.c).
 */
#ifndef BENCH_LABELS_H
#define BENCH_LABELS_H

#include <math.h>

/* The plot area of a log-log figure, in pixels from its bottom-left corner, so that labels can
 * be placed where they overlap nothing (the script fixes the margins to match). */
struct frame {
    double x0, x1, y0, y1; /* axis ranges, log10 */
    double width, height;  /* plot area, pixels */
};

#define FRAME_LEFT   0.10 /* margins, fractions of the figure */
#define FRAME_RIGHT  0.97
#define FRAME_BOTTOM 0.12
#define FRAME_TOP    0.90
#define LABEL_FONT   9.0  /* point labels, pixels */
#define LEADER_MIN   12.0 /* pixels between a point and its label that call for a line */
#define LABEL_REACH                                                                                \
    9.0                      /* pixels from a point's centre its label's box comes within: the     \
                              * reader pairs them by nearness (tests/plots.sh allows 12 as a       \
                              * browser draws it, the font's estimate taking the rest) */
#define LABEL_CLEARER    2.0 /* pixels a label is nearer its own point than any other */
#define BANDWIDTH_PIECES 8   /* the slanted bandwidth label, as boxes for the label placement */

static inline double frame_px(const struct frame *f, double x) {
    return f->width * (log10(x) - f->x0) / (f->x1 - f->x0);
}

static inline double frame_py(const struct frame *f, double y) {
    return f->height * (log10(y) - f->y0) / (f->y1 - f->y0);
}

static inline double frame_x(const struct frame *f, double px) {
    return pow(10, f->x0 + px / f->width * (f->x1 - f->x0));
}

static inline double frame_y(const struct frame *f, double py) {
    return pow(10, f->y0 + py / f->height * (f->y1 - f->y0));
}

struct box {
    double x0, y0, x1, y1; /* pixels */
    int is_point;          /* a point's marker: worse to cover than a label */
};

static inline int boxes_overlap(const struct box *a, const struct box *b) {
    return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* How much of the smaller of two boxes the other covers, 0 to 1. */
static inline double overlap_fraction(const struct box *a, const struct box *b) {
    double w = fmin(a->x1, b->x1) - fmax(a->x0, b->x0), h = fmin(a->y1, b->y1) - fmax(a->y0, b->y0);
    double smaller = fmin((a->x1 - a->x0) * (a->y1 - a->y0), (b->x1 - b->x0) * (b->y1 - b->y0));
    return w > 0 && h > 0 && smaller > 0 ? fmin(1, w * h / smaller) : 0;
}

/* Whether the roofline min(peak, bandwidth x) passes through box b. */
static inline int crosses_roof(const struct frame *f, double peak, double bandwidth,
                               const struct box *b) {
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

/* How far box b is from (px, py), 0 inside it. */
static inline double box_distance(const struct box *b, double px, double py) {
    return hypot(fmax(fmax(b->x0 - px, 0), px - b->x1), fmax(fmax(b->y0 - py, 0), py - b->y1));
}

/* The point of box b nearest to (px, py): where a leader line from that point meets the label. */
static inline void nearest_edge(const struct box *b, double px, double py, double *ex, double *ey) {
    *ex = fmin(fmax(px, b->x0), b->x1);
    *ey = fmin(fmax(py, b->y0), b->y1);
}

/* Labels for all the points, one at a time, in whichever of a few orders (the table's, by
 * intensity, by GFLOP/s) costs least in all; taken has room for count more boxes. Returns 0, or
 * -1 when out of memory (the labels then placed in the table's order). */
int labels_place(const struct frame *f, double peak, double bandwidth, struct roof_point *points,
                 int count, char *const *names, struct box *taken, int taken_count);

/* Whether the label of points[i], placed, needs a line from its point to say whose it is: further
 * from its point than a reader pairs by nearness, or about as near another point. */
int label_needs_leader(const struct roof_point *points, int count, int i);

#endif
