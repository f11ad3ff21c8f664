/* pace_cache.c - the reference's launch at a size too small to time, kept in the cache folder
 * (cache_file.h) per device, size, build values and reference: the same for every student, so a
 * later grading (a batch's next student, a student's next `make grade`) goes straight to the
 * larger size, without the reference harness that found it (1.4 s an exercise on the H200). */
#include "grade/internal.h"
#include "grade/cache_file.h"

#include <limits.h>
#include <stdio.h>

#define PACE_FORMAT 1 /* the file's second word, changed with what it holds */

static void pace_path(const struct grader_config *cfg, const struct grader_exercise *rx,
                      const char *reference, char *path, size_t size) {
    grade_cache_path(cfg, rx, reference, "pace", "", PACE_FORMAT, path, size);
}

double grade_pace_kept(const struct grader_config *cfg, const struct grader_exercise *rx,
                       const char *reference) {
    char path[PATH_MAX + 64], text[64];
    double seconds = 0.0;
    int format = 0;
    pace_path(cfg, rx, reference, path, sizeof path);
    if (path[0] && grade_cache_read(path, text, sizeof text) == 0 &&
        sscanf(text, "pace %d %lf", &format, &seconds) == 2 && format == PACE_FORMAT &&
        seconds > 0.0 && seconds < GRADE_PERF_MIN_SECONDS)
        return seconds;
    return 0.0;
}

void grade_pace_keep(const struct grader_config *cfg, const struct grader_exercise *rx,
                     const char *reference, double seconds) {
    char path[PATH_MAX + 64], text[64];
    pace_path(cfg, rx, reference, path, sizeof path);
    if (!path[0])
        return;
    grader_make_dirs(cfg->cache);
    snprintf(text, sizeof text, "pace %d %.17g\n", PACE_FORMAT, seconds);
    grade_cache_write(path, text);
}
