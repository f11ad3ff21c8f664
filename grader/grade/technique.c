/* technique.c - the step's technique, from the memory traffic oclgrind counts in a kernel: the
 * student's counts against the step's bounds, and beside the reference's for the report. */
#define _GNU_SOURCE /* mkstemp, fdopen */
#include "grade/internal.h"
#include "grade/cache_file.h"
#include "exercise/traffic.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int grader_tiles_plugin(const char *self, char *path, size_t size) {
    const char *slash = strrchr(self, '/');
    int n = snprintf(path, size, "%.*s/%s", slash ? (int)(slash - self) : 1, slash ? self : ".",
                     GRADER_TILES_PLUGIN);
    return n > 0 && (size_t)n < size && access(path, R_OK) == 0 ? 0 : -1;
}

/* The tiles plugin beside the grader's executable, copied into the jail's folder (where the
 * jailed run can read it, whatever hides the build folder) as `copy`: 0, or -1 with t->why
 * (main.c refuses to grade without it; this is for a plugin removed since). */
static int tiles_plugin_copy(const char *self, const char *dir, char *copy, size_t size,
                             struct grader_traffic *t) {
    char built[PATH_MAX];
    snprintf(copy, size, "%s/%s", dir, GRADER_TILES_PLUGIN);
    if (grader_tiles_plugin(self, built, sizeof built) == 0 &&
        grader_copy_trusted(built, copy) == 0)
        return 0;
    snprintf(t->why, sizeof t->why,
             "the grader's oclgrind plugin %.120s is missing (make builds it)", built);
    return -1;
}

/* Memory traffic of a kernel at memcheck_n, counted under oclgrind in the work folder `tag`
 * (with the tiles plugin where the row bounds the barriers per tile): 0, or -1 with t->why. */
int grade_count_traffic(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const char *kernel, const char *tag, struct grader_traffic *t) {
    (void)tag;
    struct grader_jail j;
    memset(t, 0, sizeof *t);
    if (grader_jail_open(cfg->self, kernel, &j) != 0) {
        snprintf(t->why, sizeof t->why, "the grader cannot prepare its folder in /tmp");
        return -1;
    }
    char plugin[PATH_MAX + 32];
    int tiles = ex->technique.max_barriers_per_tile > 0;
    if (tiles && tiles_plugin_copy(cfg->self, j.dir, plugin, sizeof plugin, t) != 0) {
        grader_jail_dir_remove(j.dir);
        return -1;
    }
    struct grader_argv prefix = GRADER_ARGV_INIT;
    grader_sandbox_push(&cfg->jail, &cfg->sandbox, j.dir, &prefix);
    grader_argv_push(&prefix, "--"); /* bench_traffic stops at NULL: a placeholder, dropped below */
    free(prefix.argv[--prefix.count]);
    prefix.argv[prefix.count] = NULL;
    int status = grader_traffic(j.self, ex, j.kernel, ex->block, 1, grader_memcheck_at(ex), j.dir,
                                tiles ? plugin : NULL, t, (const char *const *)prefix.argv,
                                &cfg->jail, j.dir);
    grader_argv_clear(&prefix);
    grader_jail_dir_remove(j.dir);
    return status;
}

/* The reference kernel's traffic: the same for every student, so counted once per cache folder
 * (a batch shares one) and kept in a file written whole and renamed into place. */
static int reference_traffic(const struct grader_config *cfg, const struct grader_exercise *ex,
                             const char *reference, struct grader_traffic *t) {
    char path[PATH_MAX + 128] = "";
    uint64_t h = grader_file_hash(reference);
    if (cfg->cache && h) {
        grader_make_dirs(cfg->cache);
        struct grader_size z = grader_memcheck_at(ex);
        /* the values counted at name the file too ("-DTSM=128 -DTSN=128": no '/' in them) */
        char values[200];
        struct grader_variant v = grader_variant_of(ex, 0, 1);
        grader_build_options(&v, values, sizeof values);
        for (char *c = values; *c; c++)
            *c = *c == ' ' ? '_' : *c;
        snprintf(path, sizeof path, "%s/traffic-%s-%dx%dx%d-%s-%016llx.txt", cfg->cache, ex->id,
                 z.m, z.n, z.k, values, (unsigned long long)h);
        FILE *f = fopen(path, "r");
        int got = f && fscanf(f, "%lf %lf %lf %lf", &t->global_loads, &t->global_stores,
                              &t->local_loads, &t->local_stores) == 4;
        if (f)
            fclose(f);
        if (got) {
            t->n = ex->memcheck_n;
            return 0;
        }
    }
    if (grade_count_traffic(cfg, ex, reference, "traffic-reference", t) != 0)
        return -1;
    if (path[0]) {
        char text[160];
        snprintf(text, sizeof text, "%.17g %.17g %.17g %.17g\n", t->global_loads, t->global_stores,
                 t->local_loads, t->local_stores);
        grade_cache_write(path, text);
    }
    return 0;
}

