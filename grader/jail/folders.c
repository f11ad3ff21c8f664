/* folders.c - jail folders handed to a student's uid, copies into them and elsewhere, and file
 * helpers (a program on $PATH, a file's hash, rm -rf, a capped read). */
#define _GNU_SOURCE /* O_NOFOLLOW, mkdtemp, nftw */
#include "jail/jail.h"
#include "clu.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

int grader_find_program(const char *name, char *path, size_t size) {
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    while (*dirs) {
        size_t len = strcspn(dirs, ":");
        /* an empty entry is the current directory */
        int n = len ? snprintf(path, size, "%.*s/%s", (int)len, dirs, name)
                    : snprintf(path, size, "./%s", name);
        struct stat st;
        if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
            access(path, X_OK) == 0)
            return 0;
        dirs += len + (dirs[len] == ':');
    }
    return -1;
}

uint64_t grader_fnv1a(const void *data, size_t length) {
    const unsigned char *bytes = data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; i++)
        h = (h ^ bytes[i]) * 0x100000001b3ull;
    return h;
}

uint64_t grader_file_hash(const char *path) {
    size_t length = 0;
    char *text = clu_read_file(path, &length);
    uint64_t h = text ? grader_fnv1a(text, length) : 0;
    free(text);
    return h;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

void grader_remove_tree(const char *path) {
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

char *grader_read_capped(const char *path, size_t max) {
    size_t length = 0;
    char *text = clu_read_file(path, &length);
    if (!text)
        return strdup("");
    if (length <= max)
        return text;
    size_t half = max / 2;
    const char *note = "\n[... output cut: %zu bytes left out ...]\n";
    char *cut = malloc(max + 100);
    if (!cut)
        return text;
    memcpy(cut, text, half);
    int used = snprintf(cut + half, 100, note, length - 2 * half);
    memcpy(cut + half + used, text + length - half, half);
    cut[half + used + half] = '\0';
    free(text);
    return cut;
}
