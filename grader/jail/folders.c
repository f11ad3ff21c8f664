/* folders.c - jail folders handed to a student's uid, and copies into them and elsewhere. */
#define _GNU_SOURCE /* O_NOFOLLOW, mkdtemp */
#include "jail/jail.h"
#include "clu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void grader_make_dirs(const char *path) {
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

#define MAX_SOURCE (1L << 20) /* bytes: a main.c or kernel.cl larger than this is refused */

/* Copy a student's source file: a plain file (no link, FIFO or device) of at most MAX_SOURCE
 * bytes, read without blocking. Returns 0, or -1 with the reason in why. */
int grader_copy_source(const char *from, const char *to, char *why, size_t why_size) {
    int fd = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_size, "cannot read it (%s)", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > MAX_SOURCE) {
        snprintf(why, why_size, "%s",
                 S_ISREG(st.st_mode) ? "it is larger than 1 MB" : "it is not a plain file");
        close(fd);
        return -1;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    FILE *f = got == st.st_size ? fopen(to, "wb") : NULL;
    int ok = f && fwrite(text, 1, (size_t)got, f) == (size_t)got;
    if (f && fclose(f) != 0)
        ok = 0;
    free(text);
    if (!ok)
        snprintf(why, why_size, "copying it failed");
    return ok ? 0 : -1;
}

/* A folder for a student's own program that its uid can reach wherever the grader's work folder
 * is (under a private home or a 0700 temporary folder): /tmp/clmm-host-XXXXXX (the grader's,
 * 0711) holding w/, handed to the student's uid when the program runs. 0, or -1. */
int grader_jail_dir_make(char *dir, size_t size) {
    char top[64] = "/tmp/clmm-host-XXXXXX";
    if (!mkdtemp(top) || chmod(top, 0711) != 0)
        return -1;
    snprintf(dir, size, "%s/w", top);
    return mkdir(dir, 0755);
}

void grader_jail_dir_remove(const char *dir) {
    char top[PATH_MAX];
    snprintf(top, sizeof top, "%s", dir);
    char *slash = strrchr(top, '/');
    if (slash && strncmp(top, "/tmp/clmm-host-", 15) == 0) {
        *slash = '\0';
        grader_remove_tree(top);
    }
}

/* Copy one of the workbook's own files (no limits: it is trusted). 0, or -1. */
int grader_copy_trusted(const char *from, const char *to) {
    size_t length = 0;
    char *text = clu_read_file(from, &length);
    FILE *f = text ? fopen(to, "wb") : NULL;
    int ok = f && fwrite(text, 1, length, f) == length;
    if (f)
        ok &= fclose(f) == 0;
    free(text);
    return ok ? 0 : -1;
}

int grader_jail_open(const char *self, const char *kernel, struct grader_jail *j) {
    memset(j, 0, sizeof *j);
    if (grader_jail_dir_make(j->dir, sizeof j->dir) != 0)
        return -1;
    snprintf(j->self, sizeof j->self, "%s/grader", j->dir);
    snprintf(j->kernel, sizeof j->kernel, "%s/kernel.cl", j->dir);
    if (grader_copy_trusted(self, j->self) != 0 || chmod(j->self, 0755) != 0 ||
        grader_copy_trusted(kernel, j->kernel) != 0) {
        grader_jail_dir_remove(j->dir);
        return -1;
    }
    return 0;
}
