/* test_jail.c - unit tests (cmocka) of grader_run_jailed, the runner of a student's own programs:
 * small programs run through /bin/sh -c in a fresh folder under tight limits (disk 8 MB, memory
 * 256 MB, 64 processes, 64 open files, 20 s of CPU).
 *
 * Every run: a normal program exits 0 and writes in its folder (HOME, TMPDIR and the working
 * folder are the folder; the rlimits are in place), exit codes, signals and a program that does
 * not exist are told apart, a program past its time is stopped with its background children, a
 * CPU-bound loop dies of SIGXCPU, a disk filler ends as RUN_OVER_LIMIT/LIMIT_DISK, a single
 * memory hog dies of RLIMIT_DATA (or the memory watch), a run leads a session of its own whose
 * autogroup carries the nice value asked for; a program forking children that spin 8 ms each for
 * ever (reaped, reaped by the kernel, or orphaned) ends as a timeout, never as "the machine was
 * too busy", while a run starved by 8 real busy loops on its CPU is not graded; an honest program
 * forking and reaping 80-120 such helpers ends on its own.
 *
 * Only when the test runs as root and the grader really switches to a uid of its own (checked by
 * a probe run first): a fork bomb is held by RLIMIT_NPROC, ends at the wall-clock limit and leaves
 * no process of the uid; setsid is refused, and a process that leaves the process group is killed
 * after the run; processes that each stay under RLIMIT_DATA but together pass the limit end as
 * LIMIT_MEMORY; the program cannot write outside its folder; a filler of world-writable /tmp is
 * stopped as LIMIT_DISK, and a run is not stopped for what a neighbour writes meanwhile. Without
 * the uid switch those cases are skipped with the reason (RLIMIT_NPROC does not bind root, and
 * nothing else kills escaped processes).
 *
 * Run twice: with the fallback (uid, rlimits, the watch), then with control groups where they can
 * be made, each controller in force or not (GRADER_CGROUPS=v1 or v2 picks the version).
 *
 * Random choices come from a seed chosen at run time and printed at the start and in every
 * failure; TEST_JAIL_SEED=<seed> repeats a run. Built and run by tests/run.sh from the repository
 * root (with every grader source but main.c).
 */
#define _GNU_SOURCE /* mkdtemp, nftw, prctl, setresuid, strcasestr */
#include "grader.h"
#include "jail/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <inttypes.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

/* ---------------------------------------------------------------- seeds, checks */

#include "testkit.h"

/* ---------------------------------------------------------------- the jail's folders and limits */

/* The limits every test runs under (a test may tighten one). */
static const struct grader_limits tight = {
    .cpu_seconds = 20,
    .processes = 64,
    .open_files = 64,
    .memory_bytes = 256LL << 20,
    .disk_bytes = 8LL << 20,
};

static struct grader_jail_settings g_js; /* every run's: tight limits, this round's cgroups */
static char g_top[64];                   /* /tmp/test_jail.XXXXXX, 0711, owned by us */
static char g_dir[128];                  /* this test's folder: g_top/wN, handed to the program */
static char g_out[128];                  /* its stdout and stderr: g_top/outN.txt */
static char g_hog[128];                  /* the memory hog, compiled at start ("" if cc failed) */
static uid_t g_uid;                      /* grader_jail_uid() */
static int g_contained;                  /* the probe ran as g_uid: the hostile cases may run */
static char g_not_contained[1024];       /* why not */
static int g_test_no;
static int g_cgroups;       /* this round runs with control groups */
static unsigned g_in_force; /* and these of their controllers (GRADER_CGROUP_HAS_*) */

static void reap(void) {
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
}

/* Processes (zombies counted apart) whose real, effective or saved uid is uid. */
static int processes_of(uid_t uid, int *zombies) {
    DIR *proc = opendir("/proc");
    int live = 0;
    if (zombies)
        *zombies = 0;
    if (!proc)
        return 0;
    struct dirent *e;
    while ((e = readdir(proc)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int zombie = 0, mine = 0;
        while (fgets(line, sizeof line, f)) {
            unsigned long real, effective, saved;
            char state;
            if (sscanf(line, "State: %c", &state) == 1)
                zombie = state == 'Z' || state == 'X';
            else if (sscanf(line, "Uid: %lu %lu %lu", &real, &effective, &saved) == 3) {
                mine = real == uid || effective == uid || saved == uid;
                break;
            }
        }
        fclose(f);
        if (mine && zombie && zombies)
            (*zombies)++;
        else if (mine && !zombie)
            live++;
    }
    closedir(proc);
    return live;
}

/* Reap what came back to us and wait up to 2 s for the uid to have no process at all. */
static void check_none_left(uid_t uid, const char *after) {
    int live = 0, zombies = 0;
    for (double end = now() + 2; now() < end; nap(0.01)) {
        reap();
        live = processes_of(uid, &zombies);
        if (live == 0 && zombies == 0)
            return;
    }
    CHECK(live == 0 && zombies == 0, "after %s, uid %u still has %d processes (%d zombies)", after,
          (unsigned)uid, live, zombies);
}

static void run_argv(char *const argv[], double timeout, struct grader_run_result *r) {
    grader_run_jailed(&g_js, argv, g_dir, g_out, timeout, r);
}

static void run_sh(const char *script, double timeout, struct grader_run_result *r) {
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    run_argv(argv, timeout, r);
}

static const char *describe(const struct grader_run_result *r) {
    static char buf[400];
    grader_describe_run(r, buf, sizeof buf);
    return buf;
}

/* A file of the folder (or of g_top with "../"), trailing newline cut; NULL if missing. */
static char *read_back(const char *name) {
    char path[300];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    char *text = clu_read_file(path, NULL);
    if (text) {
        size_t len = strlen(text);
        while (len > 0 && text[len - 1] == '\n')
            text[--len] = '\0';
    }
    return text;
}

static long long folder_size_sum;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)path, (void)flag, (void)ftw;
    folder_size_sum += (long long)st->st_blocks * 512;
    return 0;
}

static long long folder_size(const char *dir) {
    folder_size_sum = 0;
    nftw(dir, add_size, 16, FTW_PHYS);
    return folder_size_sum;
}

/* Kill every process of uid as the uid itself does (kill(-1) from a child that takes the uid):
 * the test's own safety net, so that a failed test never leaves a program of the jail running. */
static void kill_everything_of(uid_t uid) {
    pid_t killer = fork();
    if (killer == 0) {
        if (setgroups(0, NULL) == 0 && setresgid(uid, uid, uid) == 0 &&
            setresuid(uid, uid, uid) == 0)
            for (int i = 0; i < 1000 && kill(-1, SIGKILL) == 0; i++)
                ;
        _exit(0);
    }
    if (killer > 0)
        waitpid(killer, NULL, 0);
}

/* A fresh folder for the test, as grade_exercise.c makes it: g_top is 0711, the folder 0755. */
static int test_setup(void **state) {
    (void)state;
    g_test_no++;
    snprintf(g_dir, sizeof g_dir, "%s/w%d", g_top, g_test_no);
    snprintf(g_out, sizeof g_out, "%s/out%d.txt", g_top, g_test_no);
    if (mkdir(g_dir, 0755) != 0) {
        print_error("mkdir %s: %s\n", g_dir, strerror(errno));
        return -1;
    }
    g_js.limits = tight;
    g_js.niceness = 0;
    return 0;
}

static int test_teardown(void **state) {
    (void)state;
    if (g_contained)
        kill_everything_of(g_uid);
    grader_remove_tree(g_dir);
    reap();
    return 0;
}

