/* jail.h - everything that runs a student's code: the runner (wall-clock limits, process groups,
 * the per-uid watch of memory, disk and processes, control groups), the session and seccomp filter
 * of each child, the bubblewrap sandbox prefix, the jail folders handed to the student's uid, and
 * file helpers. Nothing here knows what an exercise is.
 */
#ifndef GRADER_JAIL_H
#define GRADER_JAIL_H

#include "jail/argv.h"

#include <linux/limits.h> /* PATH_MAX */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ------------------------------------------- running children (run.c, spawn.c, watch.c) */

enum grader_run_how {
    RUN_EXITED,     /* exited; code is its status */
    RUN_SIGNALED,   /* killed by signal code */
    RUN_TIMEOUT,    /* ran past the limit and was killed */
    RUN_NO_START,   /* could not be started (fork or exec failed) */
    RUN_OVER_LIMIT, /* stopped by a watched limit; code is LIMIT_DISK, LIMIT_MEMORY or
                       LIMIT_OUTPUT */
    RUN_TOO_BUSY,   /* stopped at its time limit, twice, having got under a quarter of a CPU
                       while it wanted one: the machine was too busy (not the program's fault) */
    RUN_DONE,       /* stopped once the file it reports into said it would report nothing more
                       (grader_jail_settings.done_when) */
};
#define LIMIT_DISK   1
#define LIMIT_MEMORY 2
#define LIMIT_OUTPUT                                                                               \
    3 /* the disk limit, passed mostly by the run's own output (stdout, stderr)                    \
       */

struct grader_run_result {
    enum grader_run_how how;
    int code;       /* exit status or signal number */
    double seconds; /* wall time */
};

/* What a student's own processes (its build and its host program) may use. */
struct grader_limits {
    double cpu_seconds;     /* RLIMIT_CPU of each process */
    long processes;         /* RLIMIT_NPROC: tasks (threads too) at once */
    long open_files;        /* RLIMIT_NOFILE */
    long long memory_bytes; /* RLIMIT_DATA of each process, and resident memory of them all */
    long long disk_bytes;   /* what its folder may hold */
};

struct grader_cgroup_student;

/* A run whose only product is a report file is over once that file ends with a line that says
 * nothing more will come: oclgrind at its --max-errors goes on interpreting the kernel (a missing
 * barrier in 09 at its graded tiles: 1.6 s to reach 5000 errors, then 80 s more) but writes
 * nothing. The watch reads the file's last JAIL_DONE_BYTES whenever its size changed. */
#define JAIL_DONE_BYTES 256
struct grader_jail_done_when {
    const char *path; /* the report file */
    const char *tail; /* text its last JAIL_DONE_BYTES hold then */
};

/* A channel a jailed run gets as its fd GRADER_CHANNEL_FD: open(ctx) is called before each start
 * of the run (a run starved is started once more) and returns the child's end, which the jail
 * closes in the grader once the child holds it; -1 starts the run without one. Only runs without
 * a command channel (grader_run_jailed) take one. */
#define GRADER_CHANNEL_FD 3
struct grader_jail_channel {
    int (*open)(void *ctx);
    void *ctx;
};

/* Everything a jailed run is given besides its command: one struct handed to every call that
 * jails (never module globals set before a call and cleared after). A caller that needs one
 * setting changed for a few runs changes a copy. */
