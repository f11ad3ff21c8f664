/* cache_file.h - small files of the grader's cache folder (build/grade-cache, a batch's cache/):
 * figures that are the same for every student on one device, worked out once and kept. Only the
 * grader's own processes write there; graders side by side each write a file of their own and
 * rename it into place, so a reader sees a whole file or none.
 */
#ifndef GRADER_GRADE_CACHE_FILE_H
#define GRADER_GRADE_CACHE_FILE_H

#include <stddef.h>

struct grader_config;
struct grader_exercise;

/* The file of a figure of rx's reference at rx->perf_n on cfg's device ("" without a cache folder
 * or where the reference cannot be read): kind-ID-N-HASH.txt, the hash of everything the figure
 * depends on (format, the device, extra, the reference's build values and its text). */
void grade_cache_path(const struct grader_config *cfg, const struct grader_exercise *rx,
                      const char *reference, const char *kind, const char *extra, int format,
                      char *path, size_t size);

/* text into path, whole: written beside it under a name of its own, then renamed (nothing is
 * left where it fails) */
void grade_cache_write(const char *path, const char *text);

/* path's first size - 1 bytes into text, NUL-terminated: 0, or -1 where there is no such file */
int grade_cache_read(const char *path, char *text, size_t size);

#endif
