/* anchor.c - the capstone's anchor against the reference: the vendors' SGEMMs and the reference
 * timed together with no student's code running (grade_vendors_alone), once per device, N,
 * library and reference, and kept in the cache folder (a batch shares one). Every student of a
 * class is then held against the same figure, and a busy machine moves no student's maximum: the
 * student is compared with the reference alone, in the rounds beside it (score.h).
 *
 * A machine busy throughout, where no launch of the anchor is quiet, gives no figure: that
 * grading is not published (grade again), never scored on another maximum. The file is written
 * whole and renamed into place; `rm build/grade-cache/anchor-*` times it again (after a new
 * driver, say).
 */
#define _GNU_SOURCE /* mkstemp, fdopen */
#include "grade/internal.h"
#include "grade/command.h"
#include "grade/cache_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ANCHOR_FORMAT 1 /* the file's first word, changed with what it holds */

/* The file of rx's reference at rx->perf_n for this device and library: its name holds a hash of
 * everything the figure depends on ("" where the reference cannot be read). */
static void anchor_path(const struct grader_config *cfg, const struct grader_exercise *rx,
                        const char *reference, const char *library, char *path, size_t size) {
    grade_cache_path(cfg, rx, reference, "anchor", library, ANCHOR_FORMAT, path, size);
}

/* The figures as kept: a line for the anchor, one per vendor. 0, or -1 (no file, another
 * format, a figure missing). */
static int anchor_read(const char *path, struct grade_anchor *a) {
    FILE *f = path[0] ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    int format = 0,
        got = fscanf(f, "anchor %d %lf %lf %d %lld %d %d\n", &format, &a->score.ref,
                     &a->score.anchor, &a->score.quiet, &a->when, &a->rounds, &a->again) == 7 &&
              format == ANCHOR_FORMAT;
    for (int id = 0; got && id < CLU_VENDOR_COUNT; id++) {
        struct clu_stats *t = &a->t[id];
        int which = -1;
        got = fscanf(f, "vendor %d %d %d %d %lf %lf %lf ", &which, &a->timed[id],
                     &a->every_starved[id], &t->count, &t->min, &t->median, &t->max) == 7 &&
              which == id && fgets(a->why[id], sizeof a->why[id], f) != NULL;
        a->why[id][strcspn(a->why[id], "\n")] = '\0';
        if (!strcmp(a->why[id], "-"))
            a->why[id][0] = '\0';
    }
    fclose(f);
    return got && a->score.ref > 0.0 && a->score.anchor > 0.0 && a->score.quiet > 0 ? 0 : -1;
}

static void anchor_write(const char *path, const struct grade_anchor *a) {
    char text[1024 + CLU_VENDOR_COUNT * 400];
    size_t used = (size_t)snprintf(text, sizeof text, "anchor %d %.17g %.17g %d %lld %d %d\n",
                                   ANCHOR_FORMAT, a->score.ref, a->score.anchor, a->score.quiet,
                                   a->when, a->rounds, a->again);
    for (int id = 0; id < CLU_VENDOR_COUNT && used < sizeof text; id++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "vendor %d %d %d %d %.17g %.17g %.17g %s\n", id, a->timed[id],
                                 a->every_starved[id], a->t[id].count, a->t[id].min,
                                 a->t[id].median, a->t[id].max, a->why[id][0] ? a->why[id] : "-");
    if (used < sizeof text) /* (a line cut short is never kept) */
        grade_cache_write(path, text);
}

void grade_anchor_here_of(const struct grader_config *cfg, const struct grader_exercise *ex,
                          const char *reference, struct grade_anchor_here *here) {
    enum clu_vendor_id id = grader_vendor_anchor(cfg);
    static struct grader_vendor_times alone; /* (large) */
    grade_vendors_alone(cfg, ex, reference, 1, &alone);
    *here = (struct grade_anchor_here){NULL, "", ""};
    snprintf(here->library, sizeof here->library, "%s", alone.library[id]);
    if (!alone.timed[id]) {
        snprintf(here->why, sizeof here->why, "%s", alone.why[id]);
        here->off = here->why;
    }
}

