/* memcheck.c - the memory check: the student's kernel under oclgrind (bounds, races,
 * uninitialised values, barrier divergence), its findings summarised for the student. */
#include "grade/internal.h"
#include "exercise/protocol.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* oclgrind's log: entries separated by blank lines, each opening with what was found, e.g.
 * "Invalid write of size 4 at global memory address ..." or "Read-write data race at local ...".
 * Summarise it as counts by kind, a hint, and the first two entries in full (with source line). */
static char *summarise_oclgrind(const char *log) {
    static const char out_of_bounds[] =
        "an index goes past the end of a buffer (check the loop bounds and i*N + j)";
    static const struct {
        const char *needle, *what, *hint;
    } kinds[] = {
        {"Invalid read", "out-of-bounds reads", out_of_bounds},
        {"Invalid write", "out-of-bounds writes", out_of_bounds},
        {"data race at local", "data races in local memory",
         "work-items of a group read and write the same local memory with no "
         "barrier(CLK_LOCAL_MEM_FENCE) between: fill, barrier, use, barrier before refilling"},
        {"data race at global", "data races in global memory",
         "two work-items write the same element of C, or one reads what another writes"},
        {"ninitiali", "uses of uninitialised values",
         "a value is read before anything was written to it: a private variable without a "
         "start value (float tmp; instead of float tmp = 0.0f;), or local memory read before "
         "the work-items that fill it reached a barrier(CLK_LOCAL_MEM_FENCE)"},
        {"divergence", "barrier divergences",
         "every work-item of a group must reach the same barriers: a barrier inside an if, or "
         "after a return that only some work-items take, breaks the group"},
        {"rror detected", "OpenCL API errors", "a call the harness made was refused"},
    };
    size_t counts[sizeof kinds / sizeof kinds[0]] = {0}, other = 0;
    size_t size = strlen(log) + 2000;
    char *text = malloc(size);
    if (!text)
        return NULL;
    /* count the entries: a line at the start of the log or after a blank line */
    for (const char *p = log; *p;) {
        while (*p == '\n')
            p++;
        if (!*p)
            break;
        int known = 0;
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            const char *hit = strstr(p, kinds[k].needle);
            if (hit && hit < p + len) {
                counts[k]++;
                known = 1;
                break;
            }
        }
        other += !known && strncmp(p, "Oclgrind:", 9) != 0;
        const char *blank = strstr(p, "\n\n");
        p = blank ? blank + 2 : p + strlen(p);
    }
    int used = snprintf(text, size, "oclgrind found:");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (counts[k])
            used +=
                snprintf(text + used, size - (size_t)used, " %zu %s;", counts[k], kinds[k].what);
    if (other)
        used += snprintf(text + used, size - (size_t)used, " %zu other messages;", other);
    const char *last_hint = NULL;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (counts[k] && kinds[k].hint != last_hint) {
            used += snprintf(text + used, size - (size_t)used, "\nhint: %s", kinds[k].hint);
            last_hint = kinds[k].hint;
        }
    /* the first two entries in full */
    const char *start = log;
    while (*start == '\n')
        start++;
    const char *cut = start;
    for (int e = 0; e < 2 && cut; e++) {
        cut = strstr(cut, "\n\n");
        if (cut)
            cut += 2;
    }
    size_t keep = cut ? (size_t)(cut - start) : strlen(start);
    snprintf(text + used, size - (size_t)used, "\nthe first findings:\n%.*s", (int)keep, start);
    return text;
}

void grade_test_memcheck(const struct grader_config *cfg, const struct grader_exercise *ex,
                         const char *kernel, const char *dead, struct grader_exercise_result *r) {
    const char *name = "memory check (oclgrind): bounds, races, uninitialised values, barriers";
    int pts = ex->points.memcheck;
    char oclgrind[PATH_MAX];
    if (dead[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not run: %s", dead);
        return;
    }
    if (grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not run: oclgrind is not installed (apt-get install oclgrind)");
        return;
    }
    char log[PATH_MAX + 32];
    struct harness_run h;
    grade_run_harness(cfg, ex, kernel, ex->memcheck_n, "memcheck", 1, &h);
    r->too_busy |= h.run.how == RUN_TOO_BUSY;
    snprintf(log, sizeof log, "%s/oclgrind.txt", h.dir);
    char *found = grader_read_capped(log, 1 << 20), what[300]; /* whole, to count findings */
    grader_describe_run(&h.run, what, sizeof what);
    int clean = strspn(found, " \t\n") == strlen(found); /* the log holds only findings */
    if (h.run.how == RUN_EXITED && h.run.code == HARNESS_OK && clean) {
        grader_add_test(r, name, pts, pts, "clean at N = %d", ex->memcheck_n);
    } else if (!clean) {
        char *summary = summarise_oclgrind(found);
        grader_add_test(r, name, 0, pts, "at N = %d %s", ex->memcheck_n, summary ? summary : found);
        free(summary);
    } else {
        grader_add_test(r, name, 0, pts, "the run under oclgrind at N = %d %s\n%s", ex->memcheck_n,
                        what, h.log);
    }
    free(found);
    grade_harness_done(&h);
}
