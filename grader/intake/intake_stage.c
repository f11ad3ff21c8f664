/* intake_stage.c - one student's uploads staged into the editable files of each exercise.
 *
 * A student's uploads are what the platform kept: folders (a copy of the workbook, the exercise
 * folders, Moodle's folder per participant), archives (.zip, .tar.gz; an archive inside one, up
 * to INTAKE_MAX_NESTING deep) and loose files (Canvas's `..._kernel.cl` beside `..._main.c`).
 * The order of the search, first found kept:
 *   1. exercise folders (NN_name/, up to 4 folders deep, never under solutions/) in the folders;
 *   2. the newest archive of the uploads (several: the newest by its file time, and `took:`
 *      says which), unpacked, and searched as 1; with no exercise folder in it, its own newest
 *      archive, and so on;
 *   3. for an assignment of one exercise, loose editable files (at the top of an upload, of an
 *      upload folder or of the archive taken), the newest of each name.
 * Only plain files up to INTAKE_MAX_FILE bytes with an editable name are copied; nothing is
 * followed through a link. "empty" lists what the upload held, so the instructor sees why. A
 * participant the class download's unpacking refused (INTAKE_REFUSED_FOLDER) is refused here
 * with its reason, nothing of it read.
 */
#define _GNU_SOURCE
#include "intake.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STAGE_SEARCH_DEPTH 4  /* folders deep an exercise folder is looked for */
#define STAGE_SHOWN        8  /* names listed in an "empty" line */
#define STAGE_MAX_FOUND    64 /* archives or loose files considered in one upload */

/* A file the search found: where it is and its time on disk. */
struct stage_file {
    char path[PATH_MAX];
    const char *editable; /* the editable name it stands for (loose files), or NULL */
    struct timespec mtime;
};

/* What one stage has seen and decided. */
struct stage {
    const struct intake_stage_options *options;
    struct intake_budget budget; /* every archive of the student's together */
    char status[1024];           /* "" while graded so far, else the refusal */
    char took[2048];             /* the `took:` lines */
    char held[1024];             /* what the uploads held, for an "empty" line */
    size_t held_count;
    struct stage_file archives[STAGE_MAX_FOUND];
    size_t archive_count;
    struct stage_file loose[STAGE_MAX_FOUND];
    size_t loose_count;
};

/* Append a name (valid UTF-8, control characters as ?) to the list of what the upload held. */
static void stage_held(struct stage *s, const char *name, int folder) {
    if (s->held_count++ == STAGE_SHOWN)
        name = "...", folder = 0;
    else if (s->held_count > STAGE_SHOWN)
        return;
    size_t n = strlen(s->held);
    if (n + 8 >= sizeof s->held)
        return;
    if (n && s->held[n - 1] != ' ')
        n += (size_t)snprintf(s->held + n, sizeof s->held - n, ", ");
    /* (a byte kept for the folder's slash) */
    intake_shown(name, s->held + n, sizeof s->held - n - 1);
    n += strlen(s->held + n);
    if (folder)
        s->held[n++] = '/';
    s->held[n] = '\0';
}

/* The file name of PATH as stage_held shows a name. */
static const char *stage_base(const char *path, char *out, size_t size) {
    const char *base = strrchr(path, '/');
    return intake_shown(base ? base + 1 : path, out, size);
}

static void stage_say_took(struct stage *s, const char *format, const char *a, const char *b) {
    size_t n = strlen(s->took);
    snprintf(s->took + n, sizeof s->took - n, format, a, b);
}

static int stage_newer(const struct stage_file *a, const struct stage_file *b) {
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec > b->mtime.tv_sec;
    if (a->mtime.tv_nsec != b->mtime.tv_nsec)
        return a->mtime.tv_nsec > b->mtime.tv_nsec;
    return strcmp(a->path, b->path) > 0;
}

static void stage_add(struct stage_file *list, size_t *count, const char *path,
                      const char *editable, const struct stat *st) {
    if (*count >= STAGE_MAX_FOUND)
        return;
    struct stage_file *f = &list[(*count)++];
    snprintf(f->path, sizeof f->path, "%s", path);
    f->editable = editable;
    f->mtime = st->st_mtim;
}

