/* run.c - running a student's program (or a harness child running a student's kernel) so that
 * nothing it does can hang or crash the grader: its own session, a wall-clock limit, capped
 * output, and the whole group killed when it ends; children that take commands. The start of a
 * child is spawn.c, the watch of its processes watch.c. */
#define _GNU_SOURCE /* sigabbrev_np, pipe2 */
#include "jail/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void stop_run(struct run_state *st, enum grader_run_how how, int code,
                     struct grader_run_result *result, int *status) {
    kill(-st->pid, SIGKILL);
    /* a paused run takes no signal: a frozen task dies when it thaws, a stopped one when it
     * continues (the SIGKILL above is pending then) */
    jail_pause_run(st, 0);
    waitpid(st->pid, status, 0);
    result->how = how;
    result->code = code;
    result->seconds = jail_now() - st->start;
}

/* Wait for the child until it ends or its time is up (timeout seconds after its start),
 * watching its limits every 0.1 s. */
static void wait_for(struct run_state *st, double timeout, struct grader_run_result *result) {
    int status = 0;
    for (;;) {
        pid_t done = waitpid(st->pid, &status, WNOHANG);
        if (done == st->pid)
            break;
        if (done < 0 && errno != EINTR) {
            result->how = RUN_NO_START;
            result->code = errno;
            kill(-st->pid, SIGKILL);
            return;
        }
        if (jail_now() - st->start > timeout) {
            stop_run(st, jail_starved(st) ? RUN_TOO_BUSY : RUN_TIMEOUT, 0, result, &status);
            return;
        }
        if (st->jail_dir && jail_now() - st->last_watch > 0.1) {
            double interval = jail_now() - st->last_watch;
            st->last_watch = jail_now();
            jail_sample_cpu(st, interval);
            int code = jail_over_limit(st);
            if (code) {
                stop_run(st, RUN_OVER_LIMIT, code, result, &status);
                return;
            }
            if (jail_report_done(st)) {
                stop_run(st, RUN_DONE, 0, result, &status);
                return;
            }
        }
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    result->seconds = jail_now() - st->start;
    if (st->cgroup.mode && grader_cgroup_run_memory_hit(&st->cgroup) == 2) {
        result->how = RUN_OVER_LIMIT; /* the kernel's OOM killer ended a process of the run */
        result->code = LIMIT_MEMORY;
    } else if (WIFSIGNALED(status)) {
        result->how = RUN_SIGNALED;
        result->code = WTERMSIG(status);
    } else {
        result->how = RUN_EXITED;
        result->code = WEXITSTATUS(status);
        if (st->exec_errno) {
            result->how = RUN_NO_START;
            result->code = st->exec_errno;
        }
    }
}

/* A student's output log cut to its head and tail once the run is over: what the grader keeps
 * of a student is bounded by the disk limit while it runs and by LOG_KEPT per run after. */
#define LOG_KEPT (64L << 10)
static void cut_log(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= LOG_KEPT)
        return;
    char *text = grader_read_capped(path, LOG_KEPT);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
}

/* Nothing of the child left running: its group, and (jailed) every process of its uid. */
static void clean_up(struct run_state *st) {
    kill(-st->pid, SIGKILL); /* anything it left running in its group */
    if (st->cgroup.mode)
        grader_cgroup_run_close(&st->cgroup); /* every process of the run, wherever it went */
    if (st->jail_dir && st->jail.uid != (uid_t)-1)
        jail_end_all_of(st->jail.uid); /* and anything of its uid */
    if (st->jail_dir)
        cut_log(st->out_path);
    jail_free_environment(&st->jail);
}

static void run_child(const struct grader_jail_settings *js, char *const argv[],
                      const char *out_path, double timeout, const char *jail_dir,
                      struct grader_run_result *result) {
    /* a run stopped at its limit while the machine starved it is run once more */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct run_state st;
        if (jail_spawn(js, argv, out_path, jail_dir, NULL, &st, result) != 0)
            return;
        wait_for(&st, timeout, result);
        clean_up(&st);
        if (result->how != RUN_TOO_BUSY)
            return;
        sleep(1);
    }
}

void grader_run(char *const argv[], const char *out_path, double timeout,
                struct grader_run_result *result) {
    run_child(NULL, argv, out_path, timeout, NULL, result);
}

void grader_run_jailed(const struct grader_jail_settings *js, char *const argv[], const char *dir,
                       const char *out_path, double timeout, struct grader_run_result *result) {
    run_child(js, argv, out_path, timeout, dir, result);
}

/* ---------------------------------------------------------------- children that take commands */

struct grader_child {
    struct run_state st;
    struct grader_run_result result; /* how it could not start, or how it was stopped */
    int running;                     /* started, not stopped, not yet finished */
    int commands;                    /* the write end of its stdin */
    int replies;                     /* the read end of its fd 3 */
    double quiet_until;              /* no watch before then (grader_child_quiet) */
};