static const char hog_source[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <unistd.h>\n"
    "/* hog MB PROCS: PROCS processes, each touching MB megabytes, then sleeping */\n"
    "int main(int argc, char **argv) {\n"
    "    long mb = argc > 1 ? atol(argv[1]) : 0;\n"
    "    int procs = argc > 2 ? atoi(argv[2]) : 1;\n"
    "    for (int i = 1; i < procs; i++)\n"
    "        if (fork() == 0)\n"
    "            break;\n"
    "    for (long i = 0; i < mb; i++) {\n"
    "        volatile char *p = malloc(1 << 20);\n"
    "        if (!p) {\n"
    "            printf(\"malloc failed after %ld MB\\n\", i);\n"
    "            return 3;\n"
    "        }\n"
    "        for (long k = 0; k < (1 << 20); k += 4096)\n"
    "            p[k] = 1;\n"
    "    }\n"
    "    sleep(30);\n"
    "    return 0;\n"
    "}\n";

static int group_setup(void **state) {
    (void)state;
    if (testkit_start("test_jail", "TEST_JAIL_SEED", g_top, sizeof g_top) != 0)
        return -1;
    if (chmod(g_top, 0711) != 0) {
        print_error("chmod %s: %s\n", g_top, strerror(errno));
        return -1;
    }
    /* what the jailed programs leave behind comes back to us to be reaped (an init that does
     * not reap would otherwise keep them as zombies of the uid) */
    prctl(PR_SET_CHILD_SUBREAPER, 1);

    char src[128], cmd[400];
    snprintf(src, sizeof src, "%s/hog.c", g_top);
    snprintf(g_hog, sizeof g_hog, "%s/hog", g_top);
    FILE *f = fopen(src, "w");
    int ok = f && fputs(hog_source, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    snprintf(cmd, sizeof cmd, "cc -O0 -o '%s' '%s' 2>&1", g_hog, src);
    if (!ok || system(cmd) != 0 || chmod(g_hog, 0755) != 0) {
        print_message("note: cannot compile the memory hog with cc: its tests are skipped\n");
        g_hog[0] = '\0';
    }

    /* the hostile cases need the uid switch to work, not only to be planned */
    g_uid = grader_jail_uid();
    if (g_uid == (uid_t)-1) {
        snprintf(g_not_contained, sizeof g_not_contained,
                 "not root (or GRADER_NO_UID set): no uid of its own, RLIMIT_NPROC would not "
                 "bind and escaped processes would not be killed");
        return 0;
    }
    test_setup(NULL);
    struct grader_run_result r;
    run_sh("id -u > uid.txt", 10, &r);
    char *got = read_back("uid.txt");
    struct stat st;
    char want[32];
    snprintf(want, sizeof want, "%u", (unsigned)g_uid);
    g_contained = r.how == RUN_EXITED && r.code == 0 && got && !strcmp(got, want) &&
                  stat(g_dir, &st) == 0 && st.st_uid == g_uid;
    if (!g_contained)
        snprintf(g_not_contained, sizeof g_not_contained,
                 "the probe did not run as uid %u (%s, id -u said \"%.100s\")", (unsigned)g_uid,
                 describe(&r), got ? got : "nothing");
    free(got);
    test_teardown(NULL);
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_top);
    reap();
    return 0;
}

#define NEEDS_CONTAINMENT()                                                                        \
    do {                                                                                           \
        if (!g_contained) {                                                                        \
            print_message("skipped: %s\n", g_not_contained);                                       \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* ---------------------------------------------------------------- tests: ordinary programs */

/* The soft and hard value of one line of /proc/self/limits ("Max processes"), as text. */
static void limit_of(const char *limits, const char *name, char *soft, char *hard) {
    soft[0] = hard[0] = '\0';
    const char *line = limits ? strstr(limits, name) : NULL;
    CHECK(line != NULL, "no \"%s\" in the program's /proc/self/limits:\n%s", name,
          limits ? limits : "(missing)");
    CHECK(sscanf(line + 26, "%31s %31s", soft, hard) == 2, "cannot read \"%.60s\"", line);
}

static void test_normal_program(void **state) {
    (void)state;
    struct grader_run_result r;
    run_sh("echo \"$HOME\" > home.txt; echo \"$TMPDIR\" > tmpdir.txt; pwd -P > cwd.txt; "
           "id -u > uid.txt; cat /proc/self/limits > limits.txt; "
           "mkdir sub && echo deep > sub/file.txt; echo to-stdout; echo to-stderr >&2; exit 0",
           10, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "a normal program %s", describe(&r));
    CHECK(r.seconds >= 0 && r.seconds < 5, "took %.2f s", r.seconds);

    char real[PATH_MAX];
    CHECK(realpath(g_dir, real) != NULL, "realpath %s: %s", g_dir, strerror(errno));
    char *home = read_back("home.txt"), *tmpdir = read_back("tmpdir.txt");
    char *cwd = read_back("cwd.txt"), *uid = read_back("uid.txt");
    char *deep = read_back("sub/file.txt"), *limits = read_back("limits.txt");
    CHECK(home && !strcmp(home, g_dir), "HOME \"%s\", expected \"%s\"", home ? home : "?", g_dir);
    CHECK(tmpdir && !strcmp(tmpdir, g_dir), "TMPDIR \"%s\", expected \"%s\"", tmpdir ? tmpdir : "?",
          g_dir);
    CHECK(cwd && !strcmp(cwd, real), "working folder \"%s\", expected \"%s\"", cwd ? cwd : "?",
          real);
    CHECK(deep && !strcmp(deep, "deep"), "sub/file.txt holds \"%s\"", deep ? deep : "(missing)");
    char want_uid[32];
    snprintf(want_uid, sizeof want_uid, "%u", (unsigned)(g_contained ? g_uid : getuid()));
    CHECK(uid && !strcmp(uid, want_uid), "ran as uid %s, expected %s", uid ? uid : "?", want_uid);

    char soft[32], hard[32];
    limit_of(limits, "Max cpu time", soft, hard);
    CHECK(!strcmp(soft, "20") && !strcmp(hard, "25"), "cpu time %s/%s, expected 20/25", soft, hard);
    limit_of(limits, "Max open files", soft, hard);
    CHECK(!strcmp(soft, "64") && !strcmp(hard, "64"), "open files %s/%s, expected 64", soft, hard);
    limit_of(limits, "Max data size", soft, hard);
    CHECK(!strcmp(soft, "268435456") && !strcmp(hard, "268435456"),
          "data size %s/%s, expected 256 MB", soft, hard);
    limit_of(limits, "Max processes", soft, hard);
    if (g_contained) /* a uid of its own starts from no process */
        CHECK(!strcmp(soft, "64") && !strcmp(hard, "64"), "processes %s/%s, expected 64", soft,
              hard);
    else
        CHECK(atol(soft) >= 64, "processes %s, expected at least 64", soft);

    char *out = clu_read_file(g_out, NULL);
    CHECK(out && strstr(out, "to-stdout") && strstr(out, "to-stderr"),
          "the output file holds \"%s\"", out ? out : "(missing)");
    if (g_contained) {
        struct stat st;
        CHECK(stat(g_dir, &st) == 0 && st.st_uid == g_uid, "the folder is owned by %u, not %u",
              (unsigned)st.st_uid, (unsigned)g_uid);
        check_none_left(g_uid, "a normal program");
    }
    free(home), free(tmpdir), free(cwd), free(uid), free(deep), free(limits), free(out);
}

static void test_outcomes(void **state) {
    (void)state;
    struct rng rg = rng_for("outcomes");
    struct grader_run_result r;
    int code = (int)rng_range(&rg, 1, 125);
    char script[64];
    snprintf(script, sizeof script, "exit %d", code);
    run_sh(script, 10, &r);
    CHECK(r.how == RUN_EXITED && r.code == code, "`%s` %s", script, describe(&r));

    static const int signals[] = {SIGSEGV, SIGABRT, SIGTERM, SIGKILL, SIGBUS};
    int sig = signals[rng_range(&rg, 0, 4)];
    snprintf(script, sizeof script, "kill -%d $$", sig);
    run_sh(script, 10, &r);
    CHECK(r.how == RUN_SIGNALED && r.code == sig, "`%s` %s", script, describe(&r));

    char *missing[] = {"/nonexistent/program", NULL};
    run_argv(missing, 10, &r);
    CHECK(r.how == RUN_NO_START && r.code == ENOENT, "a missing program %s", describe(&r));
}

static void test_timeout_kills_the_group(void **state) {
    (void)state;
    struct grader_run_result r;
    double start = now();
    run_sh("sleep 30 & echo $! > bg.txt; sleep 30", 1.0, &r);
    double took = now() - start;
    CHECK(r.how == RUN_TIMEOUT, "a sleeping program %s", describe(&r));
    CHECK(r.seconds >= 1.0 && r.seconds < 2.5 && took < 3, "stopped after %.2f s (%.2f s)",
          r.seconds, took);
    char *bg = read_back("bg.txt");
    CHECK(bg && atol(bg) > 0, "no background pid written");
    pid_t pid = (pid_t)atol(bg);
    free(bg);
    int gone = 0;
    for (double end = now() + 2; !gone && now() < end; nap(0.01)) {
        reap();
        gone = kill(pid, 0) != 0 && errno == ESRCH;
    }
    CHECK(gone, "the background sleep %d outlived the timeout", (int)pid);
    if (g_contained)
        check_none_left(g_uid, "a timeout");
}

/* A run whose report says it is complete (done_when) is stopped then, RUN_DONE, wherever the
 * line falls in the report's last bytes; a report without it, with more written after it, left
 * complete by the run before (each start removes it), or that is a link or a FIFO in the
 * student's folder runs to its own end or limit (never followed, never waited on). */
static void test_done_when(void **state) {
    (void)state;
    struct rng rg = rng_for("done_when");
    char report[300], script[512];
    snprintf(report, sizeof report, "%s/report.txt", g_dir);
    struct grader_jail_done_when done = {report, "nothing more to say"};
    struct grader_jail_settings own = g_js;
    own.done_when = &done;
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    struct grader_run_result r;
    /* the line after a random amount of text, and at most 200 bytes before the report's end */
    long before = rng_range(&rg, 0, 100000), after = rng_range(&rg, 0, 200 - 20);
    snprintf(script, sizeof script,
             "head -c %ld /dev/zero | tr '\\0' x > report.txt; sleep 0.3; "
             "printf 'nothing more to say' >> report.txt; head -c %ld /dev/zero | tr '\\0' y "
             ">> report.txt; sleep 30",
             before, after);
    double start = now();
    grader_run_jailed(&own, argv, g_dir, g_out, 20, &r);
    CHECK(r.how == RUN_DONE && now() - start < 3, "a complete report (%ld bytes, then %ld): %s",
          before, after, describe(&r));
    /* the same line further back than the watch reads: the run goes on */
    snprintf(
        script, sizeof script,
        "{ printf 'nothing more to say'; head -c %d /dev/zero; } > r.tmp; mv r.tmp report.txt; "
        "sleep 1.5",
        JAIL_DONE_BYTES + (int)rng_range(&rg, 1, 1000));
    grader_run_jailed(&own, argv, g_dir, g_out, 20, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "a report that went on: %s", describe(&r));
    /* the last run's complete report, left in the folder: this run starts without it */
    snprintf(script, sizeof script, "printf 'nothing more to say' > report.txt");
    grader_run_jailed(&own, argv, g_dir, g_out, 20, &r);
    snprintf(script, sizeof script, "sleep 1.5");
    grader_run_jailed(&own, argv, g_dir, g_out, 20, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "a report left by the run before: %s", describe(&r));
    /* a link to a complete report, a FIFO: the run's limit ends it */
    snprintf(script, sizeof script,
             "rm -f report.txt; printf 'nothing more to say' > real.txt; "
             "ln -s real.txt report.txt; sleep 30");
    grader_run_jailed(&own, argv, g_dir, g_out, 1.0, &r);
    CHECK(r.how == RUN_TIMEOUT, "a report that is a link: %s", describe(&r));
    snprintf(script, sizeof script, "rm -f report.txt; mkfifo report.txt; sleep 30");
    start = now();
    grader_run_jailed(&own, argv, g_dir, g_out, 1.0, &r);
    CHECK(r.how == RUN_TIMEOUT && now() - start < 3, "a report that is a FIFO: %s", describe(&r));
}

static void test_cpu_limit(void **state) {
    (void)state;
    g_js.limits.cpu_seconds = 1; /* test_setup gives the next test tight limits again */
    struct grader_run_result r;
    run_sh("while :; do :; done", 15, &r);
    CHECK(r.how == RUN_SIGNALED && r.code == SIGXCPU, "a CPU-bound loop with 1 s of CPU %s",
          describe(&r));
    CHECK(r.seconds >= 0.9 && r.seconds < 5, "it ran %.2f s", r.seconds);
}

/* ---------------------------------------------------------------- tests: hostile programs */

static void test_disk_filler(void **state) {
    (void)state;
    struct grader_run_result r;
    run_sh("i=0; while :; do head -c 1048576 /dev/zero >> f$((i=i+1)); done", 20, &r);
    long long size = folder_size(g_dir);
    CHECK(r.how == RUN_OVER_LIMIT && r.code == LIMIT_DISK, "a disk filler %s", describe(&r));
    CHECK(r.seconds < 5, "stopped only after %.2f s", r.seconds);
    CHECK(size > tight.disk_bytes, "the folder holds %lld bytes: it never passed the limit", size);
    print_message("disk filler: stopped after %.2f s with %.1f MB in a folder of %.0f MB\n",
                  r.seconds, (double)size / (1 << 20), (double)tight.disk_bytes / (1 << 20));
    if (g_contained)
        check_none_left(g_uid, "a disk filler");
}

static void test_memory_one_process(void **state) {
    (void)state;
    if (!g_hog[0]) {
        print_message("skipped: no memory hog (cc failed)\n");
        skip();
    }
    struct grader_run_result r;
    char *argv[] = {g_hog, "600", "1", NULL};
    run_argv(argv, 20, &r);
    char *out = clu_read_file(g_out, NULL);
    /* RLIMIT_DATA makes malloc fail near 256 MB; the watch may stop it first when root */
    int data_limit = r.how == RUN_EXITED && r.code == 3;
    int watched = r.how == RUN_OVER_LIMIT && r.code == LIMIT_MEMORY;
    CHECK(data_limit || watched, "a 600 MB hog %s (output \"%s\")", describe(&r), out ? out : "");
    CHECK(r.seconds < 5, "stopped only after %.2f s", r.seconds);
    if (data_limit) {
        long mb = -1;
        CHECK(out && sscanf(out, "malloc failed after %ld MB", &mb) == 1 && mb >= 100 && mb <= 256,
              "malloc failed after %ld MB, expected near 256 (\"%s\")", mb, out ? out : "");
    }
    print_message("memory hog: %s after %.2f s\n",
                  data_limit ? "malloc failed under RLIMIT_DATA"
                             : "stopped by the resident-memory watch",
                  r.seconds);
    free(out);
    if (g_contained)
        check_none_left(g_uid, "a memory hog");
}

static void test_memory_many_processes(void **state) {
    (void)state;
    NEEDS_CONTAINMENT(); /* the resident-memory watch follows the uid */
    if (!g_hog[0]) {
        print_message("skipped: no memory hog (cc failed)\n");
        skip();
    }
    /* 4 x 100 MB: each under RLIMIT_DATA, 400 MB in all, past the 256 MB limit */
    struct grader_run_result r;
    char *argv[] = {g_hog, "100", "4", NULL};
    run_argv(argv, 20, &r);
    CHECK(r.how == RUN_OVER_LIMIT && r.code == LIMIT_MEMORY, "4 processes of 100 MB %s",
          describe(&r));
    CHECK(r.seconds < 5, "stopped only after %.2f s", r.seconds);
    print_message("4 memory hogs: stopped after %.2f s\n", r.seconds);
    check_none_left(g_uid, "4 memory hogs");
}

/* A child that counts the uid's processes (zombies too: RLIMIT_NPROC counts them) until told to
 * stop, and writes the most it saw. Should the count run away (RLIMIT_NPROC not binding) it kills
 * them all as the uid does, and reports it with a negative count. */
static pid_t start_counter(uid_t uid, int *stop_fd, int *result_fd) {
    int stop[2], result[2];
    CHECK(pipe(stop) == 0 && pipe(result) == 0, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        close(stop[1]);
        close(result[0]);
        fcntl(stop[0], F_SETFL, O_NONBLOCK);
        int most = 0, runaway = 0;
        char c;
        while (read(stop[0], &c, 1) < 0 && errno == EAGAIN) {
            int zombies, count = processes_of(uid, &zombies) + zombies;
            most = count > most ? count : most;
            if (count > 4 * tight.processes && !runaway) {
                runaway = 1;
                kill_everything_of(uid);
            }
            nap(0.002);
        }
        int report = runaway ? -most : most;
        ssize_t ignored = write(result[1], &report, sizeof report);
        (void)ignored;
        _exit(0);
    }
    close(stop[0]);
    close(result[1]);
    *stop_fd = stop[1];
    *result_fd = result[0];
    return pid;
}

static int stop_counter(pid_t pid, int stop_fd, int result_fd) {
    close(stop_fd);
    int most = 0;
    ssize_t got = read(result_fd, &most, sizeof most);
    close(result_fd);
    waitpid(pid, NULL, 0);
    return got == (ssize_t)sizeof most ? most : 0;
}

static void test_fork_bomb(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    /* and the limit itself, seen from inside, before anything hostile runs */
    struct grader_run_result r;
    run_sh("id -u > uid.txt; cat /proc/self/limits > limits.txt", 10, &r);
    char *uid = read_back("uid.txt"), *limits = read_back("limits.txt");
    char want[32], soft[32] = "", hard[32] = "";
    snprintf(want, sizeof want, "%u", (unsigned)g_uid);
    const char *line = limits ? strstr(limits, "Max processes") : NULL;
    if (line && sscanf(line + 26, "%31s %31s", soft, hard) != 2)
        soft[0] = hard[0] = '\0';
    int ready = r.how == RUN_EXITED && r.code == 0 && uid && !strcmp(uid, want) &&
                atol(soft) == tight.processes && atol(hard) == tight.processes;
    free(uid), free(limits);
    if (!ready) {
        print_message("skipped: the program does not run as uid %u with %ld processes (%s, "
                      "processes %s/%s)\n",
                      (unsigned)g_uid, tight.processes, describe(&r), soft, hard);
        skip();
    }

    int stop_fd, result_fd;
    pid_t counter = start_counter(g_uid, &stop_fd, &result_fd);
    /* the bomb grows behind a main process that never ends: it must end by the timeout */
    run_sh("( b() { b | b & }; b ) & exec sleep 100", 3, &r);
    int most = stop_counter(counter, stop_fd, result_fd);
    char *out = clu_read_file(g_out, NULL);
    CHECK(most >= 0, "the bomb ran away to %d processes: RLIMIT_NPROC did not bind", -most);
    CHECK(r.how == RUN_TIMEOUT, "a fork bomb %s", describe(&r));
    CHECK(r.seconds >= 3 && r.seconds < 5, "stopped after %.2f s", r.seconds);
    CHECK(most >= tight.processes / 2 && most <= tight.processes + 1,
          "at most %d processes of the uid seen, expected up to the limit %ld", most,
          tight.processes);
    CHECK(out && strcasestr(out, "fork"), "the shell never failed to fork: \"%.300s\"",
          out ? out : "");
    print_message("fork bomb: held at %d processes, stopped after %.2f s\n", most, r.seconds);
    free(out);
    check_none_left(g_uid, "a fork bomb");
}

/* A call the jail's seccomp filter refuses (session.c): the jailed command that made it failed,
 * its message in said_file and its status in status_file. */
static void check_refused(const char *call, const char *said_file, const char *status_file) {
    char *said = read_back(said_file), *status = read_back(status_file);
    CHECK(said && status && atoi(status) != 0 && strcasestr(said, "not permitted"),
          "%s was not refused: status %s, said \"%.200s\"", call, status ? status : "?",
          said ? said : "");
    free(said), free(status);
}

/* sched_setaffinity() is refused (session.c): threads pinned to fewer CPUs than the machine has
 * wait for each other beside a free CPU, which the timing would read as outside load */
static void test_affinity_refused(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    struct grader_run_result r;
    char *argv[] = {"/bin/sh", "-c",
                    "taskset -p 1 $$ > pin.txt 2>&1; echo $? > pin_status.txt; exit 0", NULL};
    run_argv(argv, 10, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "the pinning program %s", describe(&r));
    check_refused("sched_setaffinity", "pin.txt", "pin_status.txt");
}

static void test_setsid_escape(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    struct grader_run_result r;
    /* setsid() is refused (session.c); bash's job control puts `sleep` in a process group of
     * its own, which the kill of the run's group misses: the kill of the uid must catch it */
    char *argv[] = {"/bin/bash", "-c",
                    "setsid true 2> setsid.txt; echo $? > setsid_status.txt; "
                    "set -m; sleep 1000 & p=$!; sleep 0.3; echo $p > pid.txt; "
                    "cut -d' ' -f5 /proc/$p/stat > pgrp.txt; exit 0",
                    NULL};
    run_argv(argv, 10, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "the escaping program %s", describe(&r));
    check_refused("setsid", "setsid.txt", "setsid_status.txt");
    char *pid_text = read_back("pid.txt"), *pgrp_text = read_back("pgrp.txt");
    CHECK(pid_text && pgrp_text && atol(pid_text) > 0 && !strcmp(pid_text, pgrp_text),
          "the sleep %s did not lead a process group of its own (group %s)",
          pid_text ? pid_text : "?", pgrp_text ? pgrp_text : "?");
    pid_t pid = (pid_t)atol(pid_text);
    free(pid_text), free(pgrp_text);
    check_none_left(g_uid, "an escape from the process group");
    CHECK(kill(pid, 0) != 0 && errno == ESRCH, "the escaped sleep %d still runs", (int)pid);
}

/* A jailed run leads a session of its own (the kernel shares the CPU between sessions), and a
 * niced run's session carries the nice value: a fork bomb's share then stays small. */
static void test_own_session_niced(void **state) {
    (void)state;
    struct grader_run_result r;
    g_js.niceness = 19; /* test_setup sets it back to 0 */
    run_sh("cut -d' ' -f6 /proc/$$/stat > sid.txt; echo $$ > pid.txt; "
           "cat /proc/$$/autogroup > autogroup.txt 2>/dev/null; nice > nice.txt",
           10, &r);
    g_js.niceness = 0;
    CHECK(r.how == RUN_EXITED && r.code == 0, "the program %s", describe(&r));
    char *sid = read_back("sid.txt"), *pid = read_back("pid.txt"), *nice = read_back("nice.txt");
    char *autogroup = read_back("autogroup.txt");
    CHECK(sid && pid && !strcmp(sid, pid), "the shell %s is not a session leader (session %s)",
          pid ? pid : "?", sid ? sid : "?");
    /* with the cpu controller, students get equal CPU weights instead of nice levels */
    int want = g_in_force & GRADER_CGROUP_HAS_CPU ? 0 : 19;
    char want_text[16];
    snprintf(want_text, sizeof want_text, "nice %d", want);
    CHECK(nice && atoi(nice) == want, "nice %s, expected %d", nice ? nice : "?", want);
    if (access("/proc/self/autogroup", F_OK) == 0)
        CHECK(autogroup && (want == 0 || strstr(autogroup, want_text)), "its autogroup: \"%s\"",
              autogroup ? autogroup : "");
    else
        print_message("note: this kernel has no autogroups; sessions were not checked for nice\n");
    free(sid), free(pid), free(nice), free(autogroup);
}

/* A filler writing to world-writable /tmp instead of its folder, 200 files of 1 MB each
 * (RLIMIT_FSIZE holds any one file to the disk limit) after half a second: the files are its uid's,
 * and it is stopped as if it had filled its folder. With freed_mb, a neighbour (root) deletes a
 * file that large while the filler runs: the file system's free space then never falls, and the run
 * must still be stopped. */
static void fill_tmp(int freed_mb) {
    char script[512], outside[160], name[200], freed[160];
    snprintf(outside, sizeof outside, "/tmp/test_jail_outside.%d", (int)getpid());
    snprintf(script, sizeof script,
             "sleep 0.5; i=0; while [ $i -lt 200 ]; do i=$((i+1)); "
             "head -c 1048576 /dev/urandom > '%s.'$i; done; exit 0",
             outside);
    snprintf(freed, sizeof freed, "%s/freed.bin", g_top);
    pid_t neighbour = -1;
    if (freed_mb > 0) {
        int fd = open(freed, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        CHECK(fd >= 0 && posix_fallocate(fd, 0, (off_t)freed_mb << 20) == 0,
              "could not take %d MB for the neighbour to free", freed_mb);
        close(fd);
        neighbour = fork();
        if (neighbour == 0) { /* frees it after the run's start, before the filler writes */
            struct timespec nap = {0, 200 * 1000 * 1000};
            nanosleep(&nap, NULL);
            _exit(unlink(freed) == 0 ? 0 : 1);
        }
        CHECK(neighbour > 0, "fork");
    }
    struct grader_run_result r;
    run_sh(script, 20, &r);
    if (neighbour > 0)
        waitpid(neighbour, NULL, 0);
    unlink(freed);
    long long held = 0;
    for (int i = 1; i <= 200; i++) {
        struct stat st;
        snprintf(name, sizeof name, "%s.%d", outside, i);
        held += stat(name, &st) == 0 ? (long long)st.st_blocks * 512 : 0;
        unlink(name);
    }
    CHECK(r.how == RUN_OVER_LIMIT && r.code == LIMIT_DISK,
          "a filler of /tmp (%d MB freed beside it) %s (%lld bytes)", freed_mb, describe(&r), held);
    CHECK(held < 200LL << 20, "it wrote all of its %lld bytes", held);
    print_message("filler of /tmp, %d MB freed beside it: stopped after %.2f s with %.1f MB "
                  "outside its folder\n",
                  freed_mb, r.seconds, (double)held / (1 << 20));
    check_none_left(g_uid, "a filler of /tmp");
}

static void test_disk_filler_outside(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    fill_tmp(0);
}

static void test_disk_filler_outside_while_space_freed(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    fill_tmp(300);
}

/* The grader's own neighbours (another student's grading, a build, a package install) take disk
 * space too: a quiet run is not stopped for what others write while it runs. */
static void test_neighbour_writes(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    char neighbour[160];
    snprintf(neighbour, sizeof neighbour, "%s/neighbour.bin", g_top);
    pid_t pid = fork();
    if (pid == 0) { /* 64 MB (8 times the disk limit) as root while the student's run sleeps */
        FILE *f = fopen(neighbour, "wb");
        static char block[1 << 20];
        memset(block, 1, sizeof block);
        for (int i = 0; f && i < 64; i++) {
            fwrite(block, 1, sizeof block, f);
            fflush(f);
            fsync(fileno(f));
        }
        _exit(f && fclose(f) == 0 ? 0 : 1);
    }
    CHECK(pid > 0, "fork");
    struct grader_run_result r;
    run_sh("sleep 2; echo done > done.txt; exit 0", 20, &r);
    int status = 0;
    waitpid(pid, &status, 0);
    unlink(neighbour);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the neighbour could not write");
    CHECK(r.how == RUN_EXITED && r.code == 0, "a sleeping run beside a writing neighbour %s",
          describe(&r));
}

static void test_cannot_write_outside(void **state) {
    (void)state;
    NEEDS_CONTAINMENT();
    char victim[160], outside[160], made[160], shared[160];
    snprintf(victim, sizeof victim, "%s/victim.txt", g_top);
    snprintf(outside, sizeof outside, "%s/outside.txt", g_top);
    snprintf(made, sizeof made, "%s/made", g_top);
    snprintf(shared, sizeof shared, "/tmp/test_jail_shared.%d", (int)getpid());
    FILE *f = fopen(victim, "w");
    CHECK(f && fputs("root's\n", f) >= 0 && fclose(f) == 0, "cannot write %s", victim);
    CHECK(chmod(victim, 0644) == 0, "chmod %s", victim);

    char script[1024];
    snprintf(script, sizeof script,
             "echo x > ../outside.txt; echo x >> ../victim.txt; mkdir ../made; rm -f ../hog; "
             "chmod 777 ..; echo x > '%s'; echo here > inside.txt; exit 0",
             shared);
    struct grader_run_result r;
    run_sh(script, 10, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "the program %s", describe(&r));
    struct stat st;
    char *text = clu_read_file(victim, NULL), *inside = read_back("inside.txt");
    CHECK(inside && !strcmp(inside, "here"), "it could not write in its own folder");
    CHECK(access(outside, F_OK) != 0, "it created %s", outside);
    CHECK(access(made, F_OK) != 0, "it made the folder %s", made);
    CHECK(text && !strcmp(text, "root's\n"), "it changed %s to \"%s\"", victim, text ? text : "");
    CHECK(!g_hog[0] || access(g_hog, F_OK) == 0, "it removed %s", g_hog);
    CHECK(stat(g_top, &st) == 0 && (st.st_mode & 07777) == 0711, "it changed %s to %o", g_top,
          (unsigned)(st.st_mode & 07777));
    if (access(shared, F_OK) == 0) { /* a world-writable folder: not the jail's to close */
        print_message("note: the jailed program can write to world-writable /tmp (%s), outside "
                      "the folder the disk limit watches\n",
                      shared);
        unlink(shared);
    }
    free(text), free(inside);
    check_none_left(g_uid, "writing outside");
}

/* ---------------------------------------------------------------- tests: what the grader holds */

/* A descriptor the grader holds open (a lock, a log, an instructor's file) never reaches the
 * program: it finds nothing open but 0, 1 and 2, and the file stays as it was. */
static void test_no_inherited_descriptors(void **state) {
    (void)state;
    char path[160];
    snprintf(path, sizeof path, "%s/held%d.txt", g_top, g_test_no);
    struct rng rng = rng_for("descriptors");
    int held =
        open(path, O_RDWR | O_CREAT | O_TRUNC, 0666); /* no O_CLOEXEC, as a careless caller */
    int moved = held >= 0 ? fcntl(held, F_DUPFD, (int)rng_range(&rng, 3, 40)) : -1;
    CHECK(held >= 0 && moved >= 0, "cannot open %s", path);
    ssize_t wrote = write(held, "kept\n", 5);
    CHECK(wrote == 5, "cannot write %s", path);
    struct grader_run_result r;
    char script[300];
    snprintf(script, sizeof script,
             "ls /proc/self/fd > fds.raw; tr '\\n' ' ' < fds.raw > fds.txt; "
             "for fd in 3 4 5 6 7 8 9 %d %d; do "
             "(echo spoiled >&$fd) 2>/dev/null; done; exit 0",
             held, moved);
    run_sh(script, 10, &r);
    close(held);
    close(moved);
    char *fds = read_back("fds.txt"), *text = clu_read_file(path, NULL);
    CHECK(r.how == RUN_EXITED && r.code == 0, "the program %s", describe(&r));
    /* ls's own: 0, 1 (fds.raw), 2, and 3 the folder it lists (the lowest free number: a
     * descriptor let through would take it). The shell's own are no measure: dash keeps one it
     * saved while redirecting, a pipeline the pipe's. */
    CHECK(fds && !strcmp(fds, "0 1 2 3 "),
          "the program had descriptors \"%s\" open (the grader "
          "held %d and %d)",
          fds ? fds : "?", held, moved);
    CHECK(text && !strcmp(text, "kept\n"), "the held file became \"%s\"", text ? text : "");
    free(fds), free(text);
}

/* A channel (jail.h) for test_channel: a SEQPACKET socket pair made at each start. */
struct test_channel {
    int fd, opened;
};
static int test_channel_open(void *ctx) {
    struct test_channel *c = ctx;
    c->opened++;
    if (c->fd >= 0)
        close(c->fd);
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
        return -1;
    c->fd = pair[0];
    return pair[1];
}

/* A run's channel is its fd 3 and nothing more of the grader's: what the program writes there
 * reaches the grader's end, and nothing else does (not the "0" that puts the run into its
 * control groups, written on descriptors of the grader's that the channel must not replace). */
static void test_channel(void **state) {
    (void)state;
    struct test_channel c = {-1, 0};
    struct grader_jail_channel channel = {test_channel_open, &c};
    struct grader_jail_settings js = g_js;
    js.channel = &channel;
    /* ls's own descriptors (the shell's are no measure: a pipeline's end it holds while ls
     * lists them was once seen as a fifth): 0, 1 (fds.txt), 2, the channel 3 and 4 the folder it
     * lists (the lowest free number: a descriptor let through would take it) */
    char *argv[] = {"/bin/sh", "-c", "ls /proc/self/fd > fds.txt; printf hello >&3; exit 0", NULL};
    struct grader_run_result r;
    grader_run_jailed(&js, argv, g_dir, g_out, 10, &r);
    char *fds = read_back("fds.txt"), got[64] = "", extra[64] = "";
    for (char *at = fds; at && *at; at++)
        *at = *at == '\n' ? ' ' : *at;
    ssize_t first = c.fd >= 0 ? recv(c.fd, got, sizeof got - 1, MSG_DONTWAIT) : -1;
    ssize_t second = c.fd >= 0 ? recv(c.fd, extra, sizeof extra - 1, MSG_DONTWAIT) : -1;
    if (c.fd >= 0)
        close(c.fd);
    CHECK(r.how == RUN_EXITED && r.code == 0, "the program %s", describe(&r));
    CHECK(c.opened == 1, "the channel was opened %d times for one start", c.opened);
    CHECK(fds && !strcmp(fds, "0 1 2 3 4"), "the program had descriptors \"%s\" open",
          fds ? fds : "?");
    CHECK(first == 5 && !strcmp(got, "hello"), "the grader's end got \"%s\" (%zd bytes)", got,
          first);
    CHECK(second <= 0, "the grader's end got \"%s\" besides what the program wrote", extra);
    free(fds);
}

/* A run's environment is the allow-list's: an instructor's secret and an inherited kernel cache
 * never reach it; HOME is its folder; a run with the exercise's kernel cache gets POCL's and
 * NVIDIA's cache variables in it, one without gets neither (a student's host program could plant
 * a slow binary there). */
static void test_environment(void **state) {
    (void)state;
    char secret[64], cache[160];
    snprintf(secret, sizeof secret, "s%ld", (long)getpid() * 7919L + (long)time(NULL));
    snprintf(cache, sizeof cache, "%s/cache%d", g_top, g_test_no);
    CHECK(mkdir(cache, 0777) == 0 && chmod(cache, 0777) == 0, "mkdir %s", cache);
    setenv("GRADER_SECRET", secret, 1);
    setenv("POCL_CACHE_DIR", "/tmp/instructors-pocl", 1);
    setenv("CUDA_CACHE_PATH", "/tmp/instructors-nv", 1);
    setenv("CUDA_VISIBLE_DEVICES", "0", 1);
    for (int with = 0; with < 2; with++) {
        struct grader_jail_settings js = g_js;
        js.kernel_cache = with ? cache : NULL;
        char *argv[] = {"/bin/sh", "-c", "env > env.txt", NULL}, want[300];
        struct grader_run_result r;
        grader_run_jailed(&js, argv, g_dir, g_out, 10, &r);
        char *text = read_back("env.txt"), env[8192]; /* (every line between newlines) */
        CHECK(r.how == RUN_EXITED && r.code == 0 && text, "env %s", describe(&r));
        snprintf(env, sizeof env, "\n%s\n", text);
        free(text);
        CHECK(!strstr(env, secret) && !strstr(env, "instructors-"),
              "%s the kernel cache, the run saw the grader's secret or cache: %s",
              with ? "with" : "without", env);
        snprintf(want, sizeof want, "\nHOME=%s\n", g_dir);
        CHECK(strstr(env, want) && strstr(env, "\nCUDA_VISIBLE_DEVICES=0\n"),
              "no HOME=%s or CUDA_VISIBLE_DEVICES in %s", g_dir, env);
        snprintf(want, sizeof want, "\nPOCL_CACHE_DIR=%s\n", cache);
        CHECK(!strstr(env, "POCL_CACHE_DIR=") == !with && (!with || strstr(env, want)),
              "%s the kernel cache: %s", with ? "with" : "without", env);
        snprintf(want, sizeof want, "\nCUDA_CACHE_PATH=%s/nv\n", cache);
        CHECK(!strstr(env, "CUDA_CACHE_PATH=") == !with && (!with || strstr(env, want)),
              "%s the kernel cache: %s", with ? "with" : "without", env);
    }
    unsetenv("GRADER_SECRET");
    unsetenv("POCL_CACHE_DIR");
    unsetenv("CUDA_CACHE_PATH");
    unsetenv("CUDA_VISIBLE_DEVICES");
    grader_remove_tree(cache);
}

static const char memfd_hog_source[] =
    "#define _GNU_SOURCE\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <sys/mman.h>\n"
    "#include <unistd.h>\n"
    "/* memfd_hog MB: MB megabytes written into memfds of 7 MB each (under RLIMIT_FSIZE), never\n"
    " * mapped, saying how much it holds every 16 MB, then sleeping */\n"
    "int main(int argc, char **argv) {\n"
    "    static char chunk[1 << 20];\n"
    "    memset(chunk, 7, sizeof chunk);\n"
    "    int fd = -1;\n"
    "    long mb = argc > 1 ? atol(argv[1]) : 0;\n"
    "    for (long i = 0; i < mb; i++) {\n"
    "        if ((i % 7 == 0 && (fd = memfd_create(\"hoard\", 0)) < 0) ||\n"
    "            write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)\n"
    "            break;\n"
    "        if ((i + 1) % 16 == 0) {\n"
    "            printf(\"held %ld MB\\n\", i + 1);\n"
    "            fflush(stdout);\n"
    "        }\n"
    "    }\n"
    "    sleep(30);\n"
    "    return 0;\n"
    "}\n";

/* Memory written into a memfd is in neither RLIMIT_DATA nor the resident size: the kernel's
 * accounting (a cgroup) or the watch of files in no folder stops it near the limit. */
static void test_memfd_hog(void **state) {
    (void)state;
    NEEDS_CONTAINMENT(); /* the watch follows the uid */
    char src[160], bin[160], cmd[400];
    snprintf(src, sizeof src, "%s/memfd_hog.c", g_top);
    snprintf(bin, sizeof bin, "%s/memfd_hog", g_top);
    FILE *f = fopen(src, "w");
    int ok = f && fputs(memfd_hog_source, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    snprintf(cmd, sizeof cmd, "cc -O0 -o '%s' '%s' 2>&1", bin, src);
    if (!ok || system(cmd) != 0 || chmod(bin, 0755) != 0) {
        print_message("skipped: cannot compile the memfd hog with cc\n");
        skip();
    }
    struct rng rng = rng_for("memfd");
    long mb = rng_range(&rng, 600, 800);
    char mb_text[16];
    snprintf(mb_text, sizeof mb_text, "%ld", mb);
    char *argv[] = {bin, mb_text, NULL};
    struct grader_run_result r;
    run_argv(argv, 20, &r);
    char *out = clu_read_file(g_out, NULL);
    long held = 0, at;
    for (const char *p = out; p && (p = strstr(p, "held ")) != NULL; p++)
        if (sscanf(p, "held %ld MB", &at) == 1 && at > held)
            held = at;
    /* memory, never the disk limit: a memfd takes no disk space */
    CHECK(r.how == RUN_OVER_LIMIT ? r.code == LIMIT_MEMORY : r.how == RUN_SIGNALED,
          "a %ld MB memfd hog under a %lld MB limit: the program %s", mb, tight.memory_bytes >> 20,
          describe(&r));
    /* the kernel's accounting stops it at the limit; the watch looks every 0.1 s, later */
    CHECK(!(g_in_force & GRADER_CGROUP_HAS_MEMORY) || held <= (tight.memory_bytes >> 20) + 64,
          "the program held %ld MB in memfds under a %lld MB limit (%s)", held,
          tight.memory_bytes >> 20, describe(&r));
    CHECK(r.seconds < 10, "stopped only after %.2f s", r.seconds);
    print_message("memfd hog of %ld MB: held at most %ld MB, %s\n", mb, held, describe(&r));
    free(out);
    check_none_left(g_uid, "a memfd hog");
}

static const char spinners_source[] =
    "#include <signal.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <sys/wait.h>\n"
    "#include <time.h>\n"
    "#include <unistd.h>\n"
    "/* spinners MODE COUNT: COUNT children one after the other (0: for ever), each spinning 8 ms\n"
    " * of CPU and exiting; MODE says who takes their CPU time along: reaped (the parent waits),\n"
    " * ignored (SIGCHLD ignored: the kernel reaps them), orphaned (each spins in a grandchild "
    "that\n"
    " * init or a subreaper reaps). Exits 0 after COUNT. */\n"
    "static void spin(void) {\n"
    "    struct timespec t;\n"
    "    do\n"
    "        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);\n"
    "    while (t.tv_sec == 0 && t.tv_nsec < 8000000);\n"
    "    _exit(0);\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    const char *mode = argc > 1 ? argv[1] : \"reaped\";\n"
    "    long count = argc > 2 ? atol(argv[2]) : 0;\n"
    "    if (!strcmp(mode, \"ignored\"))\n"
    "        signal(SIGCHLD, SIG_IGN);\n"
    "    for (long i = 0; count == 0 || i < count; i++) {\n"
    "        int done[2];\n"
    "        if (pipe(done) != 0)\n"
    "            return 1;\n"
    "        pid_t pid = fork();\n"
    "        if (pid == 0) {\n"
    "            close(done[0]);\n"
    "            if (strcmp(mode, \"orphaned\") != 0 || fork() == 0)\n"
    "                spin(); /* holds done[1] until it exits */\n"
    "            _exit(0);\n"
    "        }\n"
    "        close(done[1]);\n"
    "        char c;\n"
    "        while (read(done[0], &c, 1) > 0) /* until the spinner is gone */\n"
    "            ;\n"
    "        close(done[0]);\n"
    "        waitpid(pid, NULL, 0); /* (ignored: fails at once, the kernel reaped it) */\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

/* The spinners program compiled into g_top (once), or skip. */
static const char *spinners_program(void) {
    static char bin[160];
    if (bin[0] && access(bin, X_OK) == 0)
        return bin;
    char src[160], cmd[400];
    snprintf(src, sizeof src, "%s/spinners.c", g_top);
    snprintf(bin, sizeof bin, "%s/spinners", g_top);
    FILE *f = fopen(src, "w");
    int ok = f && fputs(spinners_source, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    snprintf(cmd, sizeof cmd, "cc -O0 -o '%s' '%s' 2>&1", bin, src);
    if (!ok || system(cmd) != 0 || chmod(bin, 0755) != 0) {
        bin[0] = '\0';
        print_message("skipped: cannot compile the spinners with cc\n");
        skip();
    }
    return bin;
}

/* A program that forks children spinning 8 ms each, for ever, on a machine that is not busy: the
 * CPU time of a child that ended leaves the count of the run's live processes (its parent's, the
 * kernel's or init's to keep), so the run looks as if it wanted a CPU and got none. It must end
 * as a timeout (points lost), never as "not graded: the machine was too busy", however its
 * children are reaped. */
static void test_forking_spinners_time_out(void **state) {
    (void)state;
    const char *bin = spinners_program();
    static const char *const modes[] = {"reaped", "ignored", "orphaned"};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        char *argv[] = {(char *)bin, (char *)modes[m], "0", NULL};
        struct grader_run_result r;
        double start = now();
        run_argv(argv, 2.0, &r);
        double took = now() - start;
        print_message("8-ms spinners, %s: %s (%.2f s in all)\n", modes[m], describe(&r), took);
        CHECK(r.how == RUN_TIMEOUT, "8-ms spinners (%s) on a quiet machine: the program %s",
              modes[m], describe(&r));
        CHECK(took < 4.5, "%s spinners: graded %.2f s for a limit of 2 s", modes[m], took);
        if (g_contained)
            check_none_left(g_uid, "the spinners");
    }
}

/* This test process held to the first CPU it may use (its children too), *before its affinity
 * before: the CPU's number. Skips the test where the affinity cannot be read. */
static int hold_to_one_cpu(cpu_set_t *before) {
    if (sched_getaffinity(0, sizeof *before, before) != 0) {
        print_message("skipped: sched_getaffinity: %s\n", strerror(errno));
        skip();
    }
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, before))
        cpu++;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "sched_setaffinity: %s", strerror(errno));
    return cpu;
}

/* A busy loop in a session of its own (a share of the CPU of its own), for at most `seconds`. */
static pid_t busy_loop(unsigned seconds) {
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(seconds);
        for (;;)
            ;
    }
    return pid;
}

/* A run starved by a machine that is really busy (8 busy loops, each in a session of its own,
 * on the one CPU the test, its run and its probe are held to) is still not graded rather than
 * stopped as a timeout: the probe of the machine finds it busy too. */
static void test_busy_machine_is_not_graded(void **state) {
    (void)state;
    cpu_set_t before;
    int cpu = hold_to_one_cpu(&before);
    enum { LOOPS = 8 };
    pid_t loops[LOOPS];
    for (int i = 0; i < LOOPS; i++)
        loops[i] = busy_loop(60);
    struct grader_run_result r;
    double start = now();
    run_sh("while :; do :; done", 2.0, &r);
    double took = now() - start;
    for (int i = 0; i < LOOPS; i++)
        if (loops[i] > 0) {
            kill(loops[i], SIGKILL);
            waitpid(loops[i], NULL, 0);
        }
    sched_setaffinity(0, sizeof before, &before);
    print_message("a busy loop beside %d others on CPU %d: %s (%.2f s in all)\n", LOOPS, cpu,
                  describe(&r), took);
    CHECK(r.how == RUN_TOO_BUSY, "a run starved by %d busy loops on its CPU: the program %s", LOOPS,
          describe(&r));
    if (g_contained)
        check_none_left(g_uid, "a starved run");
}

/* The seconds a child's threads waited for a CPU another task held (what a timed launch lost to a
 * busy machine): next to none while its spinner has a CPU to itself, most of the window once two
 * busy loops of sessions of their own share that CPU. The grader's timing leaves out the rounds
 * where a launch lost over a quarter of the CPU time it wanted. */
static void test_waits_beside_load(void **state) {
    (void)state;
    cpu_set_t before;
    int cpu = hold_to_one_cpu(&before);
    char *argv[] = {"/bin/sh", "-c",
                    "(while :; do :; done) & while read line; do echo \"got $line\" >&3; done",
                    NULL};
    struct grader_child *c = grader_start(&g_js, argv, g_dir, g_out);
    CHECK(c != NULL, "grader_start returned NULL");
    char reply[64];
    CHECK(grader_child_ask(c, "ready", reply, sizeof reply, 10) == 0, "no reply");
    struct rng rng = rng_for("waits");
    double window = 0.3 + 0.1 * (double)rng_range(&rng, 0, 4), share[2];
    enum { LOOPS = 2 };
    pid_t loops[LOOPS] = {0, 0};
    for (int loaded = 0; loaded < 2; loaded++) {
        for (int i = 0; loaded && i < LOOPS; i++)
            loops[i] = busy_loop(30);
        nap(0.1); /* (the spinner and the loops under way) */
        double waited = grader_child_waited_seconds(c), start = now();
        nap(window);
        share[loaded] = (grader_child_waited_seconds(c) - waited) / (now() - start);
    }
    for (int i = 0; i < LOOPS; i++)
        if (loops[i] > 0) {
            kill(loops[i], SIGKILL);
            waitpid(loops[i], NULL, 0);
        }
    sched_setaffinity(0, sizeof before, &before);
    struct grader_run_result r;
    grader_finish(c, 2, &r);
    print_message("a spinner's waits for CPU %d over %.1f s: %.2f alone, %.2f beside %d busy "
                  "loops\n",
                  cpu, window, share[0], share[1], LOOPS);
    CHECK(share[0] >= 0.0 && share[0] < 0.1, "a spinner alone on its CPU waited %.2f of the time",
          share[0]);
    CHECK(share[1] > 0.5, "a spinner beside %d busy loops on its CPU waited only %.2f of the time",
          LOOPS, share[1]);
    if (g_contained)
        check_none_left(g_uid, "a spinner beside load");
}

/* An honest program that forks and reaps short-lived helpers, many of them, ends on its own
 * and is judged by its exit, with no time lost to the grader's watch. */
static void test_reaped_helpers_finish(void **state) {
    (void)state;
    const char *bin = spinners_program();
    struct rng rng = rng_for("helpers");
    char count[16];
    snprintf(count, sizeof count, "%ld", rng_range(&rng, 80, 120));
    char *argv[] = {(char *)bin, "reaped", count, NULL};
    struct grader_run_result r;
    run_argv(argv, 10.0, &r);
    CHECK(r.how == RUN_EXITED && r.code == 0, "%s helpers of 8 ms, forked and reaped: %s", count,
          describe(&r));
    CHECK(r.seconds < 5, "%s helpers of 8 ms took %.2f s", count, r.seconds);
    print_message("%s helpers of 8 ms, forked and reaped: %s\n", count, describe(&r));
}

/* What a run prints counts in its folder's budget while it runs, and only the head and tail of
 * it are kept after: a flood of output cannot fill the grader's disk run after run. */
static void test_output_in_budget(void **state) {
    (void)state;
    struct grader_run_result r;
    /* the folder's own files (a program, a kernel: here 1-3 MB) count too, so the folder passes
     * the limit before the output alone reaches RLIMIT_FSIZE: it is still called output */
    struct rng rng = rng_for("output");
    char command[160];
    snprintf(command, sizeof command,
             "head -c %ld /dev/zero >padding; i=0; while [ $((i = i + 1)) -le 900 ]; do "
             "yes 'a line of output that repeats' | head -c 65536; done; exit 0",
             rng_range(&rng, 1 << 20, 3 << 20));
    run_sh(command, 20, &r);
    struct stat st;
    CHECK(stat(g_out, &st) == 0, "no log at %s", g_out);
    int stopped = (r.how == RUN_OVER_LIMIT && r.code == LIMIT_OUTPUT) ||
                  (r.how == RUN_SIGNALED && r.code == SIGXFSZ);
    CHECK(stopped, "59 MB of output under an 8 MB disk limit: the program %s", describe(&r));
    char text[200];
    grader_describe_run(&r, text, sizeof text);
    CHECK(strstr(text, "more output than allowed") != NULL, "described as \"%s\"", text);
    CHECK(st.st_size <= (70L << 10), "the log keeps %lld bytes after the run",
          (long long)st.st_size);
    print_message("59 MB of output: %s; %lld bytes of log kept\n", describe(&r),
                  (long long)st.st_size);
}

/* A child that takes commands: each reply answers its command, a paused child does not run,
 * and finishing it ends its processes. */
static void test_commands_and_pause(void **state) {
    (void)state;
    char counter[160];
    snprintf(counter, sizeof counter, "%s/count.txt", g_dir);
    char *argv[] = {"/bin/sh", "-c",
                    "(i=0; while :; do i=$((i+1)); echo $i > count.new; mv count.new count.txt; "
                    "done) &"
                    " while read line; do echo \"got $line\" >&3; done",
                    NULL};
    struct grader_child *c = grader_start(&g_js, argv, g_dir, g_out);
    CHECK(c != NULL, "grader_start returned NULL");
    char reply[64], command[32];
    struct rng rng = rng_for("commands");
    for (int i = 0; i < 3; i++) {
        snprintf(command, sizeof command, "word%ld", rng_range(&rng, 0, 99999));
        CHECK(grader_child_ask(c, command, reply, sizeof reply, 10) == 0, "no reply to %s",
              command);
        char want[64];
        snprintf(want, sizeof want, "got %s", command);
        CHECK(!strcmp(reply, want), "reply \"%s\" to \"%s\"", reply, command);
    }
    for (double end = now() + 5; access(counter, F_OK) != 0 && now() < end;)
        nap(0.01); /* the counting process has started */
    grader_child_pause(c, 1);
    nap(0.2);
    char *before = clu_read_file(counter, NULL);
    nap(0.3);
    char *after = clu_read_file(counter, NULL);
    CHECK(before && after && !strcmp(before, after), "a paused child counted on: %s then %s",
          before ? before : "?", after ? after : "?");
    grader_child_pause(c, 0);
    nap(0.3);
    char *resumed = clu_read_file(counter, NULL);
    CHECK(resumed && after && strcmp(resumed, after) != 0, "a resumed child did not count on");
    struct grader_run_result r;
    grader_finish(c, 5, &r);
    CHECK(r.how == RUN_EXITED, "the child %s", describe(&r));
    free(before), free(after), free(resumed);
    if (g_contained)
        check_none_left(g_uid, "a child that took commands");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_normal_program, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_outcomes, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_timeout_kills_the_group, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_done_when, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_limit, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_disk_filler, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_memory_one_process, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_memory_many_processes, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_fork_bomb, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_setsid_escape, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_affinity_refused, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_own_session_niced, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_disk_filler_outside, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_disk_filler_outside_while_space_freed, test_setup,
                                        test_teardown),
        cmocka_unit_test_setup_teardown(test_neighbour_writes, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_cannot_write_outside, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_no_inherited_descriptors, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_channel, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_memfd_hog, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_output_in_budget, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_commands_and_pause, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_forking_spinners_time_out, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_reaped_helpers_finish, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_environment, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_busy_machine_is_not_graded, test_setup, test_teardown),
        cmocka_unit_test_setup_teardown(test_waits_beside_load, test_setup, test_teardown),
    };
    /* once with the fallback (uid, rlimits, the watch), once more with control groups where the
     * grader can make them (as root, with a writable /sys/fs/cgroup) */
    int failed = cmocka_run_group_tests_name("jail (uid, rlimits, watch)", tests, group_setup,
                                             group_teardown);
    struct grader_cgroup_student groups;
    char why[300];
    if (grader_cgroup_student_open(&groups, "test-jail", why, sizeof why) != 0) {
        print_message("jail with control groups: skipped (%s)\n", why);
        return failed;
    }
    char used[200], fallback[800];
    grader_cgroup_describe(&groups, used, sizeof used, fallback, sizeof fallback);
    print_message("jail with control groups: %s per run (%s)%s%s\n", grader_cgroup_mode(&groups),
                  used, fallback[0] ? "; without their controllers: " : "", fallback);
    g_js.cgroups = &groups;
    g_cgroups = 1;
    g_in_force = grader_cgroup_in_force(&groups);
    failed +=
        cmocka_run_group_tests_name("jail (control groups)", tests, group_setup, group_teardown);
    g_js.cgroups = NULL;
    g_cgroups = 0;
    g_in_force = 0;
    grader_cgroup_student_close(&groups);
    return failed;
}