struct grader_jail_settings {
    struct grader_limits limits; /* what the run's processes may use */
    /* a folder (its uid's, or NULL) for POCL's compiled kernels shared by the jailed kernel runs
     * of one exercise (POCL_CACHE_DIR, bound into the sandbox): a kernel is compiled once, not
     * at every run. Student host programs never get it (they could plant a slow binary for the
     * reference) */
    const char *kernel_cache;
    /* the nice value of the runs and of their session (0: the grader's). A student's host
     * program and build run at 19: a fork bomb's processes then leave the CPU to a neighbour's
     * kernel runs (which cannot fork and keep the grader's priority), so they do not time out */
    int niceness;
    /* control groups (cgroup.h) when not NULL: a run's group with the memory and process limits,
     * its CPU time counted, frozen to pause it, killed whole at the end (and equal CPU weights
     * instead of nice levels); NULL: the fallback of uid, rlimits and the watch */
    struct grader_cgroup_student *cgroups;
    /* a channel for each run (grader_run_jailed), or NULL */
    const struct grader_jail_channel *channel;
    /* when the run is over before it ends (grader_run_jailed: RUN_DONE), or NULL */
    const struct grader_jail_done_when *done_when;
};

/* The grader's defaults: 600 s of CPU, 256 tasks, 1024 files, 4 GiB of memory, 512 MiB of disk;
 * no kernel cache, nice 0, no control groups. */
#define GRADER_JAIL_DEFAULTS                                                                       \
    {                                                                                              \
        .limits = {.cpu_seconds = 600,                                                             \
                   .processes = 256,                                                               \
                   .open_files = 1024,                                                             \
                   .memory_bytes = 4LL << 30,                                                      \
                   .disk_bytes = 512LL << 20},                                                     \
        .kernel_cache = NULL, .niceness = 0, .cgroups = NULL, .channel = NULL, .done_when = NULL,  \
    }

/* Run argv[0] with argv in its own process group, stdin from /dev/null, stdout and stderr
 * appended to out_path (created anew), with a wall-clock limit of timeout seconds; the whole
 * group is killed at the limit and when the child ends (no stray processes). Output files are
 * capped by RLIMIT_FSIZE. Not jailed: for the grader's own trusted programs. Never fails: the
 * outcome is in *result. */
void grader_run(char *const argv[], const char *out_path, double timeout,
                struct grader_run_result *result);

/* grader_run for a student's own program, under js: its limits, HOME and TMPDIR in dir, the
 * folder handed to the student's uid (when root) and watched for size; after the run every
 * process of that uid is killed, even those that left the process group. */
void grader_run_jailed(const struct grader_jail_settings *js, char *const argv[], const char *dir,
                       const char *out_path, double timeout, struct grader_run_result *result);

/* A child that takes commands: it runs like grader_run_jailed under js in dir (or like
 * grader_run when dir is NULL: js is then not read and may be NULL), with its stdin a command
 * channel and its fd 3 a reply channel. Never NULL but out of memory; when it could not start,
 * grader_finish says why. */
struct grader_child;
struct grader_child *grader_start(const struct grader_jail_settings *js, char *const argv[],
                                  const char *dir, const char *out_path);
/* Send one command line (none when NULL) and read one reply line (without its newline) within
 * timeout seconds, watching the child's limits meanwhile: 0, or -1 when it ended, broke the
 * protocol, or was stopped (at its time or a limit: grader_finish tells). */
int grader_child_ask(struct grader_child *c, const char *command, char *reply, size_t size,
                     double timeout);
/* Stop (SIGSTOP) or continue every process of the child's session: a paused child cannot work
 * while another is timed. */
void grader_child_pause(struct grader_child *c, int paused);
/* No watch of its limits for the next `seconds` of grader_child_ask (0: watch again): a reply
 * that comes while the grader walks /proc would be read late, and a timed command's time with it.
 * The kernel's own limits (control groups, rlimits) hold meanwhile, and the watch resumes after. */
void grader_child_quiet(struct grader_child *c, double seconds);
/* The CPU seconds the child has had so far (its control group's count, else its threads'), -1
 * when it is not running: what a timed launch got of the machine. */
double grader_child_cpu_seconds(const struct grader_child *c);
/* The seconds the child's threads have waited for a CPU they wanted while other tasks held it
 * (the kernel's run-queue count), -1 when it is not running: what a busy machine took from a
 * timed launch, whatever its threads did with the CPU they got (spinning included). */
