/* cgroup.c - a control group per student and per run (see cgroup.h).
 *
 * Why: a student's memory held in memfds (written, never mapped) escapes RLIMIT_DATA and the
 * resident-memory watch, RLIMIT_NPROC does not bind root, and nice levels do not share the CPU
 * equally between students. The kernel's own accounting does all three. Every group is made
 * under the grader's current group of its hierarchy (from /proc/self/cgroup and
 * /proc/self/mountinfo), never at a mount's top, so limits set around the grader still hold. */
#define _GNU_SOURCE /* kill with sys/types */
#include "jail/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CGROUP_WAIT_SECONDS 5.0 /* for a group to freeze, or to empty after SIGKILL */
#define CGROUP_FILE_PATH    (GRADER_CGROUP_PATH + 64)

/* The v1 controllers used, and whether grading needs each (without a freezer, runs are stopped
 * with signals). */
static const struct {
    const char *name; /* as in /proc/self/cgroup and the mount's options */
    unsigned bit;     /* GRADER_CGROUP_HAS_* */
    int required;     /* no v1 mode without it */
} v1_controllers[] = {
    {"cpu", GRADER_CGROUP_HAS_CPU, 1},         {"cpuacct", GRADER_CGROUP_HAS_CPUACCT, 1},
    {"memory", GRADER_CGROUP_HAS_MEMORY, 1},   {"pids", GRADER_CGROUP_HAS_PIDS, 1},
    {"freezer", GRADER_CGROUP_HAS_FREEZER, 0},
};
#define V1_CONTROLLER_COUNT (sizeof v1_controllers / sizeof v1_controllers[0])

