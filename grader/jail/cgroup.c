/* cgroup.c - a control group per student (see cgroup.h); a run's group is cgroup_run.c, the
 * files and mounts of the cgroup file system cgroup_fs.c.
 *
 * Why: a student's memory held in memfds (written, never mapped) escapes RLIMIT_DATA and the
 * resident-memory watch, RLIMIT_NPROC does not bind root, and nice levels do not share the CPU
 * equally between students. The kernel's own accounting does all three. Every group is made
 * under the grader's current group of its hierarchy (from /proc/self/cgroup and
 * /proc/self/mountinfo), never at a mount's top, so limits set around the grader still hold. */
#define _GNU_SOURCE
#include "jail/cgroup_fs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* v2: the calling process, alone in its group home, moves into a leaf home/clmm-grader-<pid> so
 * that home may hand controllers down; the leaf becomes trees[0].home, where close returns. */
static int vacate(struct grader_cgroup_student *s, const char *home) {
    char leaf[GRADER_CGROUP_PATH], name[48];
    snprintf(name, sizeof name, "clmm-grader-%ld", (long)getpid());
    if (!cgroup_alone_in(home) || cgroup_join(leaf, sizeof leaf, home, name) != 0 ||
        mkdir(leaf, 0755) != 0)
        return -1;
    if (cgroup_move_self(leaf) != 0) {
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
        cgroup_put(s->v2_outer, "cgroup.subtree_control", s->v2_enabled);
    s->v2_enabled[0] = '\0';
    if (cgroup_move_self(s->v2_outer) == 0) {
        rmdir(s->trees[0].home);
        memcpy(s->trees[0].home, s->v2_outer, sizeof s->v2_outer);
        s->v2_outer[0] = '\0';
    }
}

/* Undoes the first `made` student groups of s, and the move into the first `moved`. */
static void undo_student(struct grader_cgroup_student *s, int made, int moved) {
    for (int t = 0; t < moved; t++)
        cgroup_move_self(s->trees[t].home);
    if (s->mode == GRADER_CGROUP_V2 && made > 0) {
        char leaf[CGROUP_FILE_PATH];
        if (cgroup_join(leaf, sizeof leaf, s->trees[0].group, "grader") == 0)
            rmdir(leaf);
    }
    for (int t = 0; t < made; t++)
        cgroup_remove_group(s->trees[t].group);
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
    if (cgroup_find_mount("cgroup2", NULL, &m) != 0) {
        cgroup_say(why, size, "cgroups: no cgroup2 mount");
        return -1;
    }
    if (cgroup_own_group(NULL, path, sizeof path) < 0 ||
        cgroup_group_folder(&m, path, tree->home, sizeof tree->home) != 0) {
        cgroup_say(why, size, "cgroups: the grader's v2 group is not under %s", m.point);
        return -1;
    }
    if (m.read_only) {
        cgroup_say(why, size, "cgroups: %s is read-only", m.point);
        return -1;
    }
    static const char *const needed[] = {"cpu", "memory", "pids"};
    if (cgroup_get(tree->home, "cgroup.controllers", text, sizeof text) < 0) {
        cgroup_say(why, size, "cgroups: %s/cgroup.controllers: %s", tree->home, strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < sizeof needed / sizeof needed[0]; c++)
        if (!cgroup_list_has(text, needed[c])) {
            cgroup_say(why, size, "cgroups: v2 group %s lacks the %s controller", tree->home,
                       needed[c]);
            return -1;
        }
    /* the children of the grader's group need the controllers, and a group with processes in
     * it (but the root) cannot hand them down: where the grader is alone in its group, it moves
     * into a leaf of its own first (undone at close); others in it only the admin can move */
    static const char *const enable[] = {"+cpu", "+memory", "+pids"};
    if (cgroup_get(tree->home, "cgroup.subtree_control", text, sizeof text) < 0) {
        cgroup_say(why, size, "cgroups: %s/cgroup.subtree_control: %s", tree->home,
                   strerror(errno));
        return -1;
    }
    for (size_t c = 0; c < sizeof enable / sizeof enable[0]; c++) {
        if (cgroup_list_has(text, enable[c] + 1))
            continue;
        if (cgroup_put(tree->home, "cgroup.subtree_control", enable[c]) != 0 && errno == EBUSY &&
            !s->v2_outer[0] && vacate(s, tree->home) == 0)
            cgroup_put(tree->home, "cgroup.subtree_control", enable[c]);
        if (cgroup_get(tree->home, "cgroup.subtree_control", text, sizeof text) < 0 ||
            !cgroup_list_has(text, enable[c] + 1)) {
            cgroup_say(why, size, "cgroups: cannot enable %s under %s (%s)", enable[c] + 1,
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
    if (cgroup_join(tree->group, sizeof tree->group, tree->home, name) != 0 ||
        cgroup_join(leaf, sizeof leaf, tree->group, "grader") != 0 ||
        mkdir(tree->group, 0755) != 0) {
        cgroup_say(why, size, "cgroups: cannot make %s/%s: %s", tree->home, name, strerror(errno));
        undo_vacate(s);
        return -1;
    }
    s->mode = GRADER_CGROUP_V2;
    s->tree_count = 1;
    tree->controllers = GRADER_CGROUP_HAS_CPU | GRADER_CGROUP_HAS_CPUACCT |
                        GRADER_CGROUP_HAS_MEMORY | GRADER_CGROUP_HAS_PIDS |
                        GRADER_CGROUP_HAS_FREEZER;
    /* no internal processes: the grader waits in a leaf, the runs are its siblings */
    if (cgroup_put(tree->group, "cpu.weight", "100") != 0 ||
        cgroup_put(tree->group, "cgroup.subtree_control", "+memory +pids") != 0 ||
        mkdir(leaf, 0755) != 0 || cgroup_move_self(leaf) != 0) {
        cgroup_say(why, size, "cgroups: cannot set up %s: %s", tree->group, strerror(errno));
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
        int id = cgroup_own_group(v1_controllers[c].name, path, sizeof path);
        if (id < 0 || cgroup_find_mount("cgroup", v1_controllers[c].name, &m) != 0) {
            if (!v1_controllers[c].required)
                continue;
            cgroup_say(why, size, "cgroups: no v1 %s hierarchy", v1_controllers[c].name);
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
            cgroup_say(why, size, "cgroups: %s is read-only", m.point);
            return -1;
        }
        struct grader_cgroup_tree *tree = &s->trees[t];
        if (cgroup_group_folder(&m, path, tree->home, sizeof tree->home) != 0 ||
            cgroup_join(tree->group, sizeof tree->group, tree->home, name) != 0) {
            cgroup_say(why, size, "cgroups: the grader's %s group is not under %s",
                       v1_controllers[c].name, m.point);
            return -1;
        }
        tree->controllers = v1_controllers[c].bit;
        ids[t] = id;
        s->tree_count++;
    }
    s->mode = GRADER_CGROUP_V1;
    for (int t = 0; t < s->tree_count; t++)
        if (mkdir(s->trees[t].group, 0755) != 0) {
            cgroup_say(why, size, "cgroups: cannot make %s: %s", s->trees[t].group,
                       strerror(errno));
            undo_student(s, t, 0);
            return -1;
        }
    for (int t = 0; t < s->tree_count; t++) {
        struct grader_cgroup_tree *tree = &s->trees[t];
        if (tree->controllers & GRADER_CGROUP_HAS_MEMORY) {
            char probe[CGROUP_FILE_PATH];
            s->has_memsw =
                cgroup_join(probe, sizeof probe, tree->group, "memory.memsw.limit_in_bytes") == 0 &&
                access(probe, F_OK) == 0;
        }
        if (((tree->controllers & GRADER_CGROUP_HAS_CPU) &&
             cgroup_put(tree->group, "cpu.shares", "1024") != 0) ||
            cgroup_move_self(tree->group) != 0) {
            cgroup_say(why, size, "cgroups: cannot set up %s: %s", tree->group, strerror(errno));
            undo_student(s, s->tree_count, t);
            return -1;
        }
    }
    return 0;
}

/* A group folder of a grader that died, and every group under it: thawed (a frozen process
 * cannot act on the SIGKILL its parent's death sends it, so a grader killed while a student's run
 * was paused left it frozen for good), its processes killed, its folders removed deepest first. */
static void sweep_group(const char *dir, int depth) {
    cgroup_put(dir, "freezer.state", "THAWED"); /* v1; v2's is cgroup.freeze (either may fail) */
    cgroup_put(dir, "cgroup.freeze", "0");
    char procs[CGROUP_FILE_PATH];
    FILE *f =
        cgroup_join(procs, sizeof procs, dir, "cgroup.procs") == 0 ? fopen(procs, "re") : NULL;
    long pid;
    while (f && fscanf(f, "%ld", &pid) == 1)
        if (pid > 1)
            kill((pid_t)pid, SIGKILL);
    if (f)
        fclose(f);
    DIR *d = depth < 8 ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char sub[CGROUP_FILE_PATH];
        struct stat st;
        if (e->d_name[0] != '.' && cgroup_join(sub, sizeof sub, dir, e->d_name) == 0 &&
            stat(sub, &st) == 0 && S_ISDIR(st.st_mode))
            sweep_group(sub, depth + 1);
    }
    if (d)
        closedir(d);
    cgroup_remove_group(dir);
}

/* The groups under home that a grader made (clmm-<label>-<pid>, clmm-grader-<pid>) and left when
 * it died, killed with -9 half-way through a student: swept. A group whose pid lives (another
 * grader of the batch, or a reused pid) is left alone. */
static void sweep_dead_graders(const char *home) {
    DIR *d = opendir(home);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *dash = strrchr(e->d_name, '-');
        char *end = NULL;
        long pid = dash ? strtol(dash + 1, &end, 10) : 0;
        char dir[CGROUP_FILE_PATH];
        if (strncmp(e->d_name, "clmm-", 5) == 0 && end && end != dash + 1 && *end == '\0' &&
            pid > 1 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH &&
            cgroup_join(dir, sizeof dir, home, e->d_name) == 0)
            sweep_group(dir, 0);
    }
    if (d)
        closedir(d);
}

int grader_cgroup_student_open(struct grader_cgroup_student *s, const char *label, char *why,
                               size_t why_size) {
    memset(s, 0, sizeof *s);
    if (geteuid() != 0) {
        cgroup_say(why, why_size, "cgroups: not root");
        return -1;
    }
    char name[96];
    student_group_name(label, name, sizeof name);
    char v2_why[512];
    int opened = open_v2(s, name, v2_why, sizeof v2_why) == 0;
    char v1_why[512];
    if (!opened) {
        memset(s, 0, sizeof *s);
        opened = open_v1(s, name, v1_why, sizeof v1_why) == 0;
    }
    if (opened) {
        for (int t = 0; t < s->tree_count; t++)
            sweep_dead_graders(s->trees[t].home);
        return 0;
    }
    memset(s, 0, sizeof *s);
    /* where there is no v1 hierarchy at all, the v2 reason is the one that tells */
    cgroup_say(why, why_size, "%s", strstr(v1_why, "no v1 ") ? v2_why : v1_why);
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
