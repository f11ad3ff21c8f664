/* cgroup_student.c - a control group per student (see cgroup.h); a run's group is cgroup_run.c, the
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

/* The controllers used, each where it is available (GRADER_CGROUP_HAS_*), and what the runs
 * get instead where it is not. */
static const struct {
    const char *name;     /* as in /proc/self/cgroup, the mount's options, cgroup.controllers */
    unsigned bit;         /* GRADER_CGROUP_HAS_* */
    int v2;               /* a v2 controller (v2 counts CPU time and freezes without one) */
    const char *does;     /* what it gives, for the Containment line */
    const char *fallback; /* what the runs get without it */
} controllers[] = {
    {"memory", GRADER_CGROUP_HAS_MEMORY, 1, "memory",
     "memory by RLIMIT_DATA and the grader's watch"},
    {"pids", GRADER_CGROUP_HAS_PIDS, 1, "processes",
     "processes by RLIMIT_NPROC under the run's uid"},
    {"cpu", GRADER_CGROUP_HAS_CPU, 1, "CPU share", "CPU share by a session of its own per run"},
    {"cpuacct", GRADER_CGROUP_HAS_CPUACCT, 0, "CPU time", "CPU time by the grader's watch"},
    {"freezer", GRADER_CGROUP_HAS_FREEZER, 0, "freezing", "pausing by SIGSTOP"},
};
#define CONTROLLER_COUNT (sizeof controllers / sizeof controllers[0])

/* Appends ", name" (or "name" first) to a list. */
static void list_add(char *list, size_t size, const char *name) {
    size_t used = strlen(list);
    snprintf(list + used, size - used, "%s%s", used ? ", " : "", name);
}

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

/* The grader's v2 group (its folder into home) and the controllers it has (GRADER_CGROUP_HAS_*
 * bits into *available): 0, or -1 with why. */
static int v2_home(char *home, size_t home_size, unsigned *available, char *why, size_t size) {
    struct cgroup_mount m;
    char path[GRADER_CGROUP_PATH], text[256];
    if (cgroup_find_mount("cgroup2", NULL, &m) != 0) {
        cgroup_say(why, size, "cgroups: no cgroup2 mount");
        return -1;
    }
    if (cgroup_own_group(NULL, path, sizeof path) < 0 ||
        cgroup_group_folder(&m, path, home, home_size) != 0) {
        cgroup_say(why, size, "cgroups: the grader's v2 group is not under %s", m.point);
        return -1;
    }
    if (m.read_only) {
        cgroup_say(why, size, "cgroups: %s is read-only", m.point);
        return -1;
    }
    if (cgroup_get(home, "cgroup.controllers", text, sizeof text) < 0) {
        cgroup_say(why, size, "cgroups: %s/cgroup.controllers: %s", home, strerror(errno));
        return -1;
    }
    *available = 0;
    for (size_t c = 0; c < CONTROLLER_COUNT; c++)
        if (controllers[c].v2 && cgroup_list_has(text, controllers[c].name))
            *available |= controllers[c].bit;
    return 0;
}

/* v2: the controllers of `available` handed down from home to its children (home's
 * cgroup.subtree_control), those that could be into *handed. A group with processes in it (but
 * the root) cannot hand any down: where the grader is alone in its group it moves into a leaf of
 * its own first (undone at close); where others are in it, only whoever started them can move
 * them, and the runs go without. Why one could not be handed down goes into s->missing. */
