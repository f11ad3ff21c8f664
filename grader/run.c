/* run.c - running a student's program (or a harness child running a student's kernel) so that
 * nothing it does can hang or crash the grader: its own process group, a wall-clock limit, capped
 * output, and the whole group killed when it ends. */
#define _GNU_SOURCE /* strsignal, kill */
#include "grader.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OUTPUT_CAP (256L << 20) /* RLIMIT_FSIZE of a child: its files, logs and results */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
/* Failure to start is told to the parent through report_fd (close-on-exec: silent on success). */
static void fail_to_start(int report_fd) {
    int why = errno;
    ssize_t ignored = write(report_fd, &why, sizeof why);
    (void)ignored;
    _exit(127);
}

static void become_child(const char *out_path, int report_fd) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    if (in < 0)
        fail_to_start(report_fd);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0)
        fail_to_start(report_fd);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    close(in);
    close(out);
    struct rlimit fsize = {OUTPUT_CAP, OUTPUT_CAP}, core = {0, 0};
    setrlimit(RLIMIT_FSIZE, &fsize);
    setrlimit(RLIMIT_CORE, &core);
    signal(SIGPIPE, SIG_DFL);
}

void grader_run(char *const argv[], const char *out_path, double timeout,
                struct grader_run_result *result) {
    memset(result, 0, sizeof *result);
    fflush(NULL); /* nothing buffered may be written twice by the child */
    double start = now();
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        result->how = RUN_NO_START;
        result->code = errno;
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        result->how = RUN_NO_START;
        result->code = errno;
        close(report[0]);
        close(report[1]);
        return;
    }
    if (pid == 0) {
        close(report[0]);
        become_child(out_path, report[1]);
        execv(argv[0], argv);
        fail_to_start(report[1]);
    }
    close(report[1]);
    /* exec closes the pipe (nothing read) or the child writes its errno and exits at once */
    int exec_errno = 0;
    ssize_t got = read(report[0], &exec_errno, sizeof exec_errno);
    close(report[0]);
    setpgid(pid, pid); /* also here: whichever of the two runs first, the group exists */
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid)
            break;
        if (done < 0 && errno != EINTR) {
            result->how = RUN_NO_START;
            result->code = errno;
            kill(-pid, SIGKILL);
            return;
        }
        if (now() - start > timeout) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            result->how = RUN_TIMEOUT;
            result->seconds = now() - start;
            return;
        }
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL); /* anything it left running in its group */
    result->seconds = now() - start;
    if (WIFSIGNALED(status)) {
        result->how = RUN_SIGNALED;
        result->code = WTERMSIG(status);
    } else {
        result->how = RUN_EXITED;
        result->code = WEXITSTATUS(status);
        if (got == (ssize_t)sizeof exec_errno) {
            result->how = RUN_NO_START;
            result->code = exec_errno;
        }
    }
}

void grader_describe_run(const struct grader_run_result *r, char *buf, size_t size) {
    switch (r->how) {
    case RUN_EXITED:
        snprintf(buf, size, "exited with status %d after %.1f s", r->code, r->seconds);
        break;
    case RUN_SIGNALED: {
        const char *abbrev = sigabbrev_np(r->code); /* "SEGV" */
        snprintf(buf, size, "crashed with SIG%s (signal %d) after %.1f s%s", abbrev ? abbrev : "?",
                 r->code, r->seconds,
                 r->code == SIGSEGV || r->code == SIGBUS
                     ? ": often an out-of-bounds access in the kernel or the host code"
                 : r->code == SIGXFSZ ? ": it wrote more output than allowed"
                                      : "");
        break;
    }
    case RUN_TIMEOUT:
        snprintf(
            buf, size,
            "timed out: still running after %.0f s and was stopped (a loop that never ends, or "
            "a flood of printf output?)",
            r->seconds);
        break;
    case RUN_NO_START:
        snprintf(buf, size, "could not be started (%s)", strerror(r->code));
        break;
    }
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
