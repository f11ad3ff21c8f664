/* test_c_picture.c - unit tests (cmocka) of the picture of a wrong C (grade/c_picture.c): a known
 * pattern of right, wrong, zero, never written and computed-NaN elements must come out as exactly
 * its rectangles and the legend's counts; a C larger than 64 a side as blocks of elements, a block
 * with one fault drawn as that fault, and a zoom at one cell per element beside it (none at 64 or
 * less); a 1 x 1 C drawn small; the title escaped and the file well-formed (xmllint when
 * installed). The pattern's place is drawn from the run's seed (TEST_C_PICTURE_SEED repeats it).
 * TEST_C_PICTURE_SVGS=DIR keeps a copy of each picture in DIR (tests/plots.sh lays them out).
 */
#define _GNU_SOURCE /* strdup */
#include "grader.h"
#include "grade/c_picture.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_c_picture", "TEST_C_PICTURE_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* A C of rows x cols, every element right (expected 1, tolerance 0.01). */
struct c {
    size_t rows, cols;
    float *got;
    double *expected, *tol;
};

static void c_open(struct c *c, size_t rows, size_t cols) {
    c->rows = rows;
    c->cols = cols;
    c->got = malloc(rows * cols * sizeof *c->got);
    c->expected = malloc(rows * cols * sizeof *c->expected);
    c->tol = malloc(rows * cols * sizeof *c->tol);
    CHECK(c->got && c->expected && c->tol, "out of memory");
    for (size_t i = 0; i < rows * cols; i++) {
        c->got[i] = 1.0f;
        c->expected[i] = 1.0;
        c->tol[i] = 0.01;
    }
}

static void c_close(struct c *c) {
    free(c->got);
    free(c->expected);
    free(c->tol);
}

/* An SVG's text for a message: GCC 12 with the sanitizers takes a string that strstr() was given
 * for one that may be null, and refuses it to %s (-Wformat-overflow) */
static const char *text(const char *svg) {
    return svg ? svg : "";
}

/* The picture of c, read back (free it). */
static char *draw(const struct c *c, const char *name, const char *title) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s.svg", g_tmp, name);
    CHECK(c_picture_write(path, title, c->got, c->expected, c->tol, c->rows, c->cols) == 0,
          "%s not written", path);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "%s not readable", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    CHECK(strncmp(buf, "<?xml", 5) == 0 && strstr(buf, "<svg ") && n > 7 &&
              strcmp(buf + n - 7, "</svg>\n") == 0,
          "not an SVG:\n%s", buf);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "command -v xmllint >/dev/null || exit 0; xmllint --noout '%s'",
             path);
    CHECK(system(cmd) == 0, "xmllint refuses %s", path);
    const char *keep = getenv("TEST_C_PICTURE_SVGS");
    if (keep && *keep) {
        snprintf(path, sizeof path, "%s/c-picture-%s.svg", keep, name);
        FILE *k = fopen(path, "w");
        CHECK(k && fwrite(buf, 1, n, k) == n && fclose(k) == 0, "cannot keep %s", path);
    }
    char *copy = strdup(buf);
    if (!copy) /* (never NULL for the checks that print it) */
        abort();
    return copy;
}

/* The number of <rect> of class kind in the group id ("cells": the whole; "zoom"). */
static int group_rects(const char *svg, const char *id, const char *kind) {
    char open[32];
    snprintf(open, sizeof open, "<g id=\"%s\"", id);
    const char *p = strstr(svg, open), *end = p ? strstr(p, "</g>") : NULL;
    char tag[32];
    snprintf(tag, sizeof tag, "<rect class=\"%s\" x=", kind);
    int count = 0;
    for (p = p ? strstr(p, tag) : NULL; p && p < end; p = strstr(p + 1, tag))
        count++;
    return count;
}

static int cell_rects(const char *svg, const char *kind) {
    return group_rects(svg, "cells", kind);
}