double grader_child_waited_seconds(const struct grader_child *c);
/* Close its commands, wait up to timeout seconds for it to end, kill what is left, free c. */
void grader_finish(struct grader_child *c, double timeout, struct grader_run_result *result);

/* The uid student processes run as when the grader is root (an unused one, random per grader
 * process and the same for all its runs), or (uid_t)-1 when the grader is not root or
 * GRADER_NO_UID is set. */
uid_t grader_jail_uid(void);

/* In a child before exec (system calls only): a session of its own, whose autogroup gets that
 * nice value (1..19; 0 leaves it), and a seccomp filter under which setsid() fails with EPERM, so
 * nothing it starts takes a CPU share of its own (the kernel shares the CPU between sessions
 * first). Also sets no_new_privs. 0, or -1 with errno. */
int grader_enter_own_session(int niceness);

/* One line describing a run outcome, e.g. "crashed with SIGSEGV (signal 11)". */
void grader_describe_run(const struct grader_run_result *r, char *buf, size_t size);

/* ---------------------------------------------------------------- file helpers (folders.c) */

/* The first executable `name` on $PATH (a regular file) into path: 0, or -1 if there is none. */
int grader_find_program(const char *name, char *path, size_t size);

/* FNV-1a of bytes; of a file's bytes (0 if unreadable): names a cache entry after its source. */
uint64_t grader_fnv1a(const void *data, size_t length);
uint64_t grader_file_hash(const char *path);

/* rm -rf of a folder of the grader's own. */
void grader_remove_tree(const char *path);

/* At most max bytes of a file: the head and the tail of it when longer, with a note between.
 * Returns a malloc'd string ("" for a missing file). */
char *grader_read_capped(const char *path, size_t max);

/* ---------------------------------------------------------------- the sandbox (sandbox.c) */

#define SANDBOX_NONE      0
#define SANDBOX_OWN_PROC  1 /* bubblewrap with a /proc of its own */
#define SANDBOX_HOST_PROC 2 /* inside another sandbox: /proc cannot be mounted, it is bound */
#define SANDBOX_HIDDEN    3 /* folders a sandbox hides */

struct grader_sandbox {
    int mode; /* SANDBOX_* */
    char hidden[SANDBOX_HIDDEN]
               [PATH_MAX]; /* what the student's processes must not see ("": none) */
};

/* The bubblewrap prefix for a student's build or program writing only to dir (and to
 * js->kernel_cache when set), pushed onto argv (nothing without a sandbox). Returns 1 if it
 * pushed a prefix. */
int grader_sandbox_push(const struct grader_jail_settings *js, const struct grader_sandbox *sb,
                        const char *dir, struct grader_argv *argv);

/* ---------------------------------------------------------------- jail folders (folders.c) */

/* A folder for a student's own processes that their uid can reach wherever the work folder is:
 * /tmp/clmm-host-XXXXXX/w (the grader's top folder, 0711). 0, or -1. Removed with the other. */
int grader_jail_dir_make(char *dir, size_t size);
void grader_jail_dir_remove(const char *dir);
/* The folder of a jailed harness run: the grader's own executable (self) and the kernel copied in
 * (the student's uid may not reach the originals). */
struct grader_jail {
    char dir[PATH_MAX];         /* from grader_jail_dir_make */
    char self[PATH_MAX + 16];   /* the grader, copied */
    char kernel[PATH_MAX + 16]; /* the kernel, copied */
};
int grader_jail_open(const char *self, const char *kernel, struct grader_jail *j);
void grader_make_dirs(const char *path); /* mkdir -p */
/* Copy one of the workbook's own files (trusted: no size limit). 0, or -1. */
int grader_copy_trusted(const char *from, const char *to);
/* Copy a student's source: a plain file (no link, FIFO or device) of at most 1 MB. 0, or -1 with
 * the reason in why. */
int grader_copy_source(const char *from, const char *to, char *why, size_t why_size);

#endif
