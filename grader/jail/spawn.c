/* spawn.c - starting a child in its jail: the plan of its limits made by the parent, and what
 * the child does between fork and exec (a session of its own, its descriptors, its control
 * groups, its rlimits and uid), with an allow-listed environment. */
#define _GNU_SOURCE /* setresuid, pipe2, F_DUPFD_CLOEXEC */
#include "jail/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define OUTPUT_CAP (256L << 20) /* RLIMIT_FSIZE of a child: its files, logs and results */

/* In the child, between fork and exec: only async-signal-safe calls. */
/* Failure to start is told to the parent through report_fd (close-on-exec: silent on success). */
static void fail_to_start(int report_fd) {
    int why = errno;
    ssize_t ignored = write(report_fd, &why, sizeof why);
    (void)ignored;
    _exit(127);
}

/* Every descriptor from `first` up closed at exec: nothing the grader holds (a lock, a log, an
 * instructor's file) reaches the program. Marked close-on-exec rather than closed, so that
 * report_fd still tells the parent why an exec failed. */
static void close_at_exec_from(int first) {
    if (syscall(SYS_close_range, (unsigned)first, ~0u, CLOSE_RANGE_CLOEXEC) == 0)
        return;
    struct rlimit files;
    rlim_t last = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 65536
                      ? files.rlim_cur
                      : 65536; /* older kernels: one fcntl per possible descriptor */
    for (int fd = first; (rlim_t)fd < last; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* A child's control channel: commands come on its stdin, replies go out on fd 3 (a run without
 * commands may get the grader's channel there instead). */
#define REPLY_FD 3
_Static_assert(REPLY_FD == GRADER_CHANNEL_FD, "one descriptor for either channel");

static void become_child(pid_t parent, const char *out_path, int report_fd,
                         const struct jail_plan *jail, const int control[2], int channel) {
    /* a session (so a process group) of its own, which it cannot leave (session.c) */
    if (grader_enter_own_session(jail && jail->active ? jail->niceness : 0) != 0)
        fail_to_start(report_fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a grader killed half-way leaves nothing running */
    if (getppid() != parent)          /* it died before the line above */
        _exit(127);
    /* every descriptor it keeps moved above the ones it gets first, so no dup2 clobbers one */
    int in = control ? control[0] : open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* the reply channel or the grader's channel (never both: only runs without commands take
     * one) as fd 3 */
    int third = control ? control[1] : channel;
    int high[4] = {report_fd, in, out, third};
    for (int i = 0; i < 4; i++)
        if (high[i] >= 0 && (high[i] = fcntl(high[i], F_DUPFD_CLOEXEC, 10)) < 0)
            fail_to_start(report_fd);
    report_fd = high[0];
    if (dup2(high[1], STDIN_FILENO) < 0 || dup2(high[2], STDOUT_FILENO) < 0 ||
        dup2(high[2], STDERR_FILENO) < 0 || (third >= 0 && dup2(high[3], REPLY_FD) < 0))
        fail_to_start(report_fd);
    close_at_exec_from(third >= 0 ? REPLY_FD + 1 : STDERR_FILENO + 1);
    rlim_t cap = jail && jail->active && jail->fsize < OUTPUT_CAP ? jail->fsize : OUTPUT_CAP;
    struct rlimit fsize = {cap, cap}, core = {0, 0};
    setrlimit(RLIMIT_FSIZE, &fsize);
    setrlimit(RLIMIT_CORE, &core);
    signal(SIGPIPE, SIG_DFL);
    if (!jail || !jail->active)
        return;
    if (chdir(jail->dir) != 0)
        fail_to_start(report_fd);
    /* into the run's control groups while still root: the kernel then counts its memory
     * (memfds too), its tasks and its CPU time */
    if (jail->cgroup && grader_cgroup_run_enter(jail->cgroup) != 0)
        fail_to_start(report_fd);
    if (jail->niceness)
        setpriority(PRIO_PROCESS, 0, jail->niceness);
    setrlimit(RLIMIT_CPU, &jail->cpu);
    setrlimit(RLIMIT_NOFILE, &jail->nofile);
    if (jail->data.rlim_cur != RLIM_INFINITY)
        setrlimit(RLIMIT_DATA, &jail->data);
    setrlimit(RLIMIT_NPROC, &jail->nproc);
    if (jail->uid != (uid_t)-1) {
        /* a uid of its own: RLIMIT_NPROC binds it (never root), and its files are its own */
        if (setgroups(0, NULL) != 0 || setresgid(jail->uid, jail->uid, jail->uid) != 0 ||
            setresuid(jail->uid, jail->uid, jail->uid) != 0)
            fail_to_start(report_fd);
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a change of uid clears it */
    }
}

/* The environment of a jailed child: only what runtimes and compilers need (an allow-list: an
 * instructor's GRADER_SECRET, say, never reaches a student's program), with HOME and TMPDIR in
 * its folder (POCL keeps its kernel cache under HOME), and the kernel cache when there is one:
 * POCL_CACHE_DIR for POCL, and CUDA_CACHE_PATH a folder in it for NVIDIA's driver, which keeps
 * its compiled kernels under HOME too (on the H200 a hidden size of 09 took 1.5 s, most of it
 * compiling the kernel that the size before had compiled). */
static int cache_variable(const char *entry) {
    return !strncmp(entry, "POCL_CACHE_DIR=", 15) || !strncmp(entry, "CUDA_CACHE_PATH=", 16);
}
static char **jail_environment(const char *dir, const char *kernel_cache) {
    extern char **environ;
    static const char *const keep[] = {
        "PATH=",   "LANG=",   "LC_",   "OCL_ICD", "POCL_", "CUDA_", "LD_LIBRARY_PATH=",
        "DEVICE=", "NVIDIA_", "TERM=", "TZ=",     NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 5, sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (int w = 0; keep[w]; w++)
            if (!strncmp(environ[i], keep[w], strlen(keep[w])) && !cache_variable(environ[i])) {
                envp[k++] = environ[i];
                break;
            }
    size_t len = strlen(dir) + (kernel_cache ? strlen(kernel_cache) : 0) + 24;
    envp[k] = malloc(len);
    envp[k + 1] = malloc(len);
    if (envp[k] && envp[k + 1]) {
        snprintf(envp[k], len, "HOME=%s", dir);
        snprintf(envp[k + 1], len, "TMPDIR=%s", dir);
    }
    if (kernel_cache && envp[k] && envp[k + 1]) {
        envp[k + 2] = malloc(len);
        envp[k + 3] = envp[k + 2] ? malloc(len) : NULL;
        if (envp[k + 2])
            snprintf(envp[k + 2], len, "POCL_CACHE_DIR=%s", kernel_cache);
        if (envp[k + 3])
            snprintf(envp[k + 3], len, "CUDA_CACHE_PATH=%s/nv", kernel_cache);
    }
    return envp;
}
void jail_free_environment(struct jail_plan *jail) {
    if (!jail->envp)
        return;
    for (size_t i = 0; jail->envp[i]; i++)
        if (!strncmp(jail->envp[i], "HOME=", 5) || !strncmp(jail->envp[i], "TMPDIR=", 7) ||
            cache_variable(jail->envp[i]))
            free(jail->envp[i]);
    free(jail->envp);
    jail->envp = NULL;
}

/* Plan the jail and fork the child; control (or NULL) holds the child's ends of its command
 * and reply pipes. 0, or -1 with result filled (it could not start). */
int jail_spawn(const struct grader_jail_settings *js, char *const argv[], const char *out_path,
               const char *jail_dir, const int control[2], struct run_state *st,
               struct grader_run_result *result) {
    memset(result, 0, sizeof *result);
    memset(st, 0, sizeof *st);
    fflush(NULL); /* nothing buffered may be written twice by the child */
    st->jail_dir = jail_dir;
    st->out_path = out_path;
    st->done_when = jail_dir && !control ? js->done_when : NULL;
    st->done_size = -1;
    /* a run started again (a starved one) must not find the last start's complete report */
    if (st->done_when && st->done_when->path)
        unlink(st->done_when->path);
    struct jail_plan *jail = &st->jail;
    /* the grader's channel, made anew for this start (-1: none), before the control groups'
     * descriptors: its ends take the lowest numbers, so its dup2 onto fd 3 in the child never
     * lands on one of those (as the command pipes, made before jail_spawn) */
    int channel = jail_dir && !control && js->channel ? js->channel->open(js->channel->ctx) : -1;
    if (jail_dir) {
        const struct grader_limits *limits = &js->limits;
        st->limits = *limits;
        jail->active = 1;
        jail->dir = jail_dir;
        jail->niceness = js->niceness;
        jail->uid = grader_jail_uid();
        rlim_t cpu = (rlim_t)limits->cpu_seconds;
        jail->cpu = (struct rlimit){cpu, cpu + 5};
        /* RLIMIT_NPROC counts every task of the uid: a uid of our own starts from none */
        long base = jail->uid == (uid_t)-1 ? jail_tasks_of(getuid()) : 0;
        jail->nproc.rlim_cur = jail->nproc.rlim_max = (rlim_t)(base + limits->processes);
        jail->nofile.rlim_cur = jail->nofile.rlim_max = (rlim_t)limits->open_files;
        jail->data.rlim_cur = jail->data.rlim_max =
            limits->memory_bytes > 0 ? (rlim_t)limits->memory_bytes : RLIM_INFINITY;
        jail->envp = jail_environment(jail_dir, js->kernel_cache);
        char why[200];
        if (js->cgroups && grader_cgroup_run_open(js->cgroups, &st->cgroup, limits->memory_bytes,
                                                  limits->processes, why, sizeof why) == 0) {
            jail->cgroup = &st->cgroup;
            if (grader_cgroup_in_force(js->cgroups) & GRADER_CGROUP_HAS_CPU)
                jail->niceness = 0; /* equal CPU weights between students instead of nice levels */
        }
        jail->fsize = limits->disk_bytes > 0 ? (rlim_t)limits->disk_bytes : OUTPUT_CAP;
        if (jail->uid != (uid_t)-1 && chown(jail_dir, jail->uid, jail->uid) != 0) {
            /* never run a student's program as root instead: it would escape RLIMIT_NPROC */
            result->how = RUN_NO_START;
            result->code = errno;
            if (channel >= 0)
                close(channel);
            jail_free_environment(jail);
            return -1;
        }
    }
    st->start = st->last_watch = jail_now();
    jail_starve_start(st);
    st->free_at_start = jail_dir ? jail_free_bytes(jail_dir) : -1;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        result->how = RUN_NO_START;
        result->code = errno;
        if (channel >= 0)
            close(channel);
        jail_free_environment(jail);
        if (st->cgroup.mode)
            grader_cgroup_run_close(&st->cgroup);
        return -1;
    }
    pid_t parent = getpid(); /* the grader, as its child sees it */
    pid_t pid = fork();
    if (pid < 0) {
        result->how = RUN_NO_START;
        result->code = errno;
        close(report[0]);
        close(report[1]);
        if (channel >= 0)
            close(channel);
        jail_free_environment(jail);
        if (st->cgroup.mode)
            grader_cgroup_run_close(&st->cgroup);
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        become_child(parent, out_path, report[1], jail_dir ? jail : NULL, control, channel);
        if (jail_dir && jail->envp)
            execve(argv[0], argv, jail->envp);
        else
            execv(argv[0], argv);
        fail_to_start(report[1]);
    }
    st->pid = pid;
    close(report[1]);
    if (channel >= 0)
        close(channel); /* the child's end: the grader keeps only its own */
    /* exec closes the pipe (nothing read) or the child writes its errno and exits at once */
    if (read(report[0], &st->exec_errno, sizeof st->exec_errno) != (ssize_t)sizeof st->exec_errno)
        st->exec_errno = 0;
    close(report[0]); /* from here on its session and process group exist (or it has ended) */
    return 0;
}