/* The text of group id from its opening to its end, in a static buffer ("" when absent). */
static const char *group(const char *svg, const char *id) {
    static char buf[1 << 20];
    char open[32];
    snprintf(open, sizeof open, "<g id=\"%s\"", id);
    const char *p = strstr(svg, open), *end = p ? strstr(p, "</g>") : NULL;
    size_t n = p && end ? (size_t)(end - p) : 0;
    n = n < sizeof buf - 1 ? n : sizeof buf - 1;
    memcpy(buf, p ? p : "", n);
    buf[n] = '\0';
    return buf;
}

/* The canvas's width and height, from the <svg> tag. */
static void canvas(const char *svg, size_t *width, size_t *height) {
    const char *p = strstr(svg, "<svg ");
    CHECK(p && sscanf(p, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%zu\" height=\"%zu\"",
                      width, height) == 2,
          "no canvas size:\n%s", text(svg));
}

static void test_pattern(void **state) {
    (void)state;
    struct rng r = rng_for("pattern");
    struct c c;
    c_open(&c, 8, 6); /* 24 pixels a cell, the most (384 / 8 is 48) */
    size_t i = (size_t)rng_range(&r, 0, 7), j = (size_t)rng_range(&r, 0, 2);
    c.got[i * 6 + j] = 2.0f;             /* wrong ... */
    c.got[i * 6 + j + 1] = 3.0f;         /* ... and its neighbour: one run of two */
    c.got[i * 6 + j + 2] = NAN;          /* a NaN the kernel computed */
    c.got[((i + 5) % 8) * 6 + 4] = 0.0f; /* exactly zero */
    clu_fill_unwritten(&c.got[((i + 1) % 8) * 6 + 5], 1);
    c.got[((i + 3) % 8) * 6] = INFINITY; /* an infinity is wrong */
    char *svg = draw(&c, "pattern", "01: C at N = 8 <&>");
    char want[160];
    snprintf(want, sizeof want,
             "<rect class=\"w\" x=\"%zu\" y=\"%zu\" width=\"48\" height=\"24\"/>\n"
             "<rect class=\"n\" x=\"%zu\" y=\"%zu\" width=\"24\" height=\"24\"/>",
             j * 24, i * 24, (j + 2) * 24, i * 24);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"u\" x=\"120\" y=\"%zu\" width=\"24\"",
             (i + 1) % 8 * 24);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"w\" x=\"0\" y=\"%zu\" width=\"24\"",
             (i + 3) % 8 * 24);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"z\" x=\"96\" y=\"%zu\" width=\"24\"",
             (i + 5) % 8 * 24);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    CHECK(cell_rects(svg, "w") == 2 && cell_rects(svg, "n") == 1 && cell_rects(svg, "u") == 1 &&
              cell_rects(svg, "z") == 1 && cell_rects(svg, "r") == 0,
          "cells: w %d n %d u %d z %d r %d\n%s", cell_rects(svg, "w"), cell_rects(svg, "n"),
          cell_rects(svg, "u"), cell_rects(svg, "z"), cell_rects(svg, "r"), text(svg));
    CHECK(strstr(svg, ">right: 42<") && strstr(svg, ">wrong: 3<") &&
              strstr(svg, ">0 where the expected is not: 1<") &&
              strstr(svg, ">never written (still the grader's NaN): 1<") &&
              strstr(svg, ">NaN computed by the kernel: 1<"),
          "legend's counts:\n%s", text(svg));
    CHECK(strstr(svg, "N = 8 &lt;&amp;&gt;</text>") && !strstr(svg, "<&>"), "title:\n%s",
          text(svg));
    CHECK(strstr(svg, "8 x 6 elements</text>") && !strstr(svg, "<g id=\"zoom\"") &&
              !strstr(svg, "zoom-frame"),
          "one element a cell, no zoom:\n%s", text(svg));
    free(svg);
    c_close(&c);
}

/* 130 x 130: 3 x 3 elements a cell, 44 x 44 cells of 8 pixels; one wrong element makes its cell
 * wrong, and a cell of more never-written elements than wrong ones is never written */