/* A file at the top of an upload (or of an upload folder, or of an unpacked archive) under its
 * own NAME: an archive or a loose editable file is remembered, anything else only listed. */
static void stage_top_file(struct stage *s, const char *path, const char *name,
                           const struct stat *st) {
    const char *editable = intake_editable_name(name);
    if (S_ISREG(st->st_mode) && intake_is_archive(name))
        stage_add(s->archives, &s->archive_count, path, NULL, st);
    else if (S_ISREG(st->st_mode) && editable)
        stage_add(s->loose, &s->loose_count, path, editable, st);
}

struct dirent *intake_next_entry(DIR *d, const char *dir, char *path, size_t size,
                                 struct stat *st) {
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        if (snprintf(path, size, "%s/%s", dir, e->d_name) < (int)size && lstat(path, st) == 0)
            return e;
    }
    return NULL;
}

/* Copy one editable file, a plain file of sane size, into TO (an open folder). */
static int stage_copy(const char *from, int to_dir, const char *name) {
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (in < 0)
        return -1;
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > INTAKE_MAX_FILE) {
        close(in);
        return -1;
    }
    int out = openat(to_dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    int code = out < 0 ? -1 : 0;
    char buffer[65536];
    for (ssize_t n; code == 0 && (n = read(in, buffer, sizeof buffer)) != 0;) {
        if (n < 0 || write(out, buffer, (size_t)n) != n)
            code = -1;
    }
    close(in);
    if (out >= 0 && close(out) != 0)
        code = -1;
    return code;
}

/* INTO/EX made, or opened; -1 when it cannot be. */
static int stage_exercise_dir(const struct stage *s, const char *ex) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", s->options->into, ex);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return -1;
    return open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static int stage_has_exercise(const struct stage *s, const char *ex) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", s->options->into, ex);
    struct stat st;
    return lstat(path, &st) == 0;
}

/* The shallowest folder named EX under DIR (never through a link or into solutions/): its path
 * in BEST (depth in *best_depth). */
static void stage_find(const char *dir, int depth, const char *ex, char *best, int *best_depth) {
    if (depth >= STAGE_SEARCH_DEPTH || depth >= *best_depth)
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[PATH_MAX];
    struct stat st;
    for (struct dirent *e; (e = intake_next_entry(d, dir, path, sizeof path, &st));) {
        if (!S_ISDIR(st.st_mode) || strcmp(e->d_name, "solutions") == 0)
            continue;
        if (strcmp(e->d_name, ex) == 0 &&
            (depth + 1 < *best_depth || (depth + 1 == *best_depth && strcmp(path, best) < 0))) {
            snprintf(best, PATH_MAX, "%s", path);
            *best_depth = depth + 1;
        }
        stage_find(path, depth + 1, ex, best, best_depth);
    }
    closedir(d);
}

/* Every exercise folder in SOURCE that INTO lacks: its editable files copied. Returns how many
 * exercises it gave. */
static int stage_exercises(struct stage *s, const char *source) {
    int given = 0;
    for (const char *const *ex = s->options->exercises; *ex; ex++) {
        if (stage_has_exercise(s, *ex))
            continue;
        char found[PATH_MAX] = "";
        int depth = INT_MAX;
        stage_find(source, 0, *ex, found, &depth);
        if (!*found)
            continue;
        int to = stage_exercise_dir(s, *ex);
        if (to < 0)
            return -1;
        for (size_t i = 0; intake_editable[i]; i++) {
            char from[PATH_MAX];
            snprintf(from, sizeof from, "%s/%s", found, intake_editable[i]);
            (void)stage_copy(from, to, intake_editable[i]);
        }
        close(to);
        given++;
    }
    return given;
}

/* The top of a folder (an upload folder or an unpacked archive): archives and loose files
 * remembered, every name listed when LIST. */
static void stage_scan_top(struct stage *s, const char *dir, int list) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[PATH_MAX];
    struct stat st;
    for (struct dirent *e; (e = intake_next_entry(d, dir, path, sizeof path, &st));) {
        if (list)
            stage_held(s, e->d_name, S_ISDIR(st.st_mode));
        stage_top_file(s, path, e->d_name, &st);
    }
    closedir(d);
}

