/* clu_result.c - result files: how a host program hands its output matrix to the grader. */
#include "clu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = {'C', 'L', 'U', 'R', 'E', 'S', '1', '\n'};

size_t clu_divisor_at_most(size_t n, size_t limit) {
    for (size_t d = limit < n ? limit : n; d > 1; d--)
        if (n % d == 0)
            return d;
    return 1;
}

int clu_save_result(const char *path, const float *x, size_t count) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    unsigned char size[8];
    for (int i = 0; i < 8; i++)
        size[i] = (unsigned char)((uint64_t)count >> (8 * i));
    int ok = fwrite(magic, 1, 8, f) == 8 && fwrite(size, 1, 8, f) == 8 &&
             fwrite(x, sizeof *x, count, f) == count;
    if (fclose(f) != 0)
        ok = 0;
    if (!ok) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* A result file's floats: into `into` when it holds exactly `want` of them, else into a malloc'd
 * array (into NULL). The array, into, or NULL with why. */
static float *load(const char *path, float *into, size_t want, size_t *count, char *why,
                   size_t why_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "no result file (%s)", strerror(errno));
        return NULL;
    }
    char head[8];
    unsigned char size[8];
    if (fread(head, 1, 8, f) != 8 || memcmp(head, magic, 8) != 0 || fread(size, 1, 8, f) != 8) {
        snprintf(why, why_size, "not a result file (bad header)");
        fclose(f);
        return NULL;
    }
    uint64_t n = 0;
    for (int i = 0; i < 8; i++)
        n |= (uint64_t)size[i] << (8 * i);
    /* believe the header only as far as the file's real size goes: no huge allocation for a
     * corrupt or hostile file */
    long here = ftell(f);
    long size_of_file = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (here < 0 || size_of_file < 0 || fseek(f, here, SEEK_SET) != 0 ||
        n > (uint64_t)(size_of_file - here) / sizeof(float)) {
        snprintf(why, why_size, "result file claims %llu elements but holds %ld bytes of data",
                 (unsigned long long)n, size_of_file - here);
        fclose(f);
        return NULL;
    }
    if (into && n != want) {
        snprintf(why, why_size, "result file holds %llu elements, expected %zu",
                 (unsigned long long)n, want);
        fclose(f);
        return NULL;
    }
    float *x = into ? into : malloc(n ? (size_t)n * sizeof *x : 1);
    size_t got = x ? fread(x, sizeof *x, (size_t)n, f) : 0;
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (!x || got != n || extra) {
        snprintf(why, why_size, "result file holds %zu of %llu elements%s", got,
                 (unsigned long long)n, extra ? " and trailing bytes" : "");
        if (!into)
            free(x);
        return NULL;
    }
    *count = (size_t)n;
    return x;
}

float *clu_load_result(const char *path, size_t *count, char *why, size_t why_size) {
    return load(path, NULL, 0, count, why, why_size);
}

int clu_load_result_into(const char *path, float *x, size_t count, char *why, size_t why_size) {
    if (!x) { /* (load's NULL asks for an array of its own) */
        snprintf(why, why_size, "no buffer to read %s into", path);
        return -1;
    }
    size_t got = 0;
    return load(path, x, count, &got, why, why_size) ? 0 : -1;
}