static void test_blocks(void **state) {
    (void)state;
    struct rng r = rng_for("blocks");
    struct c c;
    c_open(&c, 130, 130);
    size_t i = (size_t)rng_range(&r, 0, 129), j = (size_t)rng_range(&r, 0, 129);
    c.got[i * 130 + j] = -1.0f;
    size_t bi = (i / 3 + 7) % 43, bj = (j / 3 + 11) % 43; /* another cell */
    clu_fill_unwritten(&c.got[bi * 3 * 130 + bj * 3], 2);
    c.got[(bi * 3 + 1) * 130 + bj * 3] = 5.0f;
    char *svg = draw(&c, "blocks", "C at N = 130");
    char want[160];
    snprintf(want, sizeof want, "<rect class=\"w\" x=\"%zu\" y=\"%zu\" width=\"8\" height=\"8\"/>",
             j / 3 * 8, i / 3 * 8);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"u\" x=\"%zu\" y=\"%zu\" width=\"8\" height=\"8\"/>",
             bj * 8, bi * 8);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    CHECK(cell_rects(svg, "w") == 1 && cell_rects(svg, "u") == 1, "cells: w %d u %d\n%s",
          cell_rects(svg, "w"), cell_rects(svg, "u"), svg);
    CHECK(strstr(svg, "a cell is 3 x 3 of them") && strstr(svg, ">wrong: 2<") &&
              strstr(svg, ">never written (still the grader's NaN): 2<") &&
              strstr(svg, "width=\"352\" height=\"352\"/>"),
          "blocks:\n%s", text(svg));
    free(svg);
    c_close(&c);
}

/* exactly 0 where the expected value is not within tolerance of 0 is a kind of its own; a 0 that
 * is right, a tiny value, a NaN and an infinity are not */
static void test_kind(void **state) {
    (void)state;
    struct rng r = rng_for("kind");
    for (int t = 0; t < 100; t++) {
        double expected =
            (double)rng_range(&r, 1, 1000000) / 1000.0 * (rng_range(&r, 0, 1) ? 1 : -1);
        double tol = fabs(expected) * (double)rng_range(&r, 1, 99) / 100.0; /* below |expected| */
        CHECK(c_picture_kind(0.0f, expected, tol) == C_ZERO, "0 for %g (tol %g)", expected, tol);
        CHECK(c_picture_kind(-0.0f, expected, tol) == C_ZERO, "-0 for %g (tol %g)", expected, tol);
        CHECK(c_picture_kind((float)expected, expected, tol) == C_RIGHT, "%g", expected);
        CHECK(c_picture_kind(0.0f, tol / 2, tol) == C_RIGHT, "0 for %g (tol %g)", tol / 2, tol);
        CHECK(c_picture_kind(1e-30f, expected, tol) == C_WRONG, "1e-30 for %g", expected);
    }
    CHECK(c_picture_kind(0.0f, 0.0, 0.0) == C_RIGHT, "0 for 0");
    CHECK(c_picture_kind(NAN, 1.0, 0.01) == C_NAN, "NaN");
    CHECK(c_picture_kind(INFINITY, 0.0, 0.01) == C_WRONG, "inf");
}

/* C all zero is one zero rectangle a row of cells; a band of zero rows shows as zero cells at any
 * size, merged (2 x 2 at 100 .. 128) or not */
