/* sandbox.c - the bubblewrap prefix of every run of a student's code. */
#define _GNU_SOURCE
#include "jail/jail.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Whether the student's processes could reach path, so that the sandbox must hide it: always
 * when they run as the grader's own user; under a uid of their own only when every folder on the
 * way lets others through (under /root, say, it is out of reach already). */
static int must_hide(const char *path) {
    if (grader_jail_uid() == (uid_t)-1)
        return 1;
    char prefix[PATH_MAX];
    snprintf(prefix, sizeof prefix, "%s", path);
    for (char *p = prefix;; p++) {
        if (*p == '/' || *p == '\0') {
            char keep = *p;
            *p = '\0';
            struct stat st;
            if (prefix[0] && (stat(prefix, &st) != 0 || !(st.st_mode & S_IXOTH)))
                return 0;
            *p = keep;
            if (!keep)
                return 1;
        }
    }
}

/* The sandbox of a student's build and host program, when bubblewrap works here: read-only
 * system, no network, private /tmp and process ids (everything it starts dies with it), the
 * folders of sb->hidden (the reference solutions, the submission, the work folders) hidden, and
 * only `dir` (and js->kernel_cache) writable. Pushes the prefix onto argv (nothing without a
 * sandbox); returns 1 if it pushed. */
int grader_sandbox_push(const struct grader_jail_settings *js, const struct grader_sandbox *sb,
                        const char *dir, struct grader_argv *argv) {
    char bwrap[PATH_MAX];
    if (!sb->mode || grader_find_program("bwrap", bwrap, sizeof bwrap) != 0)
        return 0;
    grader_argv_push_all(argv, (const char *const[]){bwrap, "--ro-bind", "/", "/", "--dev-bind",
                                                     "/dev", "/dev", NULL});
    /* a private /dev/shm and /tmp, read-only below (TMPDIR is its own folder) */
    grader_argv_push_all(argv,
                         (const char *const[]){"--size", "1048576", "--tmpfs", "/dev/shm", NULL});
    if (sb->mode == SANDBOX_OWN_PROC)
        grader_argv_push_all(argv, (const char *const[]){"--proc", "/proc", NULL});
    else /* inside another sandbox a new /proc cannot be mounted: the outer one, read-only */
        grader_argv_push_all(argv, (const char *const[]){"--ro-bind", "/proc", "/proc", NULL});
    grader_argv_push_all(argv, (const char *const[]){"--size", "1048576", "--tmpfs", "/tmp", NULL});
    for (int i = 0; i < SANDBOX_HIDDEN; i++)
        if (sb->hidden[i][0] && must_hide(sb->hidden[i])) /* else its uid cannot reach it */
            grader_argv_push_all(argv, (const char *const[]){"--tmpfs", sb->hidden[i], NULL});
    grader_argv_push_all(argv, (const char *const[]){"--bind", dir, dir, NULL});
    if (js->kernel_cache)
        grader_argv_push_all(
            argv, (const char *const[]){"--bind", js->kernel_cache, js->kernel_cache, NULL});
    grader_argv_push_all(argv, (const char *const[]){"--remount-ro", "/tmp", "--remount-ro",
                                                     "/dev/shm", "--unshare-pid", "--unshare-net",
                                                     "--unshare-ipc", NULL});
    /* no --new-session: run.c made one */
    grader_argv_push_all(argv,
                         (const char *const[]){"--die-with-parent", "--setenv", "HOME", dir, NULL});
    return 1;
}
