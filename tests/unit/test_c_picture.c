/* test_c_picture.c - unit tests (cmocka) of the picture of a wrong C (grade/c_picture.c): a known
 * pattern of right, wrong, never written and computed-NaN elements must come out as exactly its
 * rectangles and the legend's counts; a C larger than 64 a side as blocks of elements, a block
 * with one fault drawn as that fault; the title escaped and the file well-formed (xmllint when
 * installed). The pattern's place is drawn from the run's seed (TEST_C_PICTURE_SEED repeats it).
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
    static char buf[1 << 16];
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
    char *copy = strdup(buf);
    if (!copy) /* (never NULL for the checks that print it) */
        abort();
    return copy;
}

/* The number of <rect> of class kind in the cells' group. */
static int cell_rects(const char *svg, const char *kind) {
    const char *p = strstr(svg, "<g id=\"cells\""), *end = strstr(svg, "<g id=\"legend\"");
    char tag[32];
    snprintf(tag, sizeof tag, "<rect class=\"%s\" x=", kind);
    int count = 0;
    for (p = p ? strstr(p, tag) : NULL; p && p < end; p = strstr(p + 1, tag))
        count++;
    return count;
}

static void test_pattern(void **state) {
    (void)state;
    struct rng r = rng_for("pattern");
    struct c c;
    c_open(&c, 8, 6); /* cs = 384 / 8 = 48 pixels a cell */
    size_t i = (size_t)rng_range(&r, 0, 7), j = (size_t)rng_range(&r, 0, 2);
    c.got[i * 6 + j] = 2.0f;     /* wrong ... */
    c.got[i * 6 + j + 1] = 0.0f; /* ... and its neighbour: one run of two */
    c.got[i * 6 + j + 2] = NAN;  /* a NaN the kernel computed */
    clu_fill_unwritten(&c.got[((i + 1) % 8) * 6 + 5], 1);
    c.got[((i + 3) % 8) * 6] = INFINITY; /* an infinity is wrong */
    char *svg = draw(&c, "pattern", "01: C at N = 8 <&>");
    char want[160];
    snprintf(want, sizeof want,
             "<rect class=\"w\" x=\"%zu\" y=\"%zu\" width=\"96\" height=\"48\"/>\n"
             "<rect class=\"n\" x=\"%zu\" y=\"%zu\" width=\"48\" height=\"48\"/>",
             j * 48, i * 48, (j + 2) * 48, i * 48);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"u\" x=\"240\" y=\"%zu\" width=\"48\"",
             (i + 1) % 8 * 48);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    snprintf(want, sizeof want, "<rect class=\"w\" x=\"0\" y=\"%zu\" width=\"48\"",
             (i + 3) % 8 * 48);
    CHECK(strstr(svg, want), "no\n%s\nin\n%s", want, text(svg));
    CHECK(cell_rects(svg, "w") == 2 && cell_rects(svg, "n") == 1 && cell_rects(svg, "u") == 1 &&
              cell_rects(svg, "r") == 0,
          "cells: w %d n %d u %d r %d\n%s", cell_rects(svg, "w"), cell_rects(svg, "n"),
          cell_rects(svg, "u"), cell_rects(svg, "r"), text(svg));
    CHECK(strstr(svg, ">right: 43<") && strstr(svg, ">wrong: 3<") &&
              strstr(svg, ">never written (still the grader's NaN): 1<") &&
              strstr(svg, ">NaN computed by the kernel: 1<"),
          "legend's counts:\n%s", text(svg));
    CHECK(strstr(svg, "N = 8 &lt;&amp;&gt;</text>") && !strstr(svg, "<&>"), "title:\n%s",
          text(svg));
    CHECK(strstr(svg, "8 x 6 elements</text>"), "one element a cell:\n%s", text(svg));
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
        cmocka_unit_test(test_pattern),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_unwritable),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