/* The student's memory traffic beside the reference's (make bench's columns), for the report:
 * the measured form of "for every memory access, as many flops as possible". "" when either
 * could not be counted (the memory check says why). */
void grade_traffic_rows(const struct grader_config *cfg, const struct grader_exercise *ex,
                        const struct grader_traffic *mine, const char *reference, char *out,
                        size_t size) {
    struct grader_traffic ref;
    out[0] = '\0';
    if (!mine || reference_traffic(cfg, ex, reference, &ref) != 0)
        return;
    const struct grader_traffic *rows[2] = {mine, &ref};
    const char *who[2] = {"yours     ", "reference "};
    char at[64];
    grader_size_text(ex, grader_memcheck_at(ex), at, sizeof at);
    int used = snprintf(out, size, "\nmemory traffic per multiply-add (oclgrind, %s):", at);
    for (int w = 0; w < 2 && used > 0 && (size_t)used < size; w++)
        used += snprintf(out + used, size - (size_t)used,
                         "\n%s global %.3f loads, %.3f stores; local %.3f loads, %.3f stores",
                         who[w], rows[w]->global_loads, rows[w]->global_stores,
                         rows[w]->local_loads, rows[w]->local_stores);
}

/* What the missed bounds say, one line each: the figure measured, the bound, and (the row's
 * words) which operand is in the wrong place and what to do. A local load that is missing is
 * about one global load more, so when the local bound is missed the global figure is judged
 * only on what that shortfall leaves: a column of B read from global memory in step 04 is one
 * miss (B), not two. */
static void missed_bounds(const struct grader_technique *t, const struct grader_traffic *got,
                          double barriers_per_tile, char *out, size_t size) {
    double shortfall = 0.0;
    int used = 0;
    out[0] = '\0';
    if (t->min_local_loads > 0 && got->local_loads < t->min_local_loads) {
        shortfall = t->min_local_loads - got->local_loads;
        used = snprintf(out, size, "\n  local loads per multiply-add %.3f, at least %.2f here: %s",
                        got->local_loads, t->min_local_loads, t->local_miss);
    }
    if (used < 0 || (size_t)used >= size)
        return;
    if (t->max_global_loads > 0 && got->global_loads - shortfall > t->max_global_loads) {
        char part[120] = "";
        if (shortfall > 0)
            snprintf(part, sizeof part, ", more than the %.2f the missing local loads explain",
                     shortfall);
        used += snprintf(out + used, size - (size_t)used,
                         "\n  global loads per multiply-add %.3f, at most %.2f here%s: %s",
                         got->global_loads, t->max_global_loads, part, t->global_miss);
    }
    if (used >= 0 && (size_t)used < size && t->max_local_loads > 0 &&
        got->local_loads > t->max_local_loads)
        used += snprintf(out + used, size - (size_t)used,
                         "\n  local loads per multiply-add %.3f, at most %.2f here: %s",
                         got->local_loads, t->max_local_loads, t->local_excess);
    if (used >= 0 && (size_t)used < size && t->min_load_bytes > 0 &&
        got->load_bytes < t->min_load_bytes)
        used += snprintf(out + used, size - (size_t)used,
                         "\n  bytes per global load instruction %.1f, at least %.0f here: %s",
                         got->load_bytes, t->min_load_bytes, t->narrow_miss);
    if (used >= 0 && (size_t)used < size && t->max_barriers_per_tile > 0 &&
        barriers_per_tile > t->max_barriers_per_tile)
        snprintf(out + used, size - (size_t)used,
                 "\n  barriers per tile %.2f, at most %.2f here: %s", barriers_per_tile,
                 t->max_barriers_per_tile, t->barrier_miss);
}

/* A work-group's barriers per tile it really takes along k, whatever TSK it was given (the tiles
 * plugin counts them: tiles.cpp). A group that takes no tile (no local memory) has each barrier
 * count as one more than its tiles. */
static double barriers_per_tile(const struct grader_traffic *got) {
    return got->tiles > 0 ? got->barriers / got->tiles : got->barriers;
}

