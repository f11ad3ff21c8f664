/* intake_class.c - a class's downloads walked into one record a student.
 *
 * Every entry of the class folder belongs to one student: a platform's name (intake_name.c)
 * gives its number, and every entry of one number is one student's (Canvas's several files of a
 * user, Moodle's folder or files of a participant); any other entry is named by the student's id
 * (a folder, or an archive whose name less its ending is the id). When the upload came is read
 * from the instructor's disk as the download left it, never from inside an upload: a platform's
 * entry has the time its download gave the file (the upload's, on Moodle and Canvas), a folder
 * of the platform's the newest of the files the download put in it, an entry named by an id its
 * own time. A name a student could have bent (two platforms read it) is listed, never guessed.
 */
#define _GNU_SOURCE
#include "intake.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define CLASS_TIME_DEPTH 3 /* folders deep a platform folder's newest file is looked for */

/* One student of the class, as its entries gather. */
struct class_student {
    char key[300];           /* moodle:N, canvas:N, or the id */
    struct intake_name name; /* the first entry's reading (rest not kept) */
    struct timespec when;    /* the newest time of its entries */
    const char *source;      /* what that time is */
    char **uploads;          /* absolute paths */
    size_t upload_count;
};

/* The newest time of the plain files under DIR (not through links), or {0} when there is none. */
static struct timespec class_newest(const char *dir, int depth) {
    struct timespec newest = {0, 0};
    DIR *d = depth < CLASS_TIME_DEPTH ? opendir(dir) : NULL;
    char path[PATH_MAX];
    struct stat st;
    while (d && intake_next_entry(d, dir, path, sizeof path, &st)) {
        struct timespec t = S_ISDIR(st.st_mode)   ? class_newest(path, depth + 1)
                            : S_ISREG(st.st_mode) ? st.st_mtim
                                                  : (struct timespec){0, 0};
        if (t.tv_sec > newest.tv_sec || (t.tv_sec == newest.tv_sec && t.tv_nsec > newest.tv_nsec))
            newest = t;
    }
    if (d)
        closedir(d);
    return newest;
}

/* The id of an entry named by it: the name, less an archive's ending; NULL when it is none. */
static const char *class_plain_id(const char *name, const struct stat *st, char *id, size_t size,
                                  const char **why) {
    snprintf(id, size, "%s", name);
    if (S_ISREG(st->st_mode) && intake_is_archive(name)) {
        static const char *const endings[] = {".tar.gz", ".tgz", ".zip", ".tar", NULL};
        for (size_t i = 0; endings[i]; i++) {
            size_t n = strlen(id), e = strlen(endings[i]);
            if (n > e && strcasecmp(id + n - e, endings[i]) == 0) {
                id[n - e] = '\0';
                break;
            }
        }
    } else if (!S_ISDIR(st->st_mode)) {
        *why = "not a folder, .zip or .tar.gz";
        return NULL;
    }
    if (!*id || id[0] == '.' ||
        strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                   "0123456789._-") != strlen(id)) {
        *why = "the id must be letters, digits, . _ -";
        return NULL;
    }
    return id;
}

static struct class_student *class_find(struct class_student **all, size_t *count,
                                        const char *key) {
    for (size_t i = 0; i < *count; i++)
        if (strcmp((*all)[i].key, key) == 0)
            return &(*all)[i];
    struct class_student *grown = realloc(*all, (*count + 1) * sizeof **all);
    if (!grown)
        return NULL;
    *all = grown;
    struct class_student *s = &grown[(*count)++];
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", key);
    return s;
}