static void test_zeros(void **state) {
    (void)state;
    struct rng r = rng_for("zeros");
    size_t rows = (size_t)rng_range(&r, 1, 128), cols = (size_t)rng_range(&r, 1, 128);
    struct c c;
    c_open(&c, rows, cols);
    for (size_t e = 0; e < rows * cols; e++)
        c.got[e] = 0.0f;
    char *svg = draw(&c, "all-zero", "C all zero");
    size_t bh = (rows + 63) / 64, gr = (rows + bh - 1) / bh;
    char want[160];
    snprintf(want, sizeof want, ">0 where the expected is not: %zu<", rows * cols);
    CHECK(strstr(svg, want) && strstr(svg, ">right: 0<") && strstr(svg, ">wrong: 0<"),
          "%zu x %zu: no\n%s\nin\n%s", rows, cols, want, text(svg));
    CHECK(cell_rects(svg, "z") == (int)gr && cell_rects(svg, "w") == 0,
          "%zu x %zu: %d zero rows of cells, not %zu\n%s", rows, cols, cell_rects(svg, "z"), gr,
          text(svg));
    free(svg);
    for (size_t e = 0; e < rows * cols; e++)
        c.got[e] = 1.0f;
    size_t band = (size_t)rng_range(&r, 0, (long)rows - 1);
    for (size_t j = 0; j < cols; j++)
        c.got[band * cols + j] = 0.0f;
    svg = draw(&c, "zero-band", "C with a zero row");
    CHECK(cell_rects(svg, "z") == 1 && cell_rects(svg, "w") == 0 && cell_rects(svg, "r") == 0,
          "%zu x %zu, row %zu zero: cells z %d w %d\n%s", rows, cols, band, cell_rects(svg, "z"),
          cell_rects(svg, "w"), text(svg));
    free(svg);
    c_close(&c);
}

/* 100 x 100, every other element wrong from a random row on: the whole's 2 x 2 cells are all
 * wrong there (each holds two right ones, which no cell shows), so the zoom beside it, one cell
 * per element around the first wrong one, must show the alternation */
static void test_zoom(void **state) {
    (void)state;
    struct rng r = rng_for("zoom");
    struct c c;
    c_open(&c, 100, 100);
    size_t from = (size_t)rng_range(&r, 0, 99);
    for (size_t i = from; i < 100; i++)
        for (size_t j = (i + 1) % 2; j < 100; j += 2)
            c.got[i * 100 + j] = 2.0f;
    char *svg = draw(&c, "zoom-100", "01_per_element: C at N = 100");
    /* the zoom's rows: the first wrong one's, rounded down to 16, at most 36 (64 from the end) */
    size_t zr0 = from / 16 * 16 > 36 ? 36 : from / 16 * 16, wrong_rows = zr0 + 64 - from;
    char want[160];
    snprintf(want, sizeof want,
             ">framed, zoomed: rows %zu-%zu, columns 0-63, one cell per element<", zr0, zr0 + 63);
    CHECK(strstr(svg, want), "rows %zu on wrong: no\n%s\nin\n%s", from, want, text(svg));
    CHECK(strstr(group(svg, "zoom"), "<rect class=\"r\" width=\"384\" height=\"384\"/>"),
          "the zoom is not 64 cells of 6 pixels:\n%s", group(svg, "zoom"));
    snprintf(want, sizeof want, "<rect class=\"w\" x=\"%zu\" y=\"%zu\" width=\"6\" height=\"6\"/>",
             (from + 1) % 2 * 6, (from - zr0) * 6);
    CHECK(strstr(group(svg, "zoom"), want), "no\n%s\nin\n%s", want, group(svg, "zoom"));
    CHECK(group_rects(svg, "zoom", "w") == (int)(wrong_rows * 32) &&
              group_rects(svg, "zoom", "r") == 0,
          "zoom: %d wrong cells, not %zu\n%s", group_rects(svg, "zoom", "w"), wrong_rows * 32,
          text(svg));
    /* the whole: the band of 2 x 2 cells, a row of them one rectangle */
    size_t band = 50 - from / 2;
    CHECK(cell_rects(svg, "w") == (int)band && strstr(svg, "a cell is 2 x 2 of them"),
          "whole: %d wrong rows of cells, not %zu\n%s", cell_rects(svg, "w"), band, text(svg));
    snprintf(want, sizeof want, ">right: %zu<", 10000 - (100 - from) * 50);
    CHECK(strstr(svg, want), "no %s in\n%s", want, text(svg));
    snprintf(want, sizeof want,
             "<rect id=\"zoom-frame\" x=\"0\" y=\"%zu\" width=\"224\" height=\"224\"", zr0 / 2 * 7);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    size_t width, height;
    canvas(svg, &width, &height);
    CHECK(width >= 16 + 350 + 24 + 384 + 16, "canvas %zu wide: the zoom does not fit", width);
    free(svg);
    c_close(&c);
}