int grade_anchor_get(const struct grader_config *cfg, const struct grader_exercise *rx,
                     const char *reference, const struct grade_anchor_here *here,
                     struct grade_anchor *a) {
    enum clu_vendor_id anchor = grader_vendor_anchor(cfg);
    char path[PATH_MAX + 160];
    memset(a, 0, sizeof *a);
    anchor_path(cfg, rx, reference, here->library, path, sizeof path);
    if (anchor_read(path, a) == 0) {
        a->kept = 1;
        return 0;
    }
    memset(a, 0, sizeof *a);
    static struct grader_vendor_times v; /* (large: 3 vendors' slots) */
    grade_vendors_alone(cfg, rx, reference, TIMED_ROUNDS, &v);
    a->rounds = v.rounds, a->again = v.again, a->when = (long long)time(NULL);
    double flops = grader_flops(rx, grader_square(rx->perf_n));
    for (int id = 0; id < CLU_VENDOR_COUNT; id++) {
        a->timed[id] = v.timed[id];
        snprintf(a->why[id], sizeof a->why[id], "%s", v.why[id]);
        if (!v.timed[id])
            continue;
        struct grade_score_vendor f;
        grade_score_vendor(&v, id, 1.0, flops, &f);
        a->t[id] = f.t, a->every_starved[id] = f.every_starved;
    }
    if (!v.timed[anchor])
        return -1;
    if (grade_score_anchor_of(&v, anchor, &a->score) != 0) {
        snprintf(a->why[anchor], sizeof a->why[anchor],
                 "a busy machine starved every one of %s (%d launches of it, %d of the reference): "
                 "other work took over %.0f%% of the CPU time it wanted",
                 a->score.quiet ? "the reference's launches" : "its launches", v.rounds + v.again,
                 v.rounds, 100 * GRADE_BUSY_LOST);
        return -1;
    }
    if (path[0]) {
        grader_make_dirs(cfg->cache);
        anchor_write(path, a);
    }
    return 0;
}

int grade_anchor_command(const struct grader_config *cfg, const struct grader_exercise *rows,
                         const int *chosen, int count) {
    enum clu_vendor_id id = grader_vendor_anchor(cfg);
    const char *who = clu_vendor_name(id);
    int status = EXIT_FULL;
    for (int c = 0; c < count; c++) {
        const struct grader_exercise *ex = &rows[chosen[c]];
        if (ex->vendor_ratios[0] <= 0 || !cfg->perf)
            continue;
        char reference[PATH_MAX + 64];
        snprintf(reference, sizeof reference, "%s/solutions/%s/kernel.cl", cfg->root, ex->id);
        struct grade_anchor_here here;
        grade_anchor_here_of(cfg, ex, reference, &here);
        if (here.off) {
            printf("%s: %s is not timed here (%s): its points leave every maximum\n", ex->id, who,
                   here.off);
            continue;
        }
        /* the reference built as a comparison builds it (a tuning file's reference line) */
        static struct grade_timed t; /* (large) */
        grade_timed_values(cfg, ex, reference, reference, &t);
        struct grader_exercise rx = t.reference;
        for (;;) {
            static struct grade_anchor a; /* (large) */
            if (grade_anchor_get(cfg, &rx, reference, &here, &a) != 0) {
                printf("%s at N = %d: %s not timed: %s (again on a quieter machine)\n", ex->id,
                       rx.perf_n, who, a.why[id]);
                status = EXIT_BUSY;
                break;
            }
            printf("%s at N = %d: the reference's fastest launch %.3f ms, %s's %.3f ms (%s), %s\n",
                   ex->id, rx.perf_n, a.score.ref * 1e3, who, a.score.anchor * 1e3, here.library,
                   a.kept ? "kept from an earlier timing" : "timed now and kept");
            int next = grade_perf_next_n(&rx, &rx, a.score.ref);
            if (next == 0)
                break;
            rx.perf_n = next;
        }
    }
    return status;
}
