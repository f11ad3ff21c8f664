/* builds.c - which builds of a student's kernel the runs under oclgrind judge (internal.h): the
 * build that is graded, always; the build the timed comparison runs, where a tuning file gives
 * it other values; and the row's smaller oclgrind values, where it has them.
 *
 * Why each. `#if` on a tuning value cannot be refused (the reference itself uses `#if TSK % 4`),
 * so the text oclgrind checks at one set of values says nothing of the text built at another: a
 * race or a read out of bounds behind `#if TSM != 32` would only show at the values that are
 * graded. So the graded values are checked, at the smallest size they allow from the drawn one
 * up (09 and 10: N = 128, a single 128 x 128 tile; about 4 s and 0.5 GB under oclgrind here),
 * and the values the device's tuning file times the kernel with. The smaller values stay checked
 * as well: in the same few seconds they put many work-groups and every kind of tile edge under
 * oclgrind at the drawn size, and a check can only take the point away, never give it.
 *
 * A row without tuning values (01 to 05) runs its one build a second time at a smaller drawn
 * size (grader_memcheck_small, a quarter to half of memcheck_n), which the memory check runs
 * first (it runs them from the smallest up): a read or a write out of bounds written for the sizes
 * outside the window around memcheck_n shows there, and so small a run costs oclgrind a quarter of
 * a second. Where the row counts its technique (03 to 05) it runs a third time at the technique's
 * draw above the window (grader_technique_large): every size the technique is counted at is checked
 * for bounds and races too, and an access out of bounds only above the window shows.
 * A row with tuning values already runs two sizes, the graded values' and the smaller values',
 * each rounded to its tiles; a third at one tile cost 07 and 08 1.3 s a grading. (The technique
 * is counted at the window's draw and above it, never below: its bounds per multiply-add were set
 * for sizes there, and a small N moves a right kernel's ratios past them.)
 */
#include "grade/internal.h"

#include <string.h>

/* The smallest size from `from` up that the build's values allow (each of M, N, K for a
 * rectangular row), or from itself where none does within reach. */
static int smallest_valid(const struct grader_exercise *row, int from) {
    for (int n = from; n > 0 && n <= from + 4096; n++)
        if (grader_size_valid_at(row, 1, n))
            return n;
    return from;
}

/* A build of ex at values (NULL: the row's own variant, rows without tuning values) from text. */
static void add_build(struct grade_builds *out, const struct grader_exercise *ex,
                      const struct clu_define *values, const char *text, const char *which) {
    struct grade_build *b = &out->b[out->count++];
    b->row = *ex;
    b->which = which;
    snprintf(b->kernel, sizeof b->kernel, "%s", text);
    b->values[0] = '\0';
    if (values) {
        memcpy(b->row.check_tuning, values, sizeof b->row.check_tuning);
        struct grader_variant v = grader_variant_of(&b->row, 0, 1);
        size_t used = 0;
        for (int t = 0; v.tuning && t < CLU_MAX_DEFINES && v.tuning[t].name; t++)
            if (used < sizeof b->values)
                used += (size_t)snprintf(b->values + used, sizeof b->values - used, "%s%s=%d",
                                         t ? " " : "", v.tuning[t].name, v.tuning[t].value);
    }
    struct grader_size s = grader_memcheck_at(ex);
    s.n = smallest_valid(&b->row, s.n);
    if (ex->rectangular) {
        s.m = smallest_valid(&b->row, s.m);
        s.k = smallest_valid(&b->row, s.k);
    } else {
        s.m = s.k = s.n;
    }
    b->row.memcheck_shape = s;
    b->row.memcheck_n = s.n;
}

/* The one build again at another drawn size n (0: none), where one is valid apart from the
 * first's. */
static void add_build_at(struct grade_builds *out, const struct grader_exercise *ex, int n,
                         const char *text) {
    if (n <= 0)
        return;
    struct grader_exercise at = *ex;
    at.memcheck_shape = grader_square(n);
    at.memcheck_n = n;
    add_build(out, &at, NULL, text, "");
    if (out->b[out->count - 1].row.memcheck_n == out->b[0].row.memcheck_n)
        out->count--; /* (no other size valid: the first run covers it) */
}

void grade_oclgrind_builds(const struct grader_exercise *ex, const char *canonical,
                           const char *checked, const struct grade_timed *timed,
                           struct grade_builds *out) {
    memset(out, 0, sizeof *out);
    if (!ex->tuning[0].name) { /* one value (BLOCK): the graded build is the checked one */
        add_build(out, ex, NULL, canonical, "");
        add_build_at(out, ex, ex->technique_large, canonical);
        add_build_at(out, ex, ex->memcheck_small, canonical);
        return;
    }
    add_build(out, ex, ex->tuning, canonical, "the graded values");
    if (timed && strcmp(timed->kernel, canonical) != 0)
        add_build(out, ex, timed->mine.tuning, timed->kernel, "the tuning file's timed values");
    if (ex->check_tuning[0].name)
        add_build(out, ex, ex->check_tuning, checked, "the smaller oclgrind values");
}

/* The work of a build's run: M x N x K at its size. */
static double build_volume(const struct grade_build *b) {
    struct grader_size s = grader_memcheck_at(&b->row);
    return (double)s.m * (double)s.n * (double)s.k;
}

void grade_builds_by_size(const struct grade_builds *b, int order[GRADE_BUILDS]) {
    for (int i = 0; i < b->count; i++) /* (later builds first where two are as large) */
        order[i] = b->count - 1 - i;
    for (int i = 1; i < b->count; i++)
        for (int j = i; j > 0 && build_volume(&b->b[order[j]]) < build_volume(&b->b[order[j - 1]]);
             j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
}

void grade_build_text(const struct grade_build *b, char *buf, size_t size) {
    char at[64];
    grader_size_text(&b->row, grader_memcheck_at(&b->row), at, sizeof at);
    if (b->values[0])
        snprintf(buf, size, "%s (%s %s)", at, b->which, b->values);
    else
        snprintf(buf, size, "%s", at);
}
