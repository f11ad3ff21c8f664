/* tuning_file.c - results/tuning/<device>.conf (tuning.h): its name, its lines read one by one
 * (a bad line is said and left out, never fatal: the file is the machine's, written by make tune
 * and perhaps by hand), and one line set without losing the others. */
#define _POSIX_C_SOURCE 200809L /* getline, fsync, mkstemp */
#include "exercise/tuning.h"
#include "jail/jail.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TUNING_MAX_VALUE 65536 /* no tile edge or share is larger */
#define TUNING_MAX_WORDS (CLU_MAX_DEFINES + 4)

const char *grader_tuning_side_name(enum grader_tuning_side side) {
    return side == TUNING_REFERENCE ? "reference" : "submission";
}

void grader_tuning_device_file(const char *device, char *buf, size_t size) {
    size_t used = 0, cap = size > 101 ? 101 : size;
    int gap = 0;
    for (const char *p = device ? device : ""; *p && cap > 0; p++) {
        int keep = isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_';
        if (!keep || *p == '_') { /* a run of anything else, underscores too, is one '_' */
            gap = 1;
            continue;
        }
        if (gap && used > 0 && used + 1 < cap)
            buf[used++] = '_';
        gap = 0;
        if (used + 1 < cap)
            buf[used++] = *p;
    }
    while (used > 0 && (buf[used - 1] == '.' || buf[used - 1] == '_'))
        used--;
    size_t start = 0; /* no leading dot: no hidden file, never "." or ".." */
    while (start < used && (buf[start] == '.' || buf[start] == '_'))
        start++;
    memmove(buf, buf + start, used - start);
    used -= start;
    if (size > 0)
        buf[used] = '\0';
    if (used == 0 && size > 0)
        snprintf(buf, size, "device");
}

int grader_tuning_path(const char *dir, const char *device, char *buf, size_t size) {
    char name[128];
    grader_tuning_device_file(device, name, sizeof name);
    int wrote = snprintf(buf, size, "%s/%s.conf", dir, name);
    return wrote < 0 || (size_t)wrote >= size ? -1 : 0;
}

/* The row of exactly id (not "09": a line names its exercise in full), or NULL. */
static const struct grader_exercise *row_of(const char *id) {
    for (int i = 0; i < grader_exercise_count; i++)
        if (strcmp(grader_exercises[i].id, id) == 0)
            return &grader_exercises[i];
    return NULL;
}