/* up to 64 a side (odd sizes among them) no zoom; 65 and up, one */
static void test_no_zoom(void **state) {
    (void)state;
    struct rng r = rng_for("no zoom");
    size_t sizes[][2] = {{16, 16}, {64, 64}, {1, 64}, {0, 0}, {65, 3}};
    sizes[3][0] = (size_t)rng_range(&r, 1, 64);
    sizes[3][1] = (size_t)rng_range(&r, 1, 64);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        struct c c;
        c_open(&c, sizes[s][0], sizes[s][1]);
        c.got[(size_t)rng_range(&r, 0, (long)(sizes[s][0] * sizes[s][1]) - 1)] = 5.0f;
        char *svg = draw(&c, "sizes", "C");
        int zoom = sizes[s][0] > 64 || sizes[s][1] > 64;
        CHECK(!strstr(svg, "<g id=\"zoom\"") == !zoom && !strstr(svg, "zoom-frame") == !zoom &&
                  !strstr(svg, "zoomed") == !zoom,
              "%zu x %zu: zoom %s\n%s", sizes[s][0], sizes[s][1], zoom ? "missing" : "drawn",
              text(svg));
        free(svg);
        c_close(&c);
    }
}

/* 1 x 1 (a 1 x 1 x 1 case) and any C up to 16 a side: cells of C_PICTURE_CELL pixels, not
 * stretched over the grid's area; the canvas small but as wide as the legend */
static void test_tiny(void **state) {
    (void)state;
    struct rng r = rng_for("tiny");
    for (int t = 0; t < 8; t++) {
        size_t rows = t ? (size_t)rng_range(&r, 1, 16) : 1,
               cols = t ? (size_t)rng_range(&r, 1, 16) : 1;
        struct c c;
        c_open(&c, rows, cols);
        c.got[rows * cols - 1] = 7.0f;
        char *svg = draw(&c, t ? "tiny" : "tiny-1x1", "05_rect: C at M x N x K = 1 x 1 x 1");
        char want[160];
        snprintf(want, sizeof want, "<rect class=\"r\" width=\"%zu\" height=\"%zu\"/>",
                 cols * C_PICTURE_CELL, rows * C_PICTURE_CELL);
        CHECK(strstr(svg, want), "%zu x %zu: no\n%s\nin\n%s", rows, cols, want, text(svg));
        snprintf(want, sizeof want,
                 "<rect class=\"w\" x=\"%zu\" y=\"%zu\" width=\"%d\" height=\"%d\"/>",
                 (cols - 1) * C_PICTURE_CELL, (rows - 1) * C_PICTURE_CELL, C_PICTURE_CELL,
                 C_PICTURE_CELL);
        CHECK(strstr(svg, want), "%zu x %zu: no\n%s\nin\n%s", rows, cols, want, text(svg));
        size_t width, height;
        canvas(svg, &width, &height);
        /* the legend's longest line, 41 characters at 13 pixels, fits; the grid adds no more */
        CHECK(width >= 300 && width <= 480 && height <= 240 + rows * C_PICTURE_CELL,
              "%zu x %zu: canvas %zu x %zu", rows, cols, width, height);
        free(svg);
        c_close(&c);
    }
}

/* a file that cannot be written is refused, not a crash */
static void test_unwritable(void **state) {
    (void)state;
    struct c c;
    c_open(&c, 2, 2);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/no-such-folder/x.svg", g_tmp);
    CHECK(c_picture_write(path, "x", c.got, c.expected, c.tol, 2, 2) == -1, "wrote %s", path);
    c_close(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind),    cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_zeros),   cmocka_unit_test(test_zoom),
        cmocka_unit_test(test_no_zoom), cmocka_unit_test(test_tiny),
        cmocka_unit_test(test_blocks),  cmocka_unit_test(test_unwritable),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
