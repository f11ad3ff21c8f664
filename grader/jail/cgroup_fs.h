/* cgroup_fs.h - the jail wing's own: the cgroup file system as the student groups
 * (cgroup_student.c) and the run groups (cgroup_run.c) use it: its files read and written, its
 * mounts, the grader's own group. Nothing outside jail/ includes it: cgroup.h is the interface.
 */
#ifndef GRADER_JAIL_CGROUP_FS_H
#define GRADER_JAIL_CGROUP_FS_H

#include "jail/cgroup.h"

#include <stddef.h>

#define CGROUP_WAIT_SECONDS 5.0 /* for a group to freeze, or to empty after SIGKILL */
#define CGROUP_FILE_PATH    (GRADER_CGROUP_PATH + 64)

/* ---------------------------------------------------------------- files of a group */

/* printf into why (nothing when why is NULL or size 0). */
void cgroup_say(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Monotonic seconds; a 5 ms sleep. */
double cgroup_now(void);
void cgroup_pause(void);
/* a/b into out; -1 (ENAMETOOLONG) when it does not fit */
int cgroup_join(char *out, size_t size, const char *a, const char *b);
/* Writes text into dir/name: 0, or -1 with errno. */
int cgroup_put(const char *dir, const char *name, const char *text);
/* dir/name into text (NUL-terminated, cut at size): bytes read, or -1. */
long cgroup_get(const char *dir, const char *name, char *text, size_t size);
/* The file dir/name as one number, or -1. */
long long cgroup_get_number(const char *dir, const char *name);
/* The number after `key` in a flat-keyed file, or -1. */
long long cgroup_get_keyed(const char *dir, const char *name, const char *key);
/* Whether a comma-separated (or space-separated) list holds word. */
int cgroup_list_has(const char *list, const char *word);

/* ---------------------------------------------------------------- mounts and groups */

/* A cgroup file system mount as /proc/self/mountinfo tells it. */
struct cgroup_mount {
    char point[GRADER_CGROUP_PATH]; /* where it is mounted */
    char root[GRADER_CGROUP_PATH];  /* the group seen at the mount point */
    int read_only;                  /* mounted ro */
};

/* The last mount of type "cgroup2", or of type "cgroup" with controller among its options: 0,
 * or -1. */
int cgroup_find_mount(const char *type, const char *controller, struct cgroup_mount *m);
/* The calling process's group path in the v1 hierarchy holding controller (or the v2 one, for
 * NULL) into path: its hierarchy id, or -1. */
int cgroup_own_group(const char *controller, char *path, size_t size);
/* The folder of group path under mount m into dir: 0, or -1 when the mount does not show it. */
int cgroup_group_folder(const struct cgroup_mount *m, const char *path, char *dir, size_t size);
/* Moves the calling process into group dir. */
int cgroup_move_self(const char *dir);
/* Removes a group, waiting a little for its last processes to leave. */
void cgroup_remove_group(const char *dir);
/* Whether the only process in group dir is the calling one. */
int cgroup_alone_in(const char *dir);

#endif
