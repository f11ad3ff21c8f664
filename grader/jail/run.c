/* run.c - running a student's program (or a harness child running a student's kernel) so that
 * nothing it does can hang or crash the grader: its own session, a wall-clock limit, capped
 * output, and the whole group killed when it ends. */
#define _GNU_SOURCE /* strsignal, kill, setresuid, nftw */
#include "jail/jail.h"
#include "clu.h"
#include "jail/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <ftw.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
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

/* The limits of a jailed child, prepared by the parent (the child only calls setrlimit). */
struct jail_plan {
    int active;
    uid_t uid; /* (uid_t)-1: keep the grader's */
    struct rlimit cpu, nproc, nofile, data;
    char **envp;
    const char *dir;                        /* its working folder */
    rlim_t fsize;                           /* no file larger than the folder may hold */
    int niceness;                           /* a program that may fork runs at low priority */
    const struct grader_cgroup_run *cgroup; /* the run's groups to enter (NULL: none) */
};

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

/* A child's control channel: commands come on its stdin, replies go out on fd 3. */
#define REPLY_FD 3

static void become_child(pid_t parent, const char *out_path, int report_fd,
                         const struct jail_plan *jail, const int control[2]) {
    /* a session (so a process group) of its own, which it cannot leave (session.c) */
    if (grader_enter_own_session(jail && jail->active ? jail->niceness : 0) != 0)
        fail_to_start(report_fd);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a grader killed half-way leaves nothing running */
    if (getppid() != parent)          /* it died before the line above */
        _exit(127);
    /* every descriptor it keeps moved above the ones it gets first, so no dup2 clobbers one */
    int in = control ? control[0] : open("/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int high[4] = {report_fd, in, out, control ? control[1] : -1};
    for (int i = 0; i < 4; i++)
        if (high[i] >= 0 && (high[i] = fcntl(high[i], F_DUPFD_CLOEXEC, 10)) < 0)
            fail_to_start(report_fd);
    report_fd = high[0];
    if (dup2(high[1], STDIN_FILENO) < 0 || dup2(high[2], STDOUT_FILENO) < 0 ||
        dup2(high[2], STDERR_FILENO) < 0 || (control && dup2(high[3], REPLY_FD) < 0))
        fail_to_start(report_fd);
    close_at_exec_from(control ? REPLY_FD + 1 : STDERR_FILENO + 1);
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

/* Bytes a folder holds (allocated blocks), summed by nftw. */
static long long folder_bytes_sum, folder_entries;
static int add_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)path, (void)flag, (void)ftw;
    folder_bytes_sum += (long long)st->st_blocks * 512;
    folder_entries++;
    return 0;
}

static long long folder_bytes(const char *dir) {
    folder_bytes_sum = folder_entries = 0;
    nftw(dir, add_entry, 16, FTW_PHYS);
    /* empty files cost no blocks but an inode each: count every entry as a block */
    return folder_bytes_sum + folder_entries * 4096;
}

/* Free bytes of the file system holding dir (-1 if unknown): files deleted while still open
 * are in no folder, but they still take its space. */
static long long free_bytes(const char *dir) {
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return -1;
    return (long long)fs.f_bavail * (long long)fs.f_frsize;
}

/* Kill every process of uid, wherever it went (another session, another process group): a
 * child that takes the uid and signals everything it may signal. */
static void kill_all_of(uid_t uid) {
    pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
            setresuid(uid, uid, uid) != 0)
            _exit(1);
        for (int round = 0; round < 1000 && kill(-1, SIGKILL) == 0; round++)
            ;
        _exit(0);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

/* Calls visit("/proc/PID", context) for every process uid owns now; returns the sum of what the
 * calls return. */
