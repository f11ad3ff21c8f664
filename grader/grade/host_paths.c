/* host_paths.c - the compiler's words on a student's main.c with the grader's folder taken out:
 * the build runs in a temporary jail folder (/tmp/clmm-host-XXXXXX/w), a path the student never
 * saw and cannot open. Every path in it becomes the workbook's name for the same file (main.c is
 * NN_name/main.c, clu.h common/clu.h), so that an error reads as `make` in the folder would say. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "grade/internal.h"

#include <stdlib.h>
#include <string.h>

/* What the student knows a file of the jail folder as (the folder's own files are copies of
 * theirs and the workbook's; anything else, the compiler's temporary objects included, was made
 * from main.c). */
static void workbook_name(const char *id, const char *name, size_t length, char *out, size_t size) {
    static const struct {
        const char *jail, *folder, *file;
    } known[] = {{"main.c", NULL, "main.c"},
                 {"kernel.cl", NULL, "kernel.cl"},
                 {"clu.h", "common", "clu.h"},
                 {"libclu.a", "build", "libclu.a"}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strlen(known[i].jail) == length && strncmp(name, known[i].jail, length) == 0) {
            snprintf(out, size, "%s/%s", known[i].folder ? known[i].folder : id, known[i].file);
            return;
        }
    if (length == strlen(id) && strncmp(name, id, length) == 0)
        snprintf(out, size, "%s/%s", id, id); /* the program, as the folder's Makefile names it */
    else if (length == 0)
        snprintf(out, size, "%s", id); /* the folder itself */
    else
        snprintf(out, size, "%s/main.o", id); /* a temporary object compiled from main.c */
}

static int name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '+';
}

char *grade_host_paths_rewrite(const char *text, const char *dir, const char *id) {
    /* the jail folder's parent (mkdtemp's own folder) is rewritten as the folder too */
    char top[PATH_MAX];
    snprintf(top, sizeof top, "%s", dir);
    char *slash = strrchr(top, '/');
    if (!slash || slash == top)
        return strdup(text); /* not a folder of grader_jail_dir_make's */
    *slash = '\0';
    size_t top_len = strlen(top), cap = strlen(text) + 1, used = 0;
    /* each path (top_len bytes at least) becomes 2 * strlen(id) + 16 bytes at most */
    cap += (cap / top_len + 1) * (2 * strlen(id) + 16);
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *inner = dir + top_len + 1; /* the jail folder's own name (w) */
    size_t inner_len = strlen(inner);
    for (const char *s = text; *s;) {
        if (strncmp(s, top, top_len) != 0 || name_char(s[top_len])) {
            out[used++] = *s++;
            continue;
        }
        s += top_len;
        /* past the parent: its one folder (w), then the file's name in it */
        if (*s == '/' && strncmp(s + 1, inner, inner_len) == 0 && !name_char(s[1 + inner_len]))
            s += 1 + inner_len;
        if (*s == '/')
            s++;
        size_t length = 0;
        while (name_char(s[length]))
            length++;
        char name[PATH_MAX];
        workbook_name(id, s, length, name, sizeof name);
        s += length;
        size_t n = strlen(name);
        if (used + n + 1 > cap) /* cannot happen by the bound above; cut rather than overrun */
            break;
        memcpy(out + used, name, n);
        used += n;
    }
    out[used] = '\0';
    return out;
}
