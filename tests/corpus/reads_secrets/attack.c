#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a whole small file (NUL bytes kept) into buf; returns its length, -1 if unreadable. */
static long slurp(const char *path, char *buf, long size) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long got = (long)fread(buf, 1, (size_t)size - 1, f);
    fclose(f);
    buf[got < 0 ? 0 : got] = '\0';
    return got;
}

/* Whether the NUL-separated list holds an entry equal to word, or one containing part. */
static int holds(const char *list, long length, const char *word, const char *part) {
    for (long at = 0; at < length; at += (long)strlen(list + at) + 1)
        if ((word && strcmp(list + at, word) == 0) || (part && strstr(list + at, part)))
            return 1;
    return 0;
}

/* 1 if any secret of the batch is in reach */
static int attack(int argc, char **argv) {
    (void)argc, (void)argv;
    static char buf[1 << 16];
    int found = 0;
    DIR *proc = opendir("/proc");
    struct dirent *e;
    while (proc && (e = readdir(proc)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        long n = slurp(path, buf, sizeof buf);
        /* a grader's own seed (its host programs get a derived one, which is no secret) */
        if (n > 0 && holds(buf, n, "--submission", NULL) && holds(buf, n, "--seed", NULL)) {
            fprintf(stderr, "LEAK: a grader's --seed in %s\n", path);
            found = 1;
        }
        if (n > 0 && holds(buf, n, NULL, "corpus-secret")) {
            fprintf(stderr, "LEAK: the secret in %s\n", path);
            found = 1;
        }
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        n = slurp(path, buf, sizeof buf);
        if (n > 0 &&
            (holds(buf, n, NULL, "corpus-secret") || holds(buf, n, NULL, "GRADER_SECRET"))) {
            fprintf(stderr, "LEAK: the secret or its file in %s\n", path);
            found = 1;
        }
    }
    if (proc)
        closedir(proc);
    const char *files[] = {INSTRUCTOR_HOME "/.config/clmm-grader/secret",
                           getenv("GRADER_SECRET_FILE"), "/root/.config/clmm-grader/secret"};
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i] && slurp(files[i], buf, sizeof buf) > 0) {
            fprintf(stderr, "LEAK: read the secret file %s\n", files[i]);
            found = 1;
        }
    if (getenv("GRADER_SECRET")) {
        fprintf(stderr, "LEAK: GRADER_SECRET in the environment\n");
        found = 1;
    }
    return found;
}