static void hand_down(struct grader_cgroup_student *s, const char *home, unsigned available,
                      unsigned *handed) {
    char text[256];
    *handed = 0;
    for (size_t c = 0; c < CONTROLLER_COUNT; c++) {
        if (!(available & controllers[c].bit))
            continue;
        char enable[16];
        snprintf(enable, sizeof enable, "+%s", controllers[c].name);
        int on = cgroup_get(home, "cgroup.subtree_control", text, sizeof text) >= 0 &&
                 cgroup_list_has(text, controllers[c].name);
        if (!on && cgroup_put(home, "cgroup.subtree_control", enable) != 0 && errno == EBUSY &&
            !s->v2_outer[0] && vacate(s, home) == 0)
            cgroup_put(home, "cgroup.subtree_control", enable);
        if (!on && cgroup_get(home, "cgroup.subtree_control", text, sizeof text) >= 0 &&
            cgroup_list_has(text, controllers[c].name)) {
            on = 1;
            size_t used = strlen(s->v2_enabled);
            snprintf(s->v2_enabled + used, sizeof s->v2_enabled - used, "%s-%s", used ? " " : "",
                     controllers[c].name);
        }
        if (on) {
            *handed |= controllers[c].bit;
            continue;
        }
        char note[GRADER_CGROUP_PATH + 80];
        snprintf(note, sizeof note, "%s: cannot be handed down from %s (%s)", controllers[c].name,
                 home, s->v2_outer[0] ? "refused" : "other processes are in it");
        list_add(s->missing, sizeof s->missing, note);
    }
}

static int open_v2(struct grader_cgroup_student *s, const char *name, char *why, size_t size) {
    struct grader_cgroup_tree *tree = &s->trees[0];
    char home[GRADER_CGROUP_PATH];
    unsigned available, handed;
    if (v2_home(home, sizeof home, &available, why, size) != 0)
        return -1;
    memcpy(tree->home, home, sizeof home); /* where the grader goes back (a leaf if it moves) */
    for (size_t c = 0; c < CONTROLLER_COUNT; c++)
        if (controllers[c].v2 && !(available & controllers[c].bit)) {
            char note[GRADER_CGROUP_PATH + 48];
            snprintf(note, sizeof note, "%s: not delegated to %s", controllers[c].name, home);
            list_add(s->missing, sizeof s->missing, note);
        }
    hand_down(s, home, available, &handed);
    /* the student's group under home (beside the grader's leaf, when it moved into one) */
    char leaf[CGROUP_FILE_PATH];
    if (cgroup_join(tree->group, sizeof tree->group, home, name) != 0 ||
        cgroup_join(leaf, sizeof leaf, tree->group, "grader") != 0 ||
        mkdir(tree->group, 0755) != 0) {
        cgroup_say(why, size, "cgroups: cannot make %s/%s: %s", home, name, strerror(errno));
        undo_vacate(s);
        return -1;
    }
    s->mode = GRADER_CGROUP_V2;
    s->tree_count = 1;
    /* every v2 group counts its CPU time (cpu.stat) and freezes (cgroup.freeze, Linux 5.2) */
    char probe[CGROUP_FILE_PATH];
    tree->controllers = handed | GRADER_CGROUP_HAS_CPUACCT;
    if (cgroup_join(probe, sizeof probe, tree->group, "cgroup.freeze") == 0 &&
        access(probe, F_OK) == 0)
        tree->controllers |= GRADER_CGROUP_HAS_FREEZER;
    /* the runs get the memory and pids controllers; they share the student's one CPU weight */
    char below[32];
    snprintf(below, sizeof below, "%s%s%s", handed & GRADER_CGROUP_HAS_MEMORY ? "+memory" : "",
             (handed & GRADER_CGROUP_HAS_MEMORY) && (handed & GRADER_CGROUP_HAS_PIDS) ? " " : "",
             handed & GRADER_CGROUP_HAS_PIDS ? "+pids" : "");
    /* no internal processes: the grader waits in a leaf, the runs are its siblings */
    if (((handed & GRADER_CGROUP_HAS_CPU) && cgroup_put(tree->group, "cpu.weight", "100") != 0) ||
        (below[0] && cgroup_put(tree->group, "cgroup.subtree_control", below) != 0) ||
        mkdir(leaf, 0755) != 0 || cgroup_move_self(leaf) != 0) {
        cgroup_say(why, size, "cgroups: cannot set up %s: %s", tree->group, strerror(errno));
        undo_student(s, 1, 0);
        return -1;
    }
    return 0;
}