/* Split text (changed in place) at spaces and tabs: the word count (at most max). */
static int split_words(char *text, char **words, int max) {
    int count = 0;
    for (char *p = text; *p;) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (count == max)
            return max + 1;
        words[count++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    return count;
}

/* "NAME=VALUE" against the row's names: 0 with the slot set in values, or -1 with why. */
static int parse_value(const char *word, struct grader_values *values, int *given, char *why,
                       size_t why_size) {
    const char *eq = strchr(word, '=');
    if (!eq || eq == word) {
        snprintf(why, why_size, "\"%.40s\" is not NAME=VALUE", word);
        return -1;
    }
    int slot = -1;
    size_t length = (size_t)(eq - word);
    for (int t = 0; t < CLU_MAX_DEFINES && values->v[t].name && slot < 0; t++)
        if (strlen(values->v[t].name) == length && strncmp(values->v[t].name, word, length) == 0)
            slot = t;
    if (slot < 0) {
        snprintf(why, why_size, "the exercise has no tuning value %.*s",
                 (int)(length > 40 ? 40 : length), word);
        return -1;
    }
    if (given[slot]) {
        snprintf(why, why_size, "%s is given twice", values->v[slot].name);
        return -1;
    }
    long value = 0;
    const char *p = eq + 1;
    for (; *p && isdigit((unsigned char)*p) && value <= TUNING_MAX_VALUE; p++)
        value = value * 10 + (*p - '0');
    if (p == eq + 1 || *p || value < 1 || value > TUNING_MAX_VALUE) {
        snprintf(why, why_size, "%s wants a whole number from 1 to %d, not \"%.20s\"",
                 values->v[slot].name, TUNING_MAX_VALUE, eq + 1);
        return -1;
    }
    given[slot] = 1;
    values->v[slot].value = (int)value;
    return 0;
}

static void trim_copy(const char *text, char *out, size_t size) {
    while (*text == ' ' || *text == '\t')
        text++;
    size_t length = strlen(text);
    while (length > 0 && isspace((unsigned char)text[length - 1]))
        length--;
    if (size > 0)
        snprintf(out, size, "%.*s", (int)(length < size ? length : size - 1), text);
}

int grader_tuning_parse_line(const char *line, const struct grader_exercise **ex,
                             enum grader_tuning_side *side, struct grader_values *values,
                             char *comment, size_t comment_size, char *why, size_t why_size) {
    char text[1024], *words[TUNING_MAX_WORDS + 1];
    if (strlen(line) >= sizeof text) {
        snprintf(why, why_size, "a line longer than %zu bytes", sizeof text - 1);
        return -1;
    }
    snprintf(text, sizeof text, "%s", line);
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    if (comment && comment_size)
        trim_copy(hash ? hash + 1 : "", comment, comment_size);
    for (char *p = text; *p; p++)
        if (*p == '\r' || *p == '\n')
            *p = ' ';
    int count = split_words(text, words, TUNING_MAX_WORDS);
    if (count == 0)
        return 0;
    if (count > TUNING_MAX_WORDS) {
        snprintf(why, why_size, "more words than an exercise has tuning values");
        return -1;
    }
    *ex = row_of(words[0]);
    if (!*ex) {
        snprintf(why, why_size, "no exercise \"%.40s\" (the full id, e.g. 09_register_blocking)",
                 words[0]);
        return -1;
    }
    if (!(*ex)->tuning[0].name) {
        snprintf(why, why_size, "%s has no tuning values", (*ex)->id);
        return -1;
    }
    if (count < 2 || (strcmp(words[1], "reference") != 0 && strcmp(words[1], "submission") != 0)) {
        snprintf(why, why_size, "the second word must be reference or submission, not \"%.20s\"",
                 count < 2 ? "" : words[1]);
        return -1;
    }
    *side = strcmp(words[1], "reference") == 0 ? TUNING_REFERENCE : TUNING_SUBMISSION;
    if (count < 3) {
        snprintf(why, why_size, "no NAME=VALUE after the side");
        return -1;
    }
    *values = grader_values_default(*ex);
    int given[CLU_MAX_DEFINES] = {0};
    for (int w = 2; w < count; w++)
        if (parse_value(words[w], values, given, why, why_size) != 0)
            return -1;
    char misfit[160];
    if (!grader_values_fit(*ex, values, 0, 0, misfit, sizeof misfit)) {
        snprintf(why, why_size, "values a launch cannot take: %s", misfit);
        return -1;
    }
    return 1;
}

/* Append one line to the warnings, as far as it fits. */
static void warn(char *warnings, size_t size, const char *path, long line, const char *why) {
    if (!warnings || size == 0)
        return;
    size_t used = strlen(warnings);
    if (used + 1 < size)
        snprintf(warnings + used, size - used, "%s:%ld: %s; the line is ignored\n", path, line,
                 why);
}

/* The first word of line, into word (empty: none). */
static void first_words(const char *line, char *word, size_t size, char *second, size_t size2) {
    char text[256], *words[3] = {NULL, NULL, NULL};
    snprintf(text, sizeof text, "%s", line);
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    for (char *p = text; *p; p++)
        if (*p == '\r' || *p == '\n')
            *p = ' ';
    int count = split_words(text, words, 2);
    snprintf(word, size, "%s", count >= 1 ? words[0] : "");
    snprintf(second, size2, "%s", count >= 2 ? words[1] : "");
}

int grader_tuning_lookup(const char *path, const struct grader_exercise *ex,
                         struct grader_tuned found[2], char *warnings, size_t warnings_size) {
    for (int side = 0; side < 2; side++) {
        memset(&found[side], 0, sizeof found[side]);
        found[side].values = grader_values_default(ex);
    }
    if (warnings && warnings_size)
        warnings[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        char why[200];
        snprintf(why, sizeof why, "cannot read it (%s)", strerror(errno));
        warn(warnings, warnings_size, path, 0, why);
        return -1;
    }
    char *line = NULL, why[300], comment[sizeof found[0].comment];
    size_t capacity = 0;
    long number = 0;
    while (getline(&line, &capacity, f) != -1) {
        number++;
        const struct grader_exercise *row = NULL;
        enum grader_tuning_side side = TUNING_REFERENCE;
        struct grader_values values;
        char id[128], second[32];
        first_words(line, id, sizeof id, second, sizeof second);
        int about_us = strcmp(id, ex->id) == 0 || !row_of(id); /* else that row's lookup says it */
        int got = grader_tuning_parse_line(line, &row, &side, &values, comment, sizeof comment, why,
                                           sizeof why);
        if (got < 0 && about_us)
            warn(warnings, warnings_size, path, number, why);
        if (got <= 0 || strcmp(row->id, ex->id) != 0)
            continue;
        struct grader_tuned *t = &found[side];
        if (t->line) {
            snprintf(why, sizeof why, "a second line for %s %s (line %d is used)", ex->id,
                     grader_tuning_side_name(side), t->line);
            warn(warnings, warnings_size, path, number, why);
            continue;
        }
        t->line = (int)number;
        t->values = values;
        snprintf(t->comment, sizeof t->comment, "%s", comment);
    }
    free(line);
    fclose(f);
    return 0;
}

/* The whole file at path into text (NULL when empty): 1, or 0 when there is none, or -1 on a
 * read error. */
static int read_all(const char *path, char **text, size_t *length) {
    *text = NULL;
    *length = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    size_t capacity = 0;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (*length + got + 1 > capacity) {
            capacity = 2 * (*length + got + 1);
            char *bigger = realloc(*text, capacity);
            if (!bigger) {
                free(*text);
                fclose(f);
                return -1;
            }
            *text = bigger;
        }
        memcpy(*text + *length, chunk, got);
        *length += got;
    }
    int bad = ferror(f);
    fclose(f);
    if (*text)
        (*text)[*length] = '\0';
    return bad ? -1 : 1;
}

