/* cgroup_fs.c - the cgroup file system as the groups of cgroup_student.c and cgroup_run.c use it: a
 * group's files read and written (open, write, close: no stdio buffering between the grader and
 * the kernel), the mounts from /proc/self/mountinfo and the grader's own group from
 * /proc/self/cgroup. */
#define _GNU_SOURCE
#include "jail/cgroup_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cgroup_say(char *why, size_t size, const char *fmt, ...) {
    if (!why || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
}

double cgroup_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void cgroup_pause(void) {
    struct timespec t = {0, 5 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* a/b into out; -1 (ENAMETOOLONG) when it does not fit */
int cgroup_join(char *out, size_t size, const char *a, const char *b) {
    /* by hand: snprintf's restrict rules out a and out in one struct (a student's tree) */
    size_t a_len = strlen(a), b_len = strlen(b);
    if (a_len + 1 + b_len >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memmove(out, a, a_len);
    out[a_len] = '/';
    memmove(out + a_len + 1, b, b_len + 1);
    return 0;
}

/* Writes text into dir/name: 0, or -1 with errno. */
int cgroup_put(const char *dir, const char *name, const char *text) {
    char path[CGROUP_FILE_PATH];
    if (cgroup_join(path, sizeof path, dir, name) != 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t wrote = write(fd, text, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return wrote == (ssize_t)len ? 0 : -1;
}

/* dir/name into text (NUL-terminated, cut at size): bytes read, or -1. */
long cgroup_get(const char *dir, const char *name, char *text, size_t size) {
    char path[CGROUP_FILE_PATH];
    if (cgroup_join(path, sizeof path, dir, name) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && (n = read(fd, text + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    text[got] = '\0';
    return (long)got;
}

/* The file dir/name as one number, or -1. */
long long cgroup_get_number(const char *dir, const char *name) {
    char text[64];
    if (cgroup_get(dir, name, text, sizeof text) <= 0)
        return -1;
    return strtoll(text, NULL, 10);
}

/* The number after `key` in a flat-keyed file ("key value" lines: cpu.stat, memory.events), or
 * -1. */
long long cgroup_get_keyed(const char *dir, const char *name, const char *key) {
    char text[4096];
    if (cgroup_get(dir, name, text, sizeof text) < 0)
        return -1;
    size_t key_len = strlen(key);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (!strncmp(line, key, key_len) && line[key_len] == ' ')
            return strtoll(line + key_len + 1, NULL, 10);
    return -1;
}

/* Whether a comma-separated (or space-separated) list holds word. */
int cgroup_list_has(const char *list, const char *word) {
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += len)
        if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
            (p[len] == '\0' || p[len] == ',' || p[len] == ' ' || p[len] == '\n'))
            return 1;
    return 0;
}

/* The last mount of type "cgroup2", or of type "cgroup" with controller among its options: 0,
 * or -1. The last: a sandbox that binds /sys/fs/cgroup writable over a read-only view of it
 * leaves both in mountinfo, and the later one covers the earlier. */
int cgroup_find_mount(const char *type, const char *controller, struct cgroup_mount *m) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char options[256], fs_type[32], super[1024];
        struct cgroup_mount seen;
        const char *tail = strstr(line, " - ");
        if (!tail ||
            sscanf(line, "%*d %*d %*s %383s %383s %255s", seen.root, seen.point, options) != 3 ||
            sscanf(tail, " - %31s %*s %1023s", fs_type, super) != 2 || strcmp(fs_type, type) != 0)
            continue;
        if (controller && !cgroup_list_has(super, controller))
            continue;
        seen.read_only = cgroup_list_has(options, "ro");
        *m = seen;
        found = 1;
    }
    fclose(f);
    return found ? 0 : -1;
}

/* The calling process's group path in the v1 hierarchy holding controller (or the v2 one, for
 * NULL) into path: its hierarchy id, or -1. */
int cgroup_own_group(const char *controller, char *path, size_t size) {
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[4096];
    int id = -1;
    while (id < 0 && fgets(line, sizeof line, f)) {
        char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
        if (!second)
            continue;
        *first = *second = '\0';
        int v2_line = !strcmp(line, "0") && first + 1 == second;
        if (controller ? !cgroup_list_has(first + 1, controller) : !v2_line)
            continue;
        second[1 + strcspn(second + 1, "\n")] = '\0';
        if (snprintf(path, size, "%s", second + 1) >= (int)size)
            continue;
        id = atoi(line);
    }
    fclose(f);
    return id;
}

/* The folder of group path under mount m into dir: 0, or -1 when the group is outside what the
 * mount shows. */
int cgroup_group_folder(const struct cgroup_mount *m, const char *path, char *dir, size_t size) {
    const char *rest = path;
    size_t root_len = strlen(m->root);
    if (strcmp(m->root, "/") != 0) {
        if (strncmp(path, m->root, root_len) != 0 || (path[root_len] && path[root_len] != '/'))
            return -1;
        rest = path + root_len;
    }
    while (*rest == '/')
        rest++;
    int len =
        *rest ? snprintf(dir, size, "%s/%s", m->point, rest) : snprintf(dir, size, "%s", m->point);
    return len < 0 || (size_t)len >= size ? -1 : 0;
}

/* Moves the calling process into group dir. */
int cgroup_move_self(const char *dir) {
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    return cgroup_put(dir, "cgroup.procs", pid);
}

/* Removes a group, waiting a little for its last processes to leave (rmdir fails with EBUSY
 * while any is still exiting). */
void cgroup_remove_group(const char *dir) {
    for (int round = 0; round < 200 && rmdir(dir) != 0 && errno == EBUSY; round++)
        cgroup_pause();
}

/* Whether the only process in group dir is the calling one. */
int cgroup_alone_in(const char *dir) {
    char path[CGROUP_FILE_PATH];
    if (cgroup_join(path, sizeof path, dir, "cgroup.procs") != 0)
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    long pid, others = 0, self = 0;
    while (fscanf(f, "%ld", &pid) == 1)
        pid == (long)getpid() ? self++ : others++;
    fclose(f);
    return self == 1 && others == 0;
}