static int open_v1(struct grader_cgroup_student *s, const char *name, char *why, size_t size) {
    int ids[GRADER_CGROUP_TREES];
    char read_only[GRADER_CGROUP_PATH] = "";
    s->tree_count = 0;
    for (size_t c = 0; c < CONTROLLER_COUNT; c++) {
        char path[GRADER_CGROUP_PATH], note[GRADER_CGROUP_PATH + 48];
        struct cgroup_mount m;
        int id = cgroup_own_group(controllers[c].name, path, sizeof path);
        if (id < 0 || cgroup_find_mount("cgroup", controllers[c].name, &m) != 0) {
            snprintf(note, sizeof note, "%s: no v1 hierarchy", controllers[c].name);
            list_add(s->missing, sizeof s->missing, note);
            continue;
        }
        int t = 0;
        while (t < s->tree_count && ids[t] != id)
            t++;
        if (t < s->tree_count) { /* mounted together with an earlier one (cpu,cpuacct) */
            s->trees[t].controllers |= controllers[c].bit;
            continue;
        }
        struct grader_cgroup_tree *tree = &s->trees[t];
        if (m.read_only) {
            snprintf(read_only, sizeof read_only, "%s", m.point);
            snprintf(note, sizeof note, "%s: %s is read-only", controllers[c].name, m.point);
        } else if (cgroup_group_folder(&m, path, tree->home, sizeof tree->home) != 0 ||
                   cgroup_join(tree->group, sizeof tree->group, tree->home, name) != 0) {
            snprintf(note, sizeof note, "%s: the grader's group is not under %s",
                     controllers[c].name, m.point);
        } else {
            tree->controllers = controllers[c].bit;
            ids[t] = id;
            s->tree_count++;
            continue;
        }
        list_add(s->missing, sizeof s->missing, note);
    }
    if (s->tree_count == 0) {
        if (read_only[0])
            cgroup_say(why, size, "cgroups: %s is read-only", read_only);
        else
            cgroup_say(why, size,
                       "cgroups: no v1 hierarchy of cpu, cpuacct, memory, pids or "
                       "freezer");
        return -1;
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

/* v2: whether a grader still waits in the group dir (named clmm-grader-<pid>: the leaf it left
 * its group for; else a student's group, whose leaf is `grader`). Seen by the kernel's
 * `populated`, which holds whatever pid namespace the other grader is in (a batch's sandbox may
 * give each its own, where kill(pid, 0) finds nobody). */
static int grader_waits_in(const char *dir, const char *name) {
    char leaf[CGROUP_FILE_PATH];
    if (strncmp(name, "clmm-grader-", 12) == 0)
        return cgroup_get_keyed(dir, "cgroup.events", "populated") == 1;
    return cgroup_join(leaf, sizeof leaf, dir, "grader") == 0 &&
           cgroup_get_keyed(leaf, "cgroup.events", "populated") == 1;
}

/* The groups under home that a grader made (clmm-<label>-<pid>, clmm-grader-<pid>) and left when
 * it died, killed with -9 half-way through a student: swept. A group whose pid lives (another
 * grader of the batch, or a reused pid) or where a grader still waits (v2) is left alone. */
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
            cgroup_join(dir, sizeof dir, home, e->d_name) == 0 && !grader_waits_in(dir, e->d_name))
            sweep_group(dir, 0);
    }
    if (d)
        closedir(d);
}

/* Whether v1 should be tried before v2: v2 lacks the memory controller (what stops a memfd hog)
 * and a v1 memory hierarchy has it (a hybrid host binds the controllers to v1). */
static int v1_first(void) {
    char home[GRADER_CGROUP_PATH], path[GRADER_CGROUP_PATH];
    unsigned available = 0;
    struct cgroup_mount m;
    if (v2_home(home, sizeof home, &available, NULL, 0) == 0 &&
        (available & GRADER_CGROUP_HAS_MEMORY))
        return 0;
    return cgroup_own_group("memory", path, sizeof path) >= 0 &&
           cgroup_find_mount("cgroup", "memory", &m) == 0 && !m.read_only;
}