/* The newest archive remembered, taken out of the list; NULL when there is none. `took:` says
 * which when there was a choice. */
static const struct stage_file *stage_newest_archive(struct stage *s, struct stage_file *chosen) {
    if (s->archive_count == 0)
        return NULL;
    size_t best = 0;
    for (size_t i = 1; i < s->archive_count; i++)
        if (stage_newer(&s->archives[i], &s->archives[best]))
            best = i;
    *chosen = s->archives[best];
    if (s->archive_count > 1) {
        char count[32], base[300];
        snprintf(count, sizeof count, "%zu", s->archive_count);
        stage_say_took(s, "took: the newest of %s archives by its file time, %s\n", count,
                       stage_base(chosen->path, base, sizeof base));
    }
    s->archive_count = 0;
    return chosen;
}

/* Step 2: the newest archive unpacked and searched; nested ones in turn. */
static int stage_archives(struct stage *s) {
    struct stage_file chosen;
    for (int level = 0; stage_newest_archive(s, &chosen); level++) {
        if (level > INTAKE_MAX_NESTING) {
            snprintf(s->status, sizeof s->status,
                     "refused: archive refused: archives nested more than %d deep",
                     INTAKE_MAX_NESTING);
            return 0;
        }
        char dir[PATH_MAX], why[600];
        snprintf(dir, sizeof dir, "%s/archive%d", s->options->scratch, level);
        if (mkdir(dir, 0700) != 0)
            return -1;
        int code = intake_unpack(chosen.path, dir, &s->budget, why, sizeof why);
        if (code == INTAKE_ERROR) {
            snprintf(s->status, sizeof s->status, "refused: archive could not be unpacked: %s",
                     why);
            return 0;
        }
        if (code == INTAKE_REFUSED) {
            snprintf(s->status, sizeof s->status, "refused: archive refused: %s", why);
            return 0;
        }
        int given = stage_exercises(s, dir);
        if (given < 0)
            return -1;
        /* what it held (its top), and loose files there or in its one folder (a zip of a
         * folder of files) */
        char base[300];
        size_t n = strlen(s->held);
        snprintf(s->held + n, sizeof s->held - n, "%s%s holding ", n ? "; " : "",
                 stage_base(chosen.path, base, sizeof base));
        s->held_count = 0;
        s->loose_count = 0;
        stage_scan_top(s, dir, 1);
        if (s->held_count == 0)
            stage_held(s, "nothing", 0);
        if (given > 0)
            return 0;
        DIR *d = opendir(dir);
        int folders = 0;
        char only[PATH_MAX] = "";
        char path[PATH_MAX];
        struct stat st;
        for (struct dirent *e; d && (e = intake_next_entry(d, dir, path, sizeof path, &st));)
            if (e->d_name[0] != '.' && S_ISDIR(st.st_mode) && ++folders == 1)
                snprintf(only, sizeof only, "%s", path);
        if (d)
            closedir(d);
        if (folders == 1)
            stage_scan_top(s, only, 0);
    }
    return 0;
}

/* Step 3: loose files, the newest of each editable name, into the one exercise. */
static int stage_loose(struct stage *s) {
    if (s->loose_count == 0)
        return 0;
    if (!s->options->single) {
        stage_say_took(s,
                       "took: nothing: loose %s%s but no exercise folder (NN_name/) and more "
                       "than one exercise to grade\n",
                       s->loose[0].editable, s->loose_count > 1 ? " and others" : "");
        return 0;
    }
    int to = stage_exercise_dir(s, s->options->single);
    if (to < 0)
        return -1;
    for (size_t i = 0; intake_editable[i]; i++) {
        const struct stage_file *best = NULL;
        size_t same = 0;
        for (size_t j = 0; j < s->loose_count; j++)
            if (s->loose[j].editable == intake_editable[i]) {
                same++;
                if (!best || stage_newer(&s->loose[j], best))
                    best = &s->loose[j];
            }
        if (!best || stage_copy(best->path, to, intake_editable[i]) != 0)
            continue;
        char base[300];
        stage_say_took(s, "took: %s as %s", stage_base(best->path, base, sizeof base),
                       intake_editable[i]);
        if (same > 1)
            stage_say_took(s, " (the newest of %s%s)", same == 2 ? "2" : "several", "");
        stage_say_took(s, " for %s%s\n", s->options->single, "");
    }
    close(to);
    return 0;
}