static long each_process_of(uid_t uid, long (*visit)(const char *dir, void *context),
                            void *context) {
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    long sum = 0;
    struct dirent *e;
    while ((e = readdir(proc)) != NULL) {
        char dir[300];
        struct stat st;
        snprintf(dir, sizeof dir, "/proc/%s", e->d_name);
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && stat(dir, &st) == 0 && st.st_uid == uid)
            sum += visit(dir, context);
    }
    closedir(proc);
    return sum;
}

static long count_tasks(const char *dir, void *context) {
    (void)context;
    char path[320];
    snprintf(path, sizeof path, "%s/task", dir);
    DIR *tasks = opendir(path);
    if (!tasks)
        return 0;
    long count = 0;
    struct dirent *t;
    while ((t = readdir(tasks)) != NULL)
        count += t->d_name[0] != '.';
    closedir(tasks);
    return count;
}

/* Tasks (threads included: RLIMIT_NPROC counts them) that uid runs now. */
static long tasks_of(uid_t uid) {
    return each_process_of(uid, count_tasks, NULL);
}

static long unnice_autogroup(const char *dir, void *context) {
    (void)context;
    char path[320];
    snprintf(path, sizeof path, "%s/autogroup", dir);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t ignored = write(fd, "0", 1);
        (void)ignored;
        close(fd);
    }
    return 0;
}

/* Every process of uid back to nice 0, its session's autogroup too: killed processes still need
 * CPU time to exit, and a fork bomb's at nice 19 took seconds to go (a later run of the same uid
 * then met RLIMIT_NPROC). */
static void unnice_all_of(uid_t uid) {
    setpriority(PRIO_USER, uid, 0);
    each_process_of(uid, unnice_autogroup, NULL);
}