struct grader_child *grader_start(const struct grader_jail_settings *js, char *const argv[],
                                  const char *dir, const char *out_path) {
    struct grader_child *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->commands = c->replies = -1;
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) {
        c->result.how = RUN_NO_START;
        c->result.code = errno;
        return c;
    }
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        c->result.how = RUN_NO_START;
        c->result.code = errno;
        close(to_child[0]);
        close(to_child[1]);
        return c;
    }
    int control[2] = {to_child[0], from_child[1]};
    int started = jail_spawn(js, argv, out_path, dir, control, &c->st, &c->result) == 0;
    close(to_child[0]);
    close(from_child[1]);
    c->commands = to_child[1];
    c->replies = from_child[0];
    c->running = started;
    if (!started) {
        close(c->commands);
        close(c->replies);
        c->commands = c->replies = -1;
    }
    return c;
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
                 : r->code == SIGXCPU ? ": it used more CPU time than allowed"
                                      : "");
        break;
    }
    case RUN_TIMEOUT:
        snprintf(buf, size,
                 "timed out: still running after %.0f s and was stopped (a loop that never ends, a "
                 "flood of printf output, or processes waiting for each other?)",
                 r->seconds);
        break;
    case RUN_NO_START:
        snprintf(buf, size, "could not be started (%s)", strerror(r->code));
        break;
    case RUN_TOO_BUSY:
        snprintf(buf, size,
                 "was not graded: the machine was too busy (twice stopped at its time limit "
                 "after getting under a quarter of a CPU while it wanted one)");
        break;
    case RUN_DONE:
        snprintf(buf, size,
                 "was stopped after %.1f s, its report complete (it said it would add "
                 "nothing more)",
                 r->seconds);
        break;
    case RUN_OVER_LIMIT:
        snprintf(buf, size, "was stopped after %.1f s: %s", r->seconds,
                 r->code == LIMIT_DISK
                     ? "its folder grew past the disk limit (a loop writing files?)"
                 : r->code == LIMIT_OUTPUT
                     ? "it wrote more output than allowed (a loop printing without end?)"
                     : "its processes used more memory than allowed");
        break;
    }
}

int grader_child_ask(struct grader_child *c, const char *command, char *reply, size_t size,
                     double timeout) {
    if (!c->running || size < 2)
        return -1;
    if (command) {
        size_t length = strlen(command);
        /* a child that stopped reading must not stop the grader: no SIGPIPE for the write */
        struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
        sigaction(SIGPIPE, &ignore, &old);
        int sent = write(c->commands, command, length) == (ssize_t)length &&
                   write(c->commands, "\n", 1) == 1;
        sigaction(SIGPIPE, &old, NULL);
        if (!sent)
            return -1;
    }
    double deadline = jail_now() + timeout;
    size_t used = 0;
    for (;;) {
        double left = deadline - jail_now();
        if (left <= 0) {
            int status;
            stop_run(&c->st, jail_starved(&c->st) ? RUN_TOO_BUSY : RUN_TIMEOUT, 0, &c->result,
                     &status);
            c->running = 0;
            return -1;
        }
        struct pollfd wait = {c->replies, POLLIN, 0};
        int ready = poll(&wait, 1, left > 0.1 ? 100 : (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR)
            return -1;
        if (ready > 0) {
            char byte;
            ssize_t got = read(c->replies, &byte, 1);
            if (got <= 0)
                return -1; /* it ended or closed its reply channel */
            if (byte == '\n') {
                reply[used] = '\0';
                return 0;
            }
            if (used + 1 >= size)
                return -1; /* a reply longer than any the protocol has */
            reply[used++] = byte;
            continue;
        }
        double interval = jail_now() - c->st.last_watch;
        if (c->st.jail_dir && interval > 0.1 && jail_now() >= c->quiet_until) {
            c->st.last_watch = jail_now();
            jail_sample_cpu(&c->st, interval);
            int code = jail_over_limit(&c->st);
            if (code) {
                int status;
                stop_run(&c->st, RUN_OVER_LIMIT, code, &c->result, &status);
                c->running = 0;
                return -1;
            }
        }
    }
}

void grader_child_pause(struct grader_child *c, int paused) {
    if (!c->running)
        return;
    c->st.starve.paused = paused; /* (a probe of the machine must not wake it) */
    jail_pause_run(&c->st, paused);
}

void grader_child_quiet(struct grader_child *c, double seconds) {
    c->quiet_until = seconds > 0.0 ? jail_now() + seconds : 0.0;
}

double grader_child_cpu_seconds(const struct grader_child *c) {
    if (!c->running || c->st.pid <= 0)
        return -1.0;
    double counted = c->st.cgroup.mode ? grader_cgroup_run_cpu_seconds(&c->st.cgroup) : -1.0;
    if (counted >= 0.0)
        return counted;
    /* without a group: its session's processes (a sandbox's too), each thread's */
    return jail_session_cpu(c->st.pid);
}

double grader_child_waited_seconds(const struct grader_child *c) {
    return c->running && c->st.pid > 0 ? jail_session_waited(c->st.pid) : -1.0;
}

void grader_finish(struct grader_child *c, double timeout, struct grader_run_result *result) {
    if (c->commands >= 0)
        close(c->commands); /* end of commands: a well-behaved child exits */
    if (c->running) {
        grader_child_pause(c, 0);
        wait_for(&c->st, jail_now() - c->st.start + timeout, &c->result);
    }
    if (c->st.pid > 0)
        clean_up(&c->st);
    if (c->replies >= 0)
        close(c->replies);
    *result = c->result;
    free(c);
}