int grader_cgroup_student_open(struct grader_cgroup_student *s, const char *label, char *why,
                               size_t why_size) {
    memset(s, 0, sizeof *s);
    const char *only = getenv("GRADER_CGROUPS"); /* none, v1 or v2 (tests); unset: either */
    if (only && !strcmp(only, "none")) {
        cgroup_say(why, why_size, "cgroups: GRADER_CGROUPS=none");
        return -1;
    }
    if (geteuid() != 0) {
        cgroup_say(why, why_size, "cgroups: not root");
        return -1;
    }
    char name[96];
    student_group_name(label, name, sizeof name);
    int allow_v1 = !only || strcmp(only, "v2") != 0, allow_v2 = !only || strcmp(only, "v1") != 0;
    int order[2] = {GRADER_CGROUP_V2, GRADER_CGROUP_V1};
    if (allow_v1 && allow_v2 && v1_first())
        order[0] = GRADER_CGROUP_V1, order[1] = GRADER_CGROUP_V2;
    char reasons[2][512] = {"", ""};
    int opened = 0;
    for (int i = 0; i < 2 && !opened; i++) {
        int v2 = order[i] == GRADER_CGROUP_V2;
        if (!(v2 ? allow_v2 : allow_v1))
            continue;
        memset(s, 0, sizeof *s);
        opened = (v2 ? open_v2(s, name, reasons[i], sizeof reasons[i])
                     : open_v1(s, name, reasons[i], sizeof reasons[i])) == 0;
    }
    if (opened) { /* (v2: the groups are beside the grader's leaf, when it moved into one) */
        for (int t = 0; t < s->tree_count; t++)
            sweep_dead_graders(t == 0 && s->v2_outer[0] ? s->v2_outer : s->trees[t].home);
        return 0;
    }
    memset(s, 0, sizeof *s);
    /* where a version is not there at all, the other's reason is the one that tells */
    int second_tells = reasons[1][0] && (!reasons[0][0] || strstr(reasons[0], "no v1 ") ||
                                         strstr(reasons[0], "no cgroup2 "));
    cgroup_say(why, why_size, "%s", second_tells ? reasons[1] : reasons[0]);
    return -1;
}

const char *grader_cgroup_mode(const struct grader_cgroup_student *s) {
    return s->mode == GRADER_CGROUP_V2   ? "cgroup v2"
           : s->mode == GRADER_CGROUP_V1 ? "cgroup v1"
                                         : "none";
}

unsigned grader_cgroup_in_force(const struct grader_cgroup_student *s) {
    unsigned bits = 0;
    for (int t = 0; s->mode != GRADER_CGROUP_NONE && t < s->tree_count; t++)
        bits |= s->trees[t].controllers;
    return bits;
}

void grader_cgroup_describe(const struct grader_cgroup_student *s, char *used, size_t used_size,
                            char *fallback, size_t fallback_size) {
    used[0] = fallback[0] = '\0';
    if (s->mode == GRADER_CGROUP_NONE)
        return;
    unsigned bits = grader_cgroup_in_force(s);
    for (size_t c = 0; c < CONTROLLER_COUNT; c++)
        list_add(bits & controllers[c].bit ? used : fallback,
                 bits & controllers[c].bit ? used_size : fallback_size,
                 bits & controllers[c].bit ? controllers[c].does : controllers[c].fallback);
    if (fallback[0] && s->missing[0]) {
        size_t length = strlen(fallback);
        snprintf(fallback + length, fallback_size - length, "; %s", s->missing);
    }
}

void grader_cgroup_student_close(struct grader_cgroup_student *s) {
    if (s->mode == GRADER_CGROUP_NONE)
        return;
    undo_student(s, s->tree_count, s->tree_count);
}