static long is_live(const char *dir, void *context) {
    (void)context;
    char path[320], stat_line[512];
    snprintf(path, sizeof path, "%s/stat", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(stat_line, 1, sizeof stat_line - 1, f);
    fclose(f);
    stat_line[got] = '\0';
    const char *after_name = strrchr(stat_line, ')'); /* the name may hold spaces and ')' */
    return after_name && after_name[1] == ' ' && after_name[2] != 'Z';
}

/* Processes of uid that are not yet zombies (still running, or still exiting). */
static long live_processes_of(uid_t uid) {
    return each_process_of(uid, is_live, NULL);
}

static long resident_bytes(const char *dir, void *context) {
    (void)context;
    char path[320], line[256];
    snprintf(path, sizeof path, "%s/status", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    long rss_kb = 0;
    while (fgets(line, sizeof line, f) && sscanf(line, "VmRSS: %ld kB", &rss_kb) != 1)
        ;
    fclose(f);
    return rss_kb * 1024;
}

/* Resident memory of every process of uid, in bytes (from /proc/PID/status). */
static long long resident_bytes_of(uid_t uid) {
    return each_process_of(uid, resident_bytes, NULL);
}

/* Kill every process of uid and wait (up to 5 s) until none is still running or exiting: the
 * next run of that uid starts with its whole RLIMIT_NPROC (zombies go with their parent, the
 * sandbox's init or the system's). */
static void end_all_of(uid_t uid) {
    unnice_all_of(uid);
    for (int round = 0; round < 500; round++) {
        kill_all_of(uid);
        if (live_processes_of(uid) == 0)
            return;
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

/* The uid is one per grader process, not a setting: every run of the process must share it, so
 * that RLIMIT_NPROC counts and the kill of everything of the uid see all of them. */
static uid_t jail_uid = (uid_t)-1;
static int jail_uid_chosen;

uid_t grader_jail_uid(void) {
    if (jail_uid_chosen)
        return jail_uid;
    jail_uid_chosen = 1;
    if (geteuid() != 0 || getenv("GRADER_NO_UID"))
        return jail_uid;
    /* an unused uid of its own, so that parallel graders never count or kill each other's
     * processes: random in a range no distribution hands out */
    uint32_t r = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t)sizeof r)
        r = (uint32_t)getpid() * 2654435761u;
    if (fd >= 0)
        close(fd);
    jail_uid = (uid_t)(0x3f000000u + (r & 0xffffffu));
    return jail_uid;
}

/* The environment of a jailed child: only what runtimes and compilers need (an allow-list: an
 * instructor's GRADER_SECRET, say, never reaches a student's program), with HOME and TMPDIR in
 * its folder (POCL keeps its kernel cache under HOME), and POCL_CACHE_DIR the kernel cache when
 * there is one. */
static char **jail_environment(const char *dir, const char *kernel_cache) {
    extern char **environ;
    static const char *const keep[] = {
        "PATH=",   "LANG=",   "LC_",   "OCL_ICD", "POCL_", "CUDA_", "LD_LIBRARY_PATH=",
        "DEVICE=", "NVIDIA_", "TERM=", "TZ=",     NULL};
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 4, sizeof *envp);
    if (!envp)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (int w = 0; keep[w]; w++)
            if (!strncmp(environ[i], keep[w], strlen(keep[w])) &&
                strncmp(environ[i], "POCL_CACHE_DIR=", 15) != 0) {
                envp[k++] = environ[i];
                break;
            }
    size_t len = strlen(dir) + (kernel_cache ? strlen(kernel_cache) : 0) + 20;
    envp[k] = malloc(len);
    envp[k + 1] = malloc(len);
    if (envp[k] && envp[k + 1]) {
        snprintf(envp[k], len, "HOME=%s", dir);
        snprintf(envp[k + 1], len, "TMPDIR=%s", dir);
    }
    if (kernel_cache && envp[k] && envp[k + 1]) {
        envp[k + 2] = malloc(len);
        if (envp[k + 2])
            snprintf(envp[k + 2], len, "POCL_CACHE_DIR=%s", kernel_cache);
    }
    return envp;
}

/* Everything about one running child, from its start to its cleanup. */
struct run_state {
    struct jail_plan jail;           /* its limits and uid (jail.active: a student's) */
    struct grader_limits limits;     /* what it may use (jailed): the watch holds it to them */
    const char *jail_dir;            /* its folder, watched for size (NULL: not jailed) */
    const char *out_path;            /* its output log: counted in the folder's budget, then cut */
    pid_t pid;                       /* the child, leader of a session of its own */
    double start, last_watch;        /* monotonic seconds */
    long long free_at_start;         /* free bytes of its folder's file system at the start */
    int exec_errno;                  /* why exec failed (0: it did not) */
    double cpu_seen, busy_wait;      /* CPU seconds its processes got; seconds some wanted a CPU */
    double cpu_last;                 /* the CPU seconds at the last sample */
    struct grader_cgroup_run cgroup; /* its groups, when cgroups are in force (mode NONE: not) */
};

static void free_environment(struct jail_plan *jail) {
    if (!jail->envp)
        return;
    for (size_t i = 0; jail->envp[i]; i++)
        if (!strncmp(jail->envp[i], "HOME=", 5) || !strncmp(jail->envp[i], "TMPDIR=", 7) ||
            !strncmp(jail->envp[i], "POCL_CACHE_DIR=", 15))
            free(jail->envp[i]);
    free(jail->envp);
    jail->envp = NULL;
}

/* Plan the jail and fork the child; control (or NULL) holds the child's ends of its command
 * and reply pipes. 0, or -1 with result filled (it could not start). */
static int spawn(const struct grader_jail_settings *js, char *const argv[], const char *out_path,
                 const char *jail_dir, const int control[2], struct run_state *st,
                 struct grader_run_result *result) {
    memset(result, 0, sizeof *result);
    memset(st, 0, sizeof *st);
    fflush(NULL); /* nothing buffered may be written twice by the child */
    st->jail_dir = jail_dir;
    st->out_path = out_path;
    struct jail_plan *jail = &st->jail;
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
        long base = jail->uid == (uid_t)-1 ? tasks_of(getuid()) : 0;
        jail->nproc.rlim_cur = jail->nproc.rlim_max = (rlim_t)(base + limits->processes);
        jail->nofile.rlim_cur = jail->nofile.rlim_max = (rlim_t)limits->open_files;
        jail->data.rlim_cur = jail->data.rlim_max =
            limits->memory_bytes > 0 ? (rlim_t)limits->memory_bytes : RLIM_INFINITY;
        jail->envp = jail_environment(jail_dir, js->kernel_cache);
        char why[200];
        if (js->cgroups && grader_cgroup_run_open(js->cgroups, &st->cgroup, limits->memory_bytes,
                                                  limits->processes, why, sizeof why) == 0) {
            jail->cgroup = &st->cgroup;
            jail->niceness = 0; /* equal CPU weights between students instead of nice levels */
        }
        jail->fsize = limits->disk_bytes > 0 ? (rlim_t)limits->disk_bytes : OUTPUT_CAP;
        if (jail->uid != (uid_t)-1 && chown(jail_dir, jail->uid, jail->uid) != 0) {
            /* never run a student's program as root instead: it would escape RLIMIT_NPROC */
            result->how = RUN_NO_START;
            result->code = errno;
            free_environment(jail);
            return -1;
        }
    }
    st->start = st->last_watch = now();
    st->free_at_start = jail_dir ? free_bytes(jail_dir) : -1;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        result->how = RUN_NO_START;
        result->code = errno;
        free_environment(jail);
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
        free_environment(jail);
        if (st->cgroup.mode)
            grader_cgroup_run_close(&st->cgroup);
        return -1;
    }
    if (pid == 0) {
        close(report[0]);
        become_child(parent, out_path, report[1], jail_dir ? jail : NULL, control);
        if (jail_dir && jail->envp)
            execve(argv[0], argv, jail->envp);
        else
            execv(argv[0], argv);
        fail_to_start(report[1]);
    }
    st->pid = pid;
    close(report[1]);
    /* exec closes the pipe (nothing read) or the child writes its errno and exits at once */
    if (read(report[0], &st->exec_errno, sizeof st->exec_errno) != (ssize_t)sizeof st->exec_errno)
        st->exec_errno = 0;
    close(report[0]); /* from here on its session and process group exist (or it has ended) */
    return 0;
}