static void say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *why, size_t size, const char *fmt, ...) {
    if (!why || size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pause_briefly(void) {
    struct timespec t = {0, 5 * 1000 * 1000};
    nanosleep(&t, NULL);
}

/* a/b into out; -1 (ENAMETOOLONG) when it does not fit */
static int join(char *out, size_t size, const char *a, const char *b) {
    /* by hand: snprintf's restrict rules out a and out in one struct (a student's tree) */
    size_t a_len = strlen(a), b_len = strlen(b);
    if (a_len + 1 + b_len >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memmove(out, a, a_len);
    out[a_len] = '/';
    memmove(out + a_len + 1, b, b_len + 1);
    return 0;
}

/* Writes text into dir/name: 0, or -1 with errno. */
static int put(const char *dir, const char *name, const char *text) {
    char path[CGROUP_FILE_PATH];
    if (join(path, sizeof path, dir, name) != 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t wrote = write(fd, text, len);
    int saved = errno;
    close(fd);
    errno = saved;
    return wrote == (ssize_t)len ? 0 : -1;
}

/* dir/name into text (NUL-terminated, cut at size): bytes read, or -1. */
static long get(const char *dir, const char *name, char *text, size_t size) {
    char path[CGROUP_FILE_PATH];
    if (join(path, sizeof path, dir, name) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    ssize_t n;
    while (got + 1 < size && (n = read(fd, text + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    text[got] = '\0';
    return (long)got;
}

/* The file dir/name as one number, or -1. */
static long long get_number(const char *dir, const char *name) {
    char text[64];
    if (get(dir, name, text, sizeof text) <= 0)
        return -1;
    return strtoll(text, NULL, 10);
}

/* The number after `key` in a flat-keyed file ("key value" lines: cpu.stat, memory.events), or
 * -1. */
static long long get_keyed(const char *dir, const char *name, const char *key) {
    char text[4096];
    if (get(dir, name, text, sizeof text) < 0)
        return -1;
    size_t key_len = strlen(key);
    for (const char *line = text; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (!strncmp(line, key, key_len) && line[key_len] == ' ')
            return strtoll(line + key_len + 1, NULL, 10);
    return -1;
}

/* Whether a comma-separated (or space-separated) list holds word. */
static int list_has(const char *list, const char *word) {
    size_t len = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += len)
        if ((p == list || p[-1] == ',' || p[-1] == ' ') &&
            (p[len] == '\0' || p[len] == ',' || p[len] == ' ' || p[len] == '\n'))
            return 1;
    return 0;
}

/* A cgroup file system mount as /proc/self/mountinfo tells it. */
struct cgroup_mount {
    char point[GRADER_CGROUP_PATH]; /* where it is mounted */
    char root[GRADER_CGROUP_PATH];  /* the group seen at the mount point */
    int read_only;                  /* mounted ro */
};

/* The last mount of type "cgroup2", or of type "cgroup" with controller among its options: 0,
 * or -1. The last: a sandbox that binds /sys/fs/cgroup writable over a read-only view of it
 * leaves both in mountinfo, and the later one covers the earlier. */
static int find_mount(const char *type, const char *controller, struct cgroup_mount *m) {
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -1;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char options[256], fs_type[32], super[1024];
        struct cgroup_mount seen;
        const char *tail = strstr(line, " - ");
        if (!tail ||
            sscanf(line, "%*d %*d %*s %383s %383s %255s", seen.root, seen.point, options) != 3 ||
            sscanf(tail, " - %31s %*s %1023s", fs_type, super) != 2 || strcmp(fs_type, type) != 0)
            continue;
        if (controller && !list_has(super, controller))
            continue;
        seen.read_only = list_has(options, "ro");
        *m = seen;
        found = 1;
    }
    fclose(f);
    return found ? 0 : -1;
}

/* The calling process's group path in the v1 hierarchy holding controller (or the v2 one, for
 * NULL) into path: its hierarchy id, or -1. */
static int own_group(const char *controller, char *path, size_t size) {
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[4096];
    int id = -1;
    while (id < 0 && fgets(line, sizeof line, f)) {
        char *first = strchr(line, ':'), *second = first ? strchr(first + 1, ':') : NULL;
        if (!second)
            continue;
        *first = *second = '\0';
        int v2_line = !strcmp(line, "0") && first + 1 == second;
        if (controller ? !list_has(first + 1, controller) : !v2_line)
            continue;
        second[1 + strcspn(second + 1, "\n")] = '\0';
        if (snprintf(path, size, "%s", second + 1) >= (int)size)
            continue;
        id = atoi(line);
    }
    fclose(f);
    return id;
}

/* The folder of group path under mount m into dir: 0, or -1 when the group is outside what the
 * mount shows. */
static int group_folder(const struct cgroup_mount *m, const char *path, char *dir, size_t size) {
    const char *rest = path;
    size_t root_len = strlen(m->root);
    if (strcmp(m->root, "/") != 0) {
        if (strncmp(path, m->root, root_len) != 0 || (path[root_len] && path[root_len] != '/'))
            return -1;
        rest = path + root_len;
    }
    while (*rest == '/')
        rest++;
    int len =
        *rest ? snprintf(dir, size, "%s/%s", m->point, rest) : snprintf(dir, size, "%s", m->point);
    return len < 0 || (size_t)len >= size ? -1 : 0;
}

/* Moves the calling process into group dir. */
static int move_self(const char *dir) {
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    return put(dir, "cgroup.procs", pid);
}

/* Removes a group, waiting a little for its last processes to leave (rmdir fails with EBUSY
 * while any is still exiting). */
static void remove_group(const char *dir) {
    for (int round = 0; round < 200 && rmdir(dir) != 0 && errno == EBUSY; round++)
        pause_briefly();
}

/* Whether the only process in group dir is the calling one. */
static int alone_in(const char *dir) {
    char path[CGROUP_FILE_PATH];
    if (join(path, sizeof path, dir, "cgroup.procs") != 0)
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    long pid, others = 0, self = 0;
    while (fscanf(f, "%ld", &pid) == 1)
        pid == (long)getpid() ? self++ : others++;
    fclose(f);
    return self == 1 && others == 0;
}

/* v2: the calling process, alone in its group home, moves into a leaf home/clmm-grader-<pid> so
 * that home may hand controllers down; the leaf becomes trees[0].home, where close returns. */
static int vacate(struct grader_cgroup_student *s, const char *home) {
    char leaf[GRADER_CGROUP_PATH], name[48];
    snprintf(name, sizeof name, "clmm-grader-%ld", (long)getpid());
    if (!alone_in(home) || join(leaf, sizeof leaf, home, name) != 0 || mkdir(leaf, 0755) != 0)
        return -1;
    if (move_self(leaf) != 0) {
        rmdir(leaf);
        return -1;
    }
    memcpy(s->v2_outer, home, sizeof s->v2_outer);
    memcpy(s->trees[0].home, leaf, sizeof leaf);
    return 0;
}

/* Undoes vacate: the controllers enabled in the outer group off again (refused while other
 * students' groups still use them: then the grader stays in its leaf), the grader back in it. */
static void undo_vacate(struct grader_cgroup_student *s) {
    if (!s->v2_outer[0])
        return;
    if (s->v2_enabled[0])
        put(s->v2_outer, "cgroup.subtree_control", s->v2_enabled);
    s->v2_enabled[0] = '\0';
    if (move_self(s->v2_outer) == 0) {
        rmdir(s->trees[0].home);
        memcpy(s->trees[0].home, s->v2_outer, sizeof s->v2_outer);
        s->v2_outer[0] = '\0';
    }
}

/* Undoes the first `made` student groups of s, and the move into the first `moved`. */
static void undo_student(struct grader_cgroup_student *s, int made, int moved) {
    for (int t = 0; t < moved; t++)
        move_self(s->trees[t].home);
    if (s->mode == GRADER_CGROUP_V2 && made > 0) {
        char leaf[CGROUP_FILE_PATH];
        if (join(leaf, sizeof leaf, s->trees[0].group, "grader") == 0)
            rmdir(leaf);
    }
    for (int t = 0; t < made; t++)
        remove_group(s->trees[t].group);
    undo_vacate(s);
    s->mode = GRADER_CGROUP_NONE;
    s->tree_count = 0;
}

/* The student's group name: clmm-<label>-<pid>, the label cut to safe characters. */
static void student_group_name(const char *label, char *name, size_t size) {
    char safe[64];
    size_t len = 0;
    for (; label && label[len] && len + 1 < sizeof safe; len++) {
        char c = label[len];
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                   c == '_' || c == '-' || c == '.';
        safe[len] = keep ? c : '_';
    }
    safe[len] = '\0';
    snprintf(name, size, "clmm-%s-%ld", len ? safe : "student", (long)getpid());
}

static int open_v2(struct grader_cgroup_student *s, const char *name, char *why, size_t size) {
    struct cgroup_mount m;
    char path[GRADER_CGROUP_PATH], text[256];
    struct grader_cgroup_tree *tree = &s->trees[0];
    if (find_mount("cgroup2", NULL, &m) != 0) {
        say(why, size, "cgroups: no cgroup2 mount");
        return -1;
    }
    if (own_group(NULL, path, sizeof path) < 0 ||
        group_folder(&m, path, tree->home, sizeof tree->home) != 0) {
        say(why, size, "cgroups: the grader's v2 group is not under %s", m.point);
        return -1;
    }
    if (m.read_only) {
        say(why, size, "cgroups: %s is read-only", m.point);
        return -1;
    }
    static const char *const needed[] = {"cpu", "memory", "pids"};
    if (get(tree->home, "cgroup.controllers", text, sizeof text) < 0) {
        say(why, size, "cgroups: %s/cgroup.controllers: %s", tree->home, strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < sizeof needed / sizeof needed[0]; c++)
        if (!list_has(text, needed[c])) {
            say(why, size, "cgroups: v2 group %s lacks the %s controller", tree->home, needed[c]);
            return -1;
        }
    /* the children of the grader's group need the controllers, and a group with processes in
     * it (but the root) cannot hand them down: where the grader is alone in its group, it moves
     * into a leaf of its own first (undone at close); others in it only the admin can move */
    static const char *const enable[] = {"+cpu", "+memory", "+pids"};
    if (get(tree->home, "cgroup.subtree_control", text, sizeof text) < 0) {
        say(why, size, "cgroups: %s/cgroup.subtree_control: %s", tree->home, strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < sizeof enable / sizeof enable[0]; c++) {
        if (list_has(text, enable[c] + 1))
            continue;
        if (put(tree->home, "cgroup.subtree_control", enable[c]) != 0 && errno == EBUSY &&
            !s->v2_outer[0] && vacate(s, tree->home) == 0)
            put(tree->home, "cgroup.subtree_control", enable[c]);
        if (get(tree->home, "cgroup.subtree_control", text, sizeof text) < 0 ||
            !list_has(text, enable[c] + 1)) {
            say(why, size, "cgroups: cannot enable %s under %s (%s)", enable[c] + 1,
                s->v2_outer[0] ? s->v2_outer : tree->home,
                s->v2_outer[0] ? "refused" : "other processes are in it");
            undo_vacate(s);
            return -1;
        }
        size_t used = strlen(s->v2_enabled);
        snprintf(s->v2_enabled + used, sizeof s->v2_enabled - used, "%s-%s", used ? " " : "",
                 enable[c] + 1);
    }
    char leaf[CGROUP_FILE_PATH];
    if (join(tree->group, sizeof tree->group, tree->home, name) != 0 ||
        join(leaf, sizeof leaf, tree->group, "grader") != 0 || mkdir(tree->group, 0755) != 0) {
        say(why, size, "cgroups: cannot make %s/%s: %s", tree->home, name, strerror(errno));
        undo_vacate(s);
        return -1;
    }
    s->mode = GRADER_CGROUP_V2;
    s->tree_count = 1;
    tree->controllers = GRADER_CGROUP_HAS_CPU | GRADER_CGROUP_HAS_CPUACCT |
                        GRADER_CGROUP_HAS_MEMORY | GRADER_CGROUP_HAS_PIDS |
                        GRADER_CGROUP_HAS_FREEZER;
    /* no internal processes: the grader waits in a leaf, the runs are its siblings */
    if (put(tree->group, "cpu.weight", "100") != 0 ||
        put(tree->group, "cgroup.subtree_control", "+memory +pids") != 0 ||
        mkdir(leaf, 0755) != 0 || move_self(leaf) != 0) {
        say(why, size, "cgroups: cannot set up %s: %s", tree->group, strerror(errno));
        undo_student(s, 1, 0);
        return -1;
    }
    return 0;
}

static int open_v1(struct grader_cgroup_student *s, const char *name, char *why, size_t size) {
    int ids[GRADER_CGROUP_TREES];
    s->tree_count = 0;
    for (size_t c = 0; c < V1_CONTROLLER_COUNT; c++) {
        char path[GRADER_CGROUP_PATH];
        struct cgroup_mount m;
        int id = own_group(v1_controllers[c].name, path, sizeof path);
        if (id < 0 || find_mount("cgroup", v1_controllers[c].name, &m) != 0) {
            if (!v1_controllers[c].required)
                continue;
            say(why, size, "cgroups: no v1 %s hierarchy", v1_controllers[c].name);
            return -1;
        }
        int t = 0;
        while (t < s->tree_count && ids[t] != id)
            t++;
        if (t < s->tree_count) { /* mounted together with an earlier one (cpu,cpuacct) */
            s->trees[t].controllers |= v1_controllers[c].bit;
            continue;
        }
        if (m.read_only) {
            say(why, size, "cgroups: %s is read-only", m.point);
            return -1;
        }
        struct grader_cgroup_tree *tree = &s->trees[t];
        if (group_folder(&m, path, tree->home, sizeof tree->home) != 0 ||
            join(tree->group, sizeof tree->group, tree->home, name) != 0) {
            say(why, size, "cgroups: the grader's %s group is not under %s", v1_controllers[c].name,
                m.point);
            return -1;
        }
        tree->controllers = v1_controllers[c].bit;
        ids[t] = id;
        s->tree_count++;
    }
    s->mode = GRADER_CGROUP_V1;
    for (int t = 0; t < s->tree_count; t++)
        if (mkdir(s->trees[t].group, 0755) != 0) {
            say(why, size, "cgroups: cannot make %s: %s", s->trees[t].group, strerror(errno));
            undo_student(s, t, 0);
            return -1;
        }
    for (int t = 0; t < s->tree_count; t++) {
        struct grader_cgroup_tree *tree = &s->trees[t];
        if (tree->controllers & GRADER_CGROUP_HAS_MEMORY) {
            char probe[CGROUP_FILE_PATH];
            s->has_memsw =
                join(probe, sizeof probe, tree->group, "memory.memsw.limit_in_bytes") == 0 &&
                access(probe, F_OK) == 0;
        }
        if (((tree->controllers & GRADER_CGROUP_HAS_CPU) &&
             put(tree->group, "cpu.shares", "1024") != 0) ||
            move_self(tree->group) != 0) {
            say(why, size, "cgroups: cannot set up %s: %s", tree->group, strerror(errno));
            undo_student(s, s->tree_count, t);
            return -1;
        }
    }
    return 0;
}

int grader_cgroup_student_open(struct grader_cgroup_student *s, const char *label, char *why,
                               size_t why_size) {
    memset(s, 0, sizeof *s);
    if (geteuid() != 0) {
        say(why, why_size, "cgroups: not root");
        return -1;
    }
    char name[96];
    student_group_name(label, name, sizeof name);
    char v2_why[512];
    if (open_v2(s, name, v2_why, sizeof v2_why) == 0)
        return 0;
    memset(s, 0, sizeof *s);
    char v1_why[512];
    if (open_v1(s, name, v1_why, sizeof v1_why) == 0)
        return 0;
    memset(s, 0, sizeof *s);
    /* where there is no v1 hierarchy at all, the v2 reason is the one that tells */
    say(why, why_size, "%s", strstr(v1_why, "no v1 ") ? v2_why : v1_why);
    return -1;
}

const char *grader_cgroup_mode(const struct grader_cgroup_student *s) {
    return s->mode == GRADER_CGROUP_V2   ? "cgroup v2"
           : s->mode == GRADER_CGROUP_V1 ? "cgroup v1"
                                         : "none";
}

void grader_cgroup_student_close(struct grader_cgroup_student *s) {
    if (s->mode == GRADER_CGROUP_NONE)
        return;
    undo_student(s, s->tree_count, s->tree_count);
}

int grader_cgroup_run_open(struct grader_cgroup_student *s, struct grader_cgroup_run *r,
                           long long memory_bytes, long processes, char *why, size_t why_size) {
    memset(r, 0, sizeof *r);
    for (int t = 0; t < GRADER_CGROUP_TREES; t++)
        r->procs_fd[t] = -1;
    if (s->mode == GRADER_CGROUP_NONE) {
        say(why, why_size, "cgroups: the student has no group");
        return -1;
    }
    char name[32], memory[32], tasks[32];
    snprintf(name, sizeof name, "run-%u", ++s->runs_made);
    if (memory_bytes > 0)
        snprintf(memory, sizeof memory, "%lld", memory_bytes);
    else
        snprintf(memory, sizeof memory, s->mode == GRADER_CGROUP_V2 ? "max" : "-1");
    if (processes > 0)
        snprintf(tasks, sizeof tasks, "%ld", processes);
    else
        snprintf(tasks, sizeof tasks, "max");
    r->mode = s->mode;
    for (int t = 0; t < s->tree_count; t++) {
        const char *dir = r->dir[t];
        unsigned has = r->controllers[t] = s->trees[t].controllers;
        char procs[CGROUP_FILE_PATH];
        if (join(r->dir[t], sizeof r->dir[t], s->trees[t].group, name) != 0 ||
            mkdir(dir, 0755) != 0) {
            say(why, why_size, "cgroups: cannot make %s/%s: %s", s->trees[t].group, name,
                strerror(errno));
            grader_cgroup_run_close(r);
            return -1;
        }
        r->tree_count = t + 1;
        int failed = 0;
        if (r->mode == GRADER_CGROUP_V2) {
            /* swap counts as memory: none at all, or memory.max would not bound it */
            failed = put(dir, "memory.max", memory) != 0 ||
                     (put(dir, "memory.swap.max", "0") != 0 && errno != ENOENT) ||
                     put(dir, "pids.max", tasks) != 0;
        } else {
            /* memsw bounds memory plus swap, and may never be below the memory limit: set after */
            if (has & GRADER_CGROUP_HAS_MEMORY)
                failed = put(dir, "memory.limit_in_bytes", memory) != 0 ||
                         (s->has_memsw && put(dir, "memory.memsw.limit_in_bytes", memory) != 0);
            if (!failed && (has & GRADER_CGROUP_HAS_PIDS))
                failed = put(dir, "pids.max", tasks) != 0;
        }
        if (!failed && join(procs, sizeof procs, dir, "cgroup.procs") == 0)
            r->procs_fd[t] = open(procs, O_WRONLY | O_CLOEXEC);
        if (failed || r->procs_fd[t] < 0) {
            say(why, why_size, "cgroups: cannot set up %s: %s", dir, strerror(errno));
            grader_cgroup_run_close(r);
            return -1;
        }
    }
    return 0;
}

int grader_cgroup_run_enter(const struct grader_cgroup_run *r) {
    for (int t = 0; t < r->tree_count; t++)
        if (r->procs_fd[t] >= 0 && write(r->procs_fd[t], "0", 1) != 1)
            return -1;
    return 0;
}

/* The run's group in the hierarchy holding controller bit, or NULL. */
static const char *run_dir(const struct grader_cgroup_run *r, unsigned bit) {
    for (int t = 0; t < r->tree_count; t++)
        if (r->controllers[t] & bit)
            return r->dir[t];
    return NULL;
}

double grader_cgroup_run_cpu_seconds(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_CPUACCT);
    if (!dir)
        return -1;
    if (r->mode == GRADER_CGROUP_V2) {
        long long usec = get_keyed(dir, "cpu.stat", "usage_usec");
        return usec < 0 ? -1 : 1e-6 * (double)usec;
    }
    long long nsec = get_number(dir, "cpuacct.usage");
    return nsec < 0 ? -1 : 1e-9 * (double)nsec;
}

int grader_cgroup_run_memory_hit(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_MEMORY);
    if (!dir)
        return 0;
    if (r->mode == GRADER_CGROUP_V2) {
        if (get_keyed(dir, "memory.events", "oom_kill") > 0)
            return 2;
        return get_keyed(dir, "memory.events", "max") > 0 ||
               get_keyed(dir, "memory.events", "oom") > 0;
    }
    if (get_keyed(dir, "memory.oom_control", "oom_kill") > 0)
        return 2;
    return get_number(dir, "memory.failcnt") > 0 || get_number(dir, "memory.memsw.failcnt") > 0;
}

long long grader_cgroup_run_memory_bytes(const struct grader_cgroup_run *r) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_MEMORY);
    if (!dir)
        return -1;
    return get_number(dir,
                      r->mode == GRADER_CGROUP_V2 ? "memory.current" : "memory.usage_in_bytes");
}

/* Sends sig to every process of the run; returns how many there were (-1: unknown). The list
 * is the freezer's where there is one: what kill froze is what it signals. */
static long signal_all(const struct grader_cgroup_run *r, int sig) {
    char path[CGROUP_FILE_PATH];
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_FREEZER);
    if (!dir)
        dir = run_dir(r, GRADER_CGROUP_HAS_MEMORY);
    if (!dir || join(path, sizeof path, dir, "cgroup.procs") != 0)
        return -1;
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long count = 0, pid;
    while (fscanf(f, "%ld", &pid) == 1) {
        if (sig && pid > 0)
            kill((pid_t)pid, sig);
        count++;
    }
    fclose(f);
    return count;
}

long grader_cgroup_run_processes(const struct grader_cgroup_run *r) {
    return r->mode == GRADER_CGROUP_NONE ? -1 : signal_all(r, 0);
}

/* Whether the run's freezer says it is frozen (v1 freezer.state, v2 cgroup.events). */
static int is_frozen(const struct grader_cgroup_run *r, const char *dir) {
    if (r->mode == GRADER_CGROUP_V2)
        return get_keyed(dir, "cgroup.events", "frozen") == 1;
    char state[32];
    return get(dir, "freezer.state", state, sizeof state) > 0 && !strncmp(state, "FROZEN", 6);
}

/* Freezes or thaws, waiting up to `wait` seconds for frozen; 0, or -1 where no freezer works
 * (every process was then sent SIGSTOP or SIGCONT). */
static int freeze_within(const struct grader_cgroup_run *r, int frozen, double wait) {
    const char *dir = run_dir(r, GRADER_CGROUP_HAS_FREEZER);
    int done = 0;
    if (dir && r->mode == GRADER_CGROUP_V2)
        done = put(dir, "cgroup.freeze", frozen ? "1" : "0") == 0;
    else if (dir)
        done = put(dir, "freezer.state", frozen ? "FROZEN" : "THAWED") == 0;
    if (!done) {
        signal_all(r, frozen ? SIGSTOP : SIGCONT);
        return -1;
    }
    for (double end = seconds_now() + wait; frozen && !is_frozen(r, dir) && seconds_now() < end;)
        pause_briefly();
    return 0;
}

void grader_cgroup_run_freeze(const struct grader_cgroup_run *r, int frozen) {
    if (r->mode != GRADER_CGROUP_NONE)
        freeze_within(r, frozen, CGROUP_WAIT_SECONDS);
}

void grader_cgroup_run_kill(struct grader_cgroup_run *r) {
    if (r->mode == GRADER_CGROUP_NONE)
        return;
    double end = seconds_now() + CGROUP_WAIT_SECONDS;
    if (r->mode == GRADER_CGROUP_V2 && put(r->dir[0], "cgroup.kill", "1") == 0) {
        while (signal_all(r, 0) > 0 && seconds_now() < end)
            pause_briefly();
        return;
    }
    /* frozen, nothing can fork between the listing and the kill; thawed, the killed go */
    while (signal_all(r, 0) > 0 && seconds_now() < end) {
        freeze_within(r, 1, 0.5);
        signal_all(r, SIGKILL);
        freeze_within(r, 0, 0);
        if (signal_all(r, 0) > 0)
            pause_briefly();
    }
}

void grader_cgroup_run_close(struct grader_cgroup_run *r) {
    if (r->mode == GRADER_CGROUP_NONE)
        return;
    grader_cgroup_run_kill(r);
    for (int t = 0; t < r->tree_count; t++) {
        if (r->procs_fd[t] >= 0)
            close(r->procs_fd[t]);
        r->procs_fd[t] = -1;
        remove_group(r->dir[t]);
    }
    r->mode = GRADER_CGROUP_NONE;
    r->tree_count = 0;
}