/* Whether UPLOAD is a participant intake_unpack_class refused (a folder in
 * INTAKE_REFUSED_FOLDER): then its reason is the status. */
static int stage_refused_part(struct stage *s, const char *upload) {
    const char *base = strrchr(upload, '/');
    size_t folder = strlen(INTAKE_REFUSED_FOLDER), at = base ? (size_t)(base - upload) : 0;
    /* UPLOAD is .../.intake-refused/PART */
    if (at < folder || strncmp(upload + at - folder, INTAKE_REFUSED_FOLDER, folder) != 0 ||
        (at > folder && upload[at - folder - 1] != '/'))
        return 0;
    char path[PATH_MAX], reason[600] = "", shown[600];
    snprintf(path, sizeof path, "%s/%s", upload, INTAKE_REFUSED_REASON);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = fd < 0 ? -1 : read(fd, reason, sizeof reason - 1);
    if (fd >= 0)
        close(fd);
    reason[n > 0 ? n : 0] = '\0';
    reason[strcspn(reason, "\n")] = '\0';
    snprintf(s->status, sizeof s->status, "refused: upload refused: %s",
             *reason ? intake_shown(reason, shown, sizeof shown) : "(its reason is lost)");
    return 1;
}

/* Whether INTO holds at least one editable file. */
static int stage_gave_any(const struct stage *s) {
    for (const char *const *ex = s->options->exercises; *ex; ex++) {
        for (size_t i = 0; intake_editable[i]; i++) {
            char path[PATH_MAX];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s/%s", s->options->into, *ex, intake_editable[i]);
            if (lstat(path, &st) == 0)
                return 1;
        }
    }
    return 0;
}

int intake_stage(const struct intake_stage_options *options, const char *const *uploads,
                 size_t count, FILE *out) {
    struct stage *s = calloc(1, sizeof *s);
    if (!s)
        return INTAKE_ERROR;
    s->options = options;
    intake_budget_upload(&s->budget, options->max_bytes);
    int code = mkdir(options->into, 0755) == 0 || errno == EEXIST ? 0 : -1;
    /* a part of the class download refused: nothing of the student's is read */
    for (size_t i = 0; code == 0 && !*s->status && i < count; i++)
        (void)stage_refused_part(s, uploads[i]);
    /* step 1, and what each upload holds at its top */
    for (size_t i = 0; code == 0 && !*s->status && i < count; i++) {
        struct stat st;
        const char *base = strrchr(uploads[i], '/');
        base = base ? base + 1 : uploads[i];
        struct intake_name name;
        const char *why = NULL;
        /* a platform's prefix is not the student's file name: kernel.cl, not x_1_2_kernel.cl */
        const char *own =
            intake_parse_name(base, &name, &why) == 0 && *name.rest ? name.rest : base;
        if (lstat(uploads[i], &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            stage_scan_top(s, uploads[i], 1);
            if (stage_exercises(s, uploads[i]) < 0)
                code = -1;
        } else {
            stage_held(s, own, 0);
            stage_top_file(s, uploads[i], own, &st);
        }
    }
    if (code == 0 && !*s->status && !stage_gave_any(s))
        code = stage_archives(s);
    else
        s->archive_count = 0;
    if (code == 0 && !*s->status && !stage_gave_any(s))
        code = stage_loose(s);
    if (code != 0) {
        free(s);
        return INTAKE_ERROR;
    }
    if (*s->status)
        fprintf(out, "%s\n", s->status);
    else if (stage_gave_any(s))
        fprintf(out, "graded\n");
    else if (!*s->held)
        fprintf(out, "empty: no exercise folder (the upload held nothing)\n");
    else
        fprintf(out, "empty: no exercise folder (the upload held: %s)\n", s->held);
    fputs(s->took, out);
    free(s);
    return INTAKE_OK;
}