/* The session of a process (field 6 of /proc/PID/stat), its state letter and its CPU seconds
 * (utime + stime, threads included). -1 if it is gone. */
static pid_t session_of(const char *dir, char *state, double *cpu) {
    char path[320], line[1024];
    snprintf(path, sizeof path, "%s/stat", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, line, sizeof line - 1);
    close(fd);
    if (got <= 0)
        return -1;
    line[got] = '\0';
    const char *after_name = strrchr(line, ')'); /* the name may hold spaces and ')' */
    int session = -1;
    unsigned long utime = 0, stime = 0;
    char letter = '?';
    if (!after_name || sscanf(after_name + 2, "%c %*d %*d %d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                              &letter, &session, &utime, &stime) != 4)
        return -1;
    if (state)
        *state = letter;
    if (cpu)
        *cpu = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
    return (pid_t)session;
}

/* Calls visit(pid) for every process of the session sid (the child's: none of them can leave
 * it, session.c) and returns how many there were; *cpu sums their CPU seconds and *runnable
 * counts those running or waiting for a CPU. */
static int each_in_session(pid_t sid, void (*visit)(pid_t pid), double *cpu, int *runnable) {
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(proc)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char dir[300], state = '?';
        double seconds = 0;
        snprintf(dir, sizeof dir, "/proc/%s", e->d_name);
        if (session_of(dir, &state, &seconds) != sid)
            continue;
        count++;
        if (cpu)
            *cpu += seconds;
        if (runnable)
            *runnable += state == 'R';
        if (visit)
            visit((pid_t)atoi(e->d_name));
    }
    closedir(proc);
    return count;
}

/* One sample of what the child's processes got from the CPU and whether they wanted more:
 * a run stopped at its time limit that got little of what it wanted was not at fault. */
static void sample_cpu(struct run_state *st, double interval) {
    double cpu = 0;
    int runnable = 0;
    each_in_session(st->pid, NULL, &cpu, &runnable);
    double counted = st->cgroup.mode ? grader_cgroup_run_cpu_seconds(&st->cgroup) : -1;
    if (counted >= 0) /* the kernel's count, the ended processes' seconds included */
        cpu = counted;
    if (cpu > st->cpu_last) /* a process that ended takes its seconds along: never negative */
        st->cpu_seen += cpu - st->cpu_last;
    st->cpu_last = cpu;
    if (runnable)
        st->busy_wait += interval;
}

/* Whether a run that hit its time limit wanted the CPU most of the time but got less than a
 * quarter of one: the machine was too busy, not the student's program too slow. */
static int starved(const struct run_state *st) {
    return st->busy_wait > 0.5 * (now() - st->start) && st->cpu_seen < 0.25 * st->busy_wait;
}

/* Bytes held by files that are in no folder: memfds and deleted files its processes keep open
 * (written, never mapped, they are in neither RLIMIT_DATA nor the resident size). */
struct hidden_files {
    long long bytes;      /* their allocated bytes */
    struct stat seen[64]; /* a file open twice counts once (the first 64 told apart) */
    int seen_count;
};
static long add_hidden_files(const char *dir, void *context) {
    struct hidden_files *hidden_sum = context;
    char path[320];
    snprintf(path, sizeof path, "%s/fd", dir);
    DIR *fds = opendir(path);
    if (!fds)
        return 0;
    struct dirent *e;
    while ((e = readdir(fds)) != NULL) {
        char fd_path[640], target[64];
        struct stat st;
        snprintf(fd_path, sizeof fd_path, "%s/%s", path, e->d_name);
        ssize_t length = readlink(fd_path, target, sizeof target - 1);
        if (length <= 0 || stat(fd_path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        target[length] = '\0';
        if (strncmp(target, "/memfd:", 7) != 0 && !strstr(target, " (deleted)") &&
            strncmp(target, "/dev/shm/", 9) != 0)
            continue;
        int known = 0;
        for (int i = 0; i < hidden_sum->seen_count && !known; i++)
            known =
                hidden_sum->seen[i].st_ino == st.st_ino && hidden_sum->seen[i].st_dev == st.st_dev;
        if (known)
            continue;
        if (hidden_sum->seen_count < 64)
            hidden_sum->seen[hidden_sum->seen_count++] = st;
        hidden_sum->bytes += (long long)st.st_blocks * 512;
    }
    closedir(fds);
    return 0;
}

static long long hidden_bytes_of(uid_t uid) {
    struct hidden_files sum = {0};
    each_process_of(uid, add_hidden_files, &sum);
    return sum.bytes;
}

/* The limits rlimits cannot hold: the folder's size, the memory of all its processes. 0, or
 * LIMIT_DISK or LIMIT_MEMORY when one is passed. */
static int over_limit(const struct run_state *st) {
    if (!st->jail_dir)
        return 0;
    struct stat log;
    long long log_bytes = stat(st->out_path, &log) == 0 ? (long long)log.st_blocks * 512 : 0;
    const struct grader_limits *limits = &st->limits;
    if (limits->disk_bytes > 0 &&
        (folder_bytes(st->jail_dir) + log_bytes > limits->disk_bytes ||
         (st->free_at_start >= 0 &&
          st->free_at_start - free_bytes(st->jail_dir) > 2 * limits->disk_bytes)))
        return LIMIT_DISK;
    if (st->cgroup.mode && grader_cgroup_run_memory_hit(&st->cgroup) == 2)
        return LIMIT_MEMORY;
    if (st->jail.uid != (uid_t)-1 && limits->memory_bytes > 0 &&
        resident_bytes_of(st->jail.uid) + hidden_bytes_of(st->jail.uid) > limits->memory_bytes)
        return LIMIT_MEMORY;
    return 0;
}

static void stop_run(struct run_state *st, enum grader_run_how how, int code,
                     struct grader_run_result *result, int *status) {
    kill(-st->pid, SIGKILL);
    waitpid(st->pid, status, 0);
    result->how = how;
    result->code = code;
    result->seconds = now() - st->start;
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
        if (now() - st->start > timeout) {
            stop_run(st, starved(st) ? RUN_TOO_BUSY : RUN_TIMEOUT, 0, result, &status);
            return;
        }
        if (st->jail_dir && now() - st->last_watch > 0.1) {
            double interval = now() - st->last_watch;
            st->last_watch = now();
            sample_cpu(st, interval);
            int code = over_limit(st);
            if (code) {
                stop_run(st, RUN_OVER_LIMIT, code, result, &status);
                return;
            }
        }
        struct timespec nap = {0, 5 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    result->seconds = now() - st->start;
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
        end_all_of(st->jail.uid); /* and anything of its uid */
    if (st->jail_dir)
        cut_log(st->out_path);
    free_environment(&st->jail);
}

static void run_child(const struct grader_jail_settings *js, char *const argv[],
                      const char *out_path, double timeout, const char *jail_dir,
                      struct grader_run_result *result) {
    /* a run stopped at its limit while the machine starved it is run once more */
    for (int attempt = 0; attempt < 2; attempt++) {
        struct run_state st;
        if (spawn(js, argv, out_path, jail_dir, NULL, &st, result) != 0)
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
    int started = spawn(js, argv, out_path, dir, control, &c->st, &c->result) == 0;
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
    case RUN_OVER_LIMIT:
        snprintf(buf, size, "was stopped after %.1f s: %s", r->seconds,
                 r->code == LIMIT_DISK
                     ? "its folder grew past the disk limit (a loop writing files?)"
                     : "its processes used more memory than allowed");
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
    double deadline = now() + timeout;
    size_t used = 0;
    for (;;) {
        double left = deadline - now();
        if (left <= 0) {
            int status;
            stop_run(&c->st, starved(&c->st) ? RUN_TOO_BUSY : RUN_TIMEOUT, 0, &c->result, &status);
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
        double interval = now() - c->st.last_watch;
        if (c->st.jail_dir && interval > 0.1) {
            c->st.last_watch = now();
            sample_cpu(&c->st, interval);
            int code = over_limit(&c->st);
            if (code) {
                int status;
                stop_run(&c->st, RUN_OVER_LIMIT, code, &c->result, &status);
                c->running = 0;
                return -1;
            }
        }
    }
}

static void signal_process(pid_t pid, int signal_number) {
    kill(pid, signal_number);
}
static void stop_process(pid_t pid) {
    signal_process(pid, SIGSTOP);
}
static void continue_process(pid_t pid) {
    signal_process(pid, SIGCONT);
}

void grader_child_pause(struct grader_child *c, int paused) {
    if (!c->running)
        return;
    if (c->st.cgroup.mode) {
        grader_cgroup_run_freeze(&c->st.cgroup, paused);
        return;
    }
    /* twice: a process forked while the first pass ran is caught by the second */
    for (int pass = 0; pass < 2; pass++)
        each_in_session(c->st.pid, paused ? stop_process : continue_process, NULL, NULL);
}

void grader_finish(struct grader_child *c, double timeout, struct grader_run_result *result) {
    if (c->commands >= 0)
        close(c->commands); /* end of commands: a well-behaved child exits */
    if (c->running) {
        grader_child_pause(c, 0);
        wait_for(&c->st, now() - c->st.start + timeout, &c->result);
    }
    if (c->st.pid > 0)
        clean_up(&c->st);
    if (c->replies >= 0)
        close(c->replies);
    *result = c->result;
    free(c);
}