/* Which of the step's bounds a count keeps: global loads, local loads, the others. */
static void bounds_kept(const struct grader_technique *t, const struct grader_traffic *got,
                        int *global_ok, int *local_ok, int *other_ok) {
    double per_tile = barriers_per_tile(got);
    *global_ok = t->max_global_loads <= 0 || got->global_loads <= t->max_global_loads;
    *local_ok = (t->min_local_loads <= 0 || got->local_loads >= t->min_local_loads) &&
                (t->max_local_loads <= 0 || got->local_loads <= t->max_local_loads);
    *other_ok = (t->min_load_bytes <= 0 || got->load_bytes >= t->min_load_bytes) &&
                (t->max_barriers_per_tile <= 0 || per_tile <= t->max_barriers_per_tile);
}

int grade_technique_shows(const struct grader_exercise *ex, const struct grader_traffic *got) {
    int global_ok, local_ok, other_ok;
    bounds_kept(&ex->technique, got, &global_ok, &local_ok, &other_ok);
    return !got->why[0] && global_ok && local_ok && other_ok;
}

/* The step's technique, from the memory traffic oclgrind counts in the student's kernel. */
void grade_test_technique(const struct grader_exercise *ex, int all_right,
                          const struct grader_traffic *got, struct grader_exercise_result *r) {
    const struct grader_technique *t = &ex->technique;
    char name[120];
    int pts = ex->points.technique;
    snprintf(name, sizeof name, "technique: %s", t->what);
    if (!all_right) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts,
                           "not checked: the kernel must first be right at every size");
        return;
    }
    if (got->why[0]) {
        grader_add_verdict(r, GRADER_NOT_RUN, name, 0, pts, "not checked: %s", got->why);
        return;
    }
    int global_ok, local_ok, other_ok;
    bounds_kept(t, got, &global_ok, &local_ok, &other_ok);
    double per_tile = barriers_per_tile(got);
    char global_bound[64] = "", local_bound[96] = "", more[240] = "", missed[1400] = "";
    if (t->max_global_loads > 0)
        snprintf(global_bound, sizeof global_bound, " (this step: at most %.2f)",
                 t->max_global_loads);
    if (t->min_local_loads > 0 && t->max_local_loads > 0)
        snprintf(local_bound, sizeof local_bound, " (this step: from %.2f to %.2f)",
                 t->min_local_loads, t->max_local_loads);
    else if (t->min_local_loads > 0)
        snprintf(local_bound, sizeof local_bound, " (this step: at least %.2f)",
                 t->min_local_loads);
    else if (t->max_local_loads > 0)
        snprintf(local_bound, sizeof local_bound, " (this step: at most %.2f)", t->max_local_loads);
    if (t->min_load_bytes > 0)
        snprintf(more, sizeof more, "; bytes per global load instruction %.1f (at least %.0f)",
                 got->load_bytes, t->min_load_bytes);
    if (t->max_barriers_per_tile > 0)
        snprintf(more, sizeof more,
                 "; barriers per tile %.2f (at most %.2f): a work-group's %.0f barriers for the "
                 "%.2f tiles it takes along k",
                 per_tile, t->max_barriers_per_tile, got->barriers, got->tiles);
    if (!global_ok || !local_ok || !other_ok)
        missed_bounds(t, got, per_tile, missed, sizeof missed);
    char at[64];
    grader_size_text(ex, grader_memcheck_at(ex), at, sizeof at);
    grader_add_test(r, name, global_ok && local_ok && other_ok ? pts : 0, pts,
                    "loads per multiply-add counted by oclgrind at %s: global %.3f%s, local "
                    "%.3f%s%s%s%s",
                    at, got->global_loads, global_bound, got->local_loads, local_bound, more,
                    global_ok && local_ok && other_ok
                        ? ""
                        : "\nhint: the result is right but the step's technique does not show:",
                    missed);
}

void grade_test_technique_counted(const struct grader_config *cfg, const struct grade_build *graded,
                                  const struct grader_traffic *traffic, int counted, int large_n,
                                  int all_right, struct grader_exercise_result *r) {
    const struct grader_exercise *judged = &graded->row;
    const struct grader_traffic *got = traffic;
    struct grader_exercise large = graded->row;
    struct grader_traffic above = {0};
    int also = 0; /* counted above the window too, and shows there */
    if (counted && large_n > 0 && grade_technique_shows(judged, got)) {
        large.memcheck_n = large_n;
        large.memcheck_shape = grader_square(large_n);
        if (grade_count_traffic(cfg, &large, graded->kernel, "traffic-large", &above) == 0) {
            also = grade_technique_shows(&large, &above);
            if (!also)
                judged = &large, got = &above;
        }
    }
    grade_test_technique(judged, all_right, got, r);
    if (also && r->test_count > 0)
        grader_test_append(&r->tests[r->test_count - 1], "and at N = %d: global %.3f, local %.3f",
                           large_n, above.global_loads, above.local_loads);
}
