/* cache_file.c - a cache folder's small files, written whole (cache_file.h). */
#define _GNU_SOURCE /* mkstemp, fdopen */
#include "grade/internal.h"
#include "grade/cache_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void grade_cache_write(const char *path, const char *text) {
    char tmp[PATH_MAX + 16];
    if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return;
    int fd = mkstemp(tmp); /* (parallel graders, each pid 2 in its sandbox, never share it) */
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        return;
    }
    int ok = fputs(text, f) >= 0;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0)
        remove(tmp);
}

int grade_cache_read(const char *path, char *text, size_t size) {
    FILE *f = size ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    size_t got = fread(text, 1, size - 1, f);
    text[got] = '\0';
    fclose(f);
    return 0;
}

void grade_cache_path(const struct grader_config *cfg, const struct grader_exercise *rx,
                      const char *reference, const char *kind, const char *extra, int format,
                      char *path, size_t size) {
    char key[1200], values[300];
    struct grader_variant variant = grader_variant_of(rx, 0, 0);
    grader_build_options(&variant, values, sizeof values);
    uint64_t h = grader_file_hash(reference);
    int used = snprintf(key, sizeof key, "%d|%s|%s|%s|%s|%016llx|%d", format,
                        cfg->device ? cfg->device : "", cfg->device_name ? cfg->device_name : "",
                        extra, values, (unsigned long long)h, rx->perf_n);
    path[0] = '\0';
    if (cfg->cache && h && used > 0 && (size_t)used < sizeof key)
        snprintf(path, size, "%s/%s-%s-%d-%016llx.txt", cfg->cache, kind, rx->id, rx->perf_n,
                 (unsigned long long)grader_fnv1a(key, (size_t)used));
}
