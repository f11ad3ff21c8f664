/* labels.c - the labels of a roofline's points placed by cost: each label tries the places around
 * its point (right, left, lines up or down, over, under) and takes the one that overlaps the
 * fewest points and labels, stays in the plot and off the roof, with a short leader line that
 * crosses nothing; then every label moves again knowing where the others went.
 */
#include "bench/labels.h"
#include "bench/plot.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_SHIFTS 10 /* lines a label may move up or down from its point */
#define LABEL_ROUNDS 4  /* rounds of moving each label again once all are placed */
#define LABEL_SLIDES 7  /* offsets over or under a point between hanging left and right */

/* The cost of the label of the point at (px, py) in box b: out of the plot, away from its point or
 * as near another (whose is it then?), over another point or label, across the roof, or with a
 * leader line that crosses the roof or another label. */
static double label_cost(const struct frame *f, double peak, double bandwidth, const struct box *b,
                         double px, double py, const struct box *taken, int taken_count) {
    double cost = 0, ex, ey;
    if (b->x0 < 0 || b->x1 > f->width || b->y0 < 0 || b->y1 > f->height)
        cost += 5000; /* (more than a label beside no point: it must stay readable) */
    /* near its point, and nearer it than any other, a label needs no line to say whose it is:
     * preferred, but less than a label over another (two unreadable) or out of the plot; a label
     * placed away from its point, or nearer another, gets a leader line from its point
     * (roofline.c, label_needs_leader) */
    double own = box_distance(b, px, py);
    if (own > LABEL_REACH)
        cost += 20 + own;
    /* the others against the box a browser may draw: wider than CHAR_WIDTH says by up to a tenth
     * (DejaVu Sans), either way as the anchor is not known here */
    double grow = 0.1 * (b->x1 - b->x0);
    struct box wide = {b->x0 - grow, b->y0, b->x1 + grow, b->y1, 0};
    for (int i = 0; i < taken_count; i++) {
        double qx = (taken[i].x0 + taken[i].x1) / 2, qy = (taken[i].y0 + taken[i].y1) / 2;
        if (taken[i].is_point && (qx != px || qy != py) &&
            box_distance(&wide, qx, qy) < own + LABEL_CLEARER)
            cost += 25;
    }
    for (int i = 0; i < taken_count; i++)
        if (boxes_overlap(b, &taken[i])) /* a corner touched costs less than a point covered; */
            /* a label over another, unreadable both, more than a roof crossed or a long leader
             * (at 1x, two labels of make test's N = 64 run overlapped in 2 of 3 runs) */
            cost += (30.0 + 70.0 * overlap_fraction(b, &taken[i])) * (taken[i].is_point ? 2 : 10);
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
    /* under and over, centred, hanging to one side, or anywhere between in eighths (a long
     * label in a cluster fits between its neighbours only at one offset) */
    for (int up = -1; up <= 1; up += 2)
        for (int away = 0; away < LABEL_SHIFTS / 2; away++)
            for (int hang = 0; hang < 3 + LABEL_SLIDES; hang++) {
                double cy = p->py + up * (h / 2 + 6 + away * (h + 1));
                double x0 = hang == 0   ? p->px - w / 2
                            : hang == 1 ? p->px - 8
                            : hang == 2 ? p->px + 8 - w
                                        : p->px - 8 - (w - 16) * (hang - 2) / (LABEL_SLIDES + 1);
                struct box b = {x0, cy - h / 2, x0 + w, cy + h / 2, 0};
                double cost = 3.0 * (away + 1) + (hang < 3 ? hang : 3) +
                              label_cost(f, peak, bandwidth, &b, p->px, p->py, taken, taken_count);
                if (cost < best) {
                    best = cost;
                    p->text = b;
                    p->align = hang == 0 ? ALIGN_CENTRE : hang == 2 ? ALIGN_RIGHT : ALIGN_LEFT;
                }
            }
    return best;
}

int labels_place(const struct frame *f, double peak, double bandwidth, struct roof_point *points,
                 int count, char *const *names, struct box *taken, int taken_count) {
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

int label_needs_leader(const struct roof_point *points, int count, int i) {
    const struct roof_point *p = &points[i];
    double own = box_distance(&p->text, p->px, p->py);
    if (own > LABEL_REACH - 3) /* (a browser's font may draw it a few pixels further) */
        return 1;
    double grow = 0.1 * (p->text.x1 - p->text.x0);
    struct box wide = {p->text.x0 - grow, p->text.y0, p->text.x1 + grow, p->text.y1, 0};
    for (int j = 0; j < count; j++)
        if (j != i && box_distance(&wide, points[j].px, points[j].py) < own + LABEL_CLEARER + 2)
            return 1;
    return 0;
}
