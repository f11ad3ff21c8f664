/* builds.c - which builds of a student's kernel the runs under oclgrind judge (internal.h): the
 * build that is graded, always; the build the timed comparison runs, where a tuning file gives
 * it other values; and the row's smaller oclgrind values, where it has them.
 *
 * Why each. `#if` on a tuning value cannot be refused (the reference itself uses `#if TSK % 4`),
 * so the text oclgrind checks at one set of values says nothing of the text built at another: a
 * race or a read out of bounds behind `#if TSM != 32` would only show at the values that are
 * graded. So the graded values are checked, at the smallest size they allow from each drawn one
 * up (09 and 10: N = 128, a single 128 x 128 tile; about 4 to 9 s and 0.5 GB under oclgrind
 * here), and the values the device's tuning file times the kernel with. The smaller values stay
 * checked as well: in the same few seconds they put many work-groups and every kind of tile edge
 * under oclgrind at the drawn sizes, and a check can only take the point away, never give it.
 * Every build runs at each of the grading's draws (draws.c); the same build at the same size
 * runs once.
 */
#include "grade/internal.h"

#include <string.h>

/* A build of ex at values (NULL: the row's own variant, rows without tuning values) from text,
 * at the draw `at` rounded up to a size the values allow; none where the same values and text
 * are already there at that size (09's graded tile takes both draws to N = 128). */
static void add_build(struct grade_builds *out, const struct grader_exercise *ex,
                      const struct clu_define *values, const char *text, const char *which,
                      int graded, struct grader_size at) {
    struct grade_build *b = &out->b[out->count];
    b->row = *ex;
    b->which = which;
    b->graded = graded;
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
    struct grader_size s = grader_check_valid(&b->row, 1, at);
    b->row.memcheck_shape = s;
    b->row.memcheck_n = s.n;
    for (int i = 0; i < out->count; i++) {
        const struct grade_build *o = &out->b[i];
        struct grader_size z = o->row.memcheck_shape;
        if (z.m == s.m && z.n == s.n && z.k == s.k && !strcmp(o->kernel, b->kernel) &&
            !strcmp(o->values, b->values))
            return;
    }
    out->count++;
}

void grade_oclgrind_builds(const struct grader_exercise *ex, const char *canonical,
                           const char *checked, const struct grade_timed *timed,
                           struct grade_builds *out) {
    memset(out, 0, sizeof *out);
    /* the draws of this grading (a row nobody drew for: its one size) */
    struct grader_size draws[GRADER_CHECK_DRAWS];
    int count = 0;
    for (int d = 0; d < GRADER_CHECK_DRAWS && ex->check_draws[d].n > 0; d++)
        draws[count++] = ex->check_draws[d];
    if (count == 0)
        draws[count++] = grader_memcheck_at(ex);
    /* each kind of build at every draw, the graded values at the first draw first */
    if (!ex->tuning[0].name) { /* one value (BLOCK): the graded build is the checked one */
        for (int d = 0; d < count; d++)
            add_build(out, ex, NULL, canonical, "", 1, draws[d]);
        return;
    }
    for (int d = 0; d < count; d++)
        add_build(out, ex, ex->tuning, canonical, "the graded values", 1, draws[d]);
    for (int d = 0; timed && strcmp(timed->kernel, canonical) != 0 && d < count; d++)
        add_build(out, ex, timed->mine.tuning, timed->kernel, "the tuning file's timed values", 0,
                  draws[d]);
    for (int d = 0; ex->check_tuning[0].name && d < count; d++)
        add_build(out, ex, ex->check_tuning, checked, "the smaller oclgrind values", 0, draws[d]);
}

void grade_build_text(const struct grade_build *b, char *buf, size_t size) {
    char at[64];
    grader_size_text(&b->row, grader_memcheck_at(&b->row), at, sizeof at);
    if (b->values[0])
        snprintf(buf, size, "%s (%s %s)", at, b->which, b->values);
    else
        snprintf(buf, size, "%s", at);
}