static int class_add_upload(struct class_student *s, const char *path) {
    char **grown = realloc(s->uploads, (s->upload_count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    s->uploads = grown;
    return (s->uploads[s->upload_count++] = strdup(path)) ? 0 : -1;
}

/* Entries in byte order (alphasort follows the locale's collation). */
static int class_order(const struct dirent **a, const struct dirent **b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int class_visible(const struct dirent *e) {
    return e->d_name[0] != '.';
}

/* One entry of the class into its student; 1 when it belongs to none (said on ERR). */
static int class_entry(const char *subs, const char *entry, struct class_student **all,
                       size_t *count, FILE *err) {
    char path[PATH_MAX], key[300], id[256];
    struct stat st;
    struct intake_name name;
    const char *why = NULL;
    if (snprintf(path, sizeof path, "%s/%s", subs, entry) >= (int)sizeof path)
        why = "a path too long";
    else if (lstat(path, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)))
        why = "not a plain file or folder";
    else if (intake_parse_name(entry, &name, &why) == 0 && name.platform == INTAKE_AMBIGUOUS)
        ; /* why says so */
    else if (!why && name.platform == INTAKE_PLAIN)
        snprintf(key, sizeof key, "%s", class_plain_id(entry, &st, id, sizeof id, &why) ? id : "");
    else if (!why)
        snprintf(key, sizeof key, "%s:%s", intake_platform_word(name.platform), name.number);
    if (why) {
        /* the name as text on one line (valid UTF-8, control characters as ?) */
        char shown[1100];
        fprintf(err, "skipped %s: %s\n", intake_shown(entry, shown, sizeof shown), why);
        return 1;
    }
    struct class_student *s = class_find(all, count, key);
    if (!s || class_add_upload(s, path) != 0)
        return -1;
    struct timespec t = st.st_mtim;
    const char *source = "the upload's own file time on this disk";
    if (name.platform != INTAKE_PLAIN) {
        source = "the platform download's file time";
        if (S_ISDIR(st.st_mode)) {
            struct timespec inner = class_newest(path, 0);
            if (inner.tv_sec)
                t = inner;
        }
    }
    if (s->upload_count == 1) {
        s->name = name;
        s->name.rest = "";
    }
    s->name.late |= name.late;
    if (!s->source || t.tv_sec > s->when.tv_sec) {
        s->when = t;
        s->source = source;
    }
    return 0;
}

/* Every visible entry of the folder DIR into its student; INTAKE_ERROR when one could not be. */
static int class_folder(const char *dir, struct class_student **all, size_t *count, FILE *err) {
    struct dirent **entries;
    int n = scandir(dir, &entries, class_visible, class_order);
    if (n < 0) {
        fprintf(err, "cannot read the class folder %s\n", dir);
        return INTAKE_ERROR;
    }
    int code = INTAKE_OK;
    for (int i = 0; i < n; i++) {
        if (code == INTAKE_OK && class_entry(dir, entries[i]->d_name, all, count, err) < 0)
            code = INTAKE_ERROR;
        free(entries[i]);
    }
    free(entries);
    return code;
}

int intake_class(const char *subs, const char *refused, FILE *out, FILE *err) {
    struct class_student *all = NULL;
    size_t count = 0;
    int code = class_folder(subs, &all, &count, err);
    /* a refused participant is a student like the others: intake_stage says why */
    if (code == INTAKE_OK && refused)
        code = class_folder(refused, &all, &count, err);
    for (size_t i = 0; i < count; i++) {
        struct class_student *s = &all[i];
        if (code == INTAKE_OK) {
            fprintf(out, "%s\t%s\t%s\t", s->key, intake_platform_word(s->name.platform),
                    s->name.number);
            /* a person's name is text for a gradebook cell: no tab or control character */
            for (const unsigned char *p = (const unsigned char *)s->name.person; *p; p++)
                fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, out);
            fprintf(out, "\t%s\t%lld\t%s", s->name.late ? "late" : "", (long long)s->when.tv_sec,
                    s->source);
            for (size_t j = 0; j < s->upload_count; j++)
                fprintf(out, "\t%s", s->uploads[j]);
            fputc('\n', out);
        }
        for (size_t j = 0; j < s->upload_count; j++)
            free(s->uploads[j]);
        free(s->uploads);
    }
    free(all);
    return code;
}
