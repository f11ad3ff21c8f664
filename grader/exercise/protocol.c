/* protocol.c - the one writer and the one reader of each of the CUDA harness's text files, and the
 * parser of the numbers on a child's command line (protocol.h says what they hold). The readers
 * run in the grader on files the student's process wrote, so they accept the writer's form and
 * nothing else.
 */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include "exercise/protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_MAX 1024 /* bytes of a file: a few lines, the longest a device's name */

int grader_parse_number(const char *text, unsigned long long max, unsigned long long *value) {
    /* strtoull alone takes "  -3" (as a huge number), "12x" (as 12) and "" (as 0) */
    if (!text || !*text || strspn(text, "0123456789") != strlen(text))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v > max)
        return -1;
    *value = v;
    return 0;
}

/* ---------------------------------------------------------------- writing (the child) */

static FILE *create(const char *dir, const char *name) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "cannot write %s\n", path);
    return f;
}

int grader_cuda_device_write(const char *dir, const struct grader_cuda_device *d) {
    FILE *f = create(dir, CUDA_DEVICE_FILE);
    if (!f)
        return -1;
    fprintf(f, "capability %d\nname %s\ndriver %d\n", d->capability, d->name, d->driver);
    return fclose(f) == 0 ? 0 : -1;
}

int grader_cuda_timing_write(const char *dir, const struct grader_cuda_timing *t) {
    FILE *f = create(dir, CUDA_TIMING_FILE);
    if (!f)
        return -1;
    fprintf(f, "cuda %.9g %.9g %.9g %d\ndevice %s\n", t->seconds[0], t->seconds[1], t->seconds[2],
            t->runs, t->device);
    return fclose(f) == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- reading (the grader) */

/* DIR/NAME, split into exactly `count` lines, each ended by '\n' and of printable ASCII: line[i]
 * points into text. A link, a FIFO or a file of more than TEXT_MAX bytes is refused unread. */
static int read_lines(const char *dir, const char *name, char text[TEXT_MAX + 1], char **line,
                      int count) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    ssize_t got = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= TEXT_MAX)
        got = read(fd, text, TEXT_MAX + 1);
    close(fd);
    if (got <= 0 || got > TEXT_MAX)
        return -1;
    text[got] = '\0';
    char *at = text;
    for (int i = 0; i < count; i++) {
        char *end = strchr(at, '\n');
        if (!end)
            return -1;
        *end = '\0';
        for (const char *c = at; *c; c++)
            if (*c < ' ' || *c > '~')
                return -1;
        line[i] = at;
        at = end + 1;
    }
    return *at ? -1 : 0; /* nothing after the last line */
}

/* The value of a "KEY VALUE" line, or NULL if the line is not one. */
static char *value_of(char *line, const char *key) {
    size_t k = strlen(key);
    return strncmp(line, key, k) == 0 && line[k] == ' ' ? line + k + 1 : NULL;
}

static int int_of(const char *text, int max, int *value) {
    unsigned long long v;
    if (grader_parse_number(text, (unsigned long long)max, &v) != 0)
        return -1;
    *value = (int)v;
    return 0;
}

/* A time in seconds as %.9g writes it: digits, a point, an exponent; finite and not negative. */
static int seconds_of(const char *text, double *value) {
    char *end = NULL;
    if (!*text || strspn(text, "0123456789.e+-") != strlen(text))
        return -1;
    *value = strtod(text, &end);
    return *end == '\0' && isfinite(*value) && *value >= 0 ? 0 : -1;
}

/* The name of a "KEY NAME" line into name (CUDA_NAME_MAX bytes): -1 if not one, or too long. */
static int name_of(char *line, const char *key, char *name) {
    const char *v = value_of(line, key);
    if (!v || strlen(v) >= CUDA_NAME_MAX)
        return -1;
    memcpy(name, v, strlen(v) + 1);
    return 0;
}

int grader_cuda_device_read(const char *dir, struct grader_cuda_device *d) {
    char text[TEXT_MAX + 1], *line[3], *v;
    memset(d, 0, sizeof *d);
    int ok = read_lines(dir, CUDA_DEVICE_FILE, text, line, 3) == 0 &&
             (v = value_of(line[0], "capability")) && int_of(v, 10000, &d->capability) == 0 &&
             name_of(line[1], "name", d->name) == 0 && (v = value_of(line[2], "driver")) &&
             int_of(v, INT_MAX, &d->driver) == 0;
    if (!ok)
        memset(d, 0, sizeof *d);
    return ok ? 0 : -1;
}

int grader_cuda_timing_read(const char *dir, struct grader_cuda_timing *t) {
    char text[TEXT_MAX + 1], *line[2], *word[5];
    memset(t, 0, sizeof *t);
    if (read_lines(dir, CUDA_TIMING_FILE, text, line, 2) != 0)
        return -1;
    /* "cuda MIN MEDIAN MAX RUNS": five words, one space apart */
    int ok = 1;
    char *at = line[0];
    for (int i = 0; ok && i < 5; i++) {
        word[i] = at;
        at = strchr(at, ' ');
        ok = (at != NULL) == (i < 4);
        if (at)
            *at++ = '\0';
    }
    ok = ok && strcmp(word[0], "cuda") == 0;
    for (int i = 0; ok && i < 3; i++)
        ok = seconds_of(word[1 + i], &t->seconds[i]) == 0;
    ok =
        ok && int_of(word[4], INT_MAX, &t->runs) == 0 && name_of(line[1], "device", t->device) == 0;
    if (!ok)
        memset(t, 0, sizeof *t);
    return ok ? 0 : -1;
}