int grader_tuning_write(const char *path, const char *id, enum grader_tuning_side side,
                        const struct grader_values *values, const char *comment, char *why,
                        size_t why_size) {
    char folder[PATH_MAX], temp[PATH_MAX + 16], entry[600], text_values[400];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash && slash != folder) {
        *slash = '\0';
        grader_make_dirs(folder);
    }
    grader_values_text(values, text_values, sizeof text_values);
    if (comment && *comment)
        snprintf(entry, sizeof entry, "%s %s %s  # %s\n", id, grader_tuning_side_name(side),
                 text_values, comment);
    else
        snprintf(entry, sizeof entry, "%s %s %s\n", id, grader_tuning_side_name(side), text_values);
    char *old = NULL;
    size_t length = 0;
    int existed = read_all(path, &old, &length);
    if (existed < 0) {
        snprintf(why, why_size, "cannot read %s (%s)", path, strerror(errno));
        return -1;
    }
    snprintf(temp, sizeof temp, "%s.XXXXXX", path);
    int fd = mkstemp(temp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        snprintf(why, why_size, "cannot write beside %s (%s)", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(old);
        return -1;
    }
    if (!existed)
        fprintf(out, "# make tune's best tuning values on this device: one line per exercise and "
                     "side (grader/exercise/tuning.h)\n");
    int replaced = 0;
    for (size_t at = 0; old && at < length;) {
        const char *end = memchr(old + at, '\n', length - at);
        size_t line_length = end ? (size_t)(end - (old + at)) + 1 : length - at;
        char head[256], word[128], second[32];
        snprintf(head, sizeof head, "%.*s", (int)(line_length < 255 ? line_length : 255), old + at);
        first_words(head, word, sizeof word, second, sizeof second);
        if (!replaced && strcmp(word, id) == 0 &&
            strcmp(second, grader_tuning_side_name(side)) == 0) {
            fputs(entry, out);
            replaced = 1;
        } else {
            fwrite(old + at, 1, line_length, out);
            if (!end) /* the old last line had no line end */
                fputc('\n', out);
        }
        at += line_length;
    }
    if (!replaced)
        fputs(entry, out);
    free(old);
    int bad = fflush(out) != 0 || ferror(out) || fsync(fileno(out)) != 0;
    bad |= fchmod(fileno(out), 0644) != 0;
    bad |= fclose(out) != 0;
    if (bad || rename(temp, path) != 0) {
        snprintf(why, why_size, "cannot write %s (%s)", path, strerror(errno));
        unlink(temp);
        return -1;
    }
    return 0;
}
