/* intake_fill.c - Moodle's grading worksheet as the instructor downloaded it, its Grade column
 * filled with the batch's totals: the platform's own round trip. Every other byte stays as it
 * was: the "Last modified (grade)" Moodle checks on import (a grade edited in Moodle after the
 * download is kept), each "Feedback comments" cell however long, the line ends. A participant
 * the batch has no total for keeps its cell. Pure but for the caller's files
 * (tests/unit/test_intake.c).
 */
#include "intake.h"

#include <stdlib.h>
#include <string.h>

/* Where the RFC 4180 field at p ends: its separator (',', '\r', '\n') or the text's end. */
static const char *field_end(const char *p) {
    int quoted = *p == '"';
    for (p += quoted; *p; p++) {
        if (quoted && *p == '"' && p[1] == '"')
            p++;
        else if (quoted && *p == '"')
            quoted = 0;
        else if (!quoted && (*p == ',' || *p == '\n' || *p == '\r'))
            break;
    }
    return p;
}

/* The field [p, end) decoded into out (cut to size). */
static void field_text(const char *p, const char *end, char *out, size_t size) {
    char copy[64];
    size_t n = (size_t)(end - p) < sizeof copy - 1 ? (size_t)(end - p) : sizeof copy - 1;
    memcpy(copy, p, n);
    copy[n] = '\0';
    const char *at = copy;
    int last;
    if (intake_csv_field(&at, out, size, &last) != 0)
        out[0] = '\0';
}

/* The total for participant NUMBER in GRADES (`NUMBER<tab>TOTAL` lines), or NULL; its length in
 * *len. */
static const char *grade_of(const char *grades, const char *number, size_t *len) {
    size_t want = strlen(number);
    for (const char *line = grades; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *tab = memchr(line, '\t', (size_t)(eol - line));
        if (tab && (size_t)(tab - line) == want && memcmp(line, number, want) == 0) {
            *len = (size_t)(eol - tab - 1);
            return tab + 1;
        }
        line = *eol ? eol + 1 : eol;
    }
    return NULL;
}

int intake_worksheet_fill(const char *text, const char *grades, FILE *out, FILE *err) {
    const char *at = text;
    if (strncmp(at, "\xEF\xBB\xBF", 3) == 0) {
        fputs("\xEF\xBB\xBF", out);
        at += 3;
    }
    int identifier = -1, grade = -1, filled = 0;
    /* each record: its fields' spans first (the identifier may follow the grade), then written */
    size_t cap = 64;
    const char **starts = malloc(cap * sizeof *starts), **ends = malloc(cap * sizeof *ends);
    if (!starts || !ends) {
        fprintf(err, "intake: out of memory\n");
        free(starts);
        free(ends);
        return INTAKE_ERROR;
    }
    for (int header = 1; *at; header = 0) {
        size_t count = 0;
        const char *p = at;
        for (;;) {
            if (count == cap) {
                cap *= 2;
                const char **s = realloc(starts, cap * sizeof *s);
                starts = s ? s : starts;
                const char **e = s ? realloc(ends, cap * sizeof *e) : NULL;
                ends = e ? e : ends;
                if (!s || !e) {
                    fprintf(err, "intake: out of memory\n");
                    free(starts);
                    free(ends);
                    return INTAKE_ERROR;
                }
            }
            starts[count] = p;
            ends[count] = p = field_end(p);
            count++;
            if (*p != ',')
                break;
            p++;
        }
        const char *eol = p; /* the record's end: "\r\n", "\r", "\n" or none */
        p += *p == '\r' && p[1] == '\n' ? 2 : *p ? 1 : 0;
        char name[64], number[64] = "";
        if (header) {
            for (size_t i = 0; i < count; i++) {
                field_text(starts[i], ends[i], name, sizeof name);
                identifier = strcmp(name, "Identifier") == 0 ? (int)i : identifier;
                grade = strcmp(name, "Grade") == 0 ? (int)i : grade;
            }
            if (identifier < 0 || grade < 0) {
                fprintf(err, "not Moodle's grading worksheet: no \"Identifier\" and \"Grade\" "
                             "columns\n");
                free(starts);
                free(ends);
                return INTAKE_REFUSED;
            }
        } else if ((size_t)identifier < count) {
            field_text(starts[identifier], ends[identifier], name, sizeof name);
            if (strncmp(name, "Participant ", 12) == 0 && *(name + 12) &&
                strspn(name + 12, "0123456789") == strlen(name + 12))
                snprintf(number, sizeof number, "%s", name + 12);
        }
        size_t len = 0;
        const char *total = number[0] ? grade_of(grades, number, &len) : NULL;
        for (size_t i = 0; i < count; i++) {
            if (i)
                fputc(',', out);
            if (total && (int)i == grade)
                fwrite(total, 1, len, out);
            else
                fwrite(starts[i], 1, (size_t)(ends[i] - starts[i]), out);
        }
        filled += total && (size_t)grade < count;
        fwrite(eol, 1, (size_t)(p - eol), out);
        at = p;
    }
    free(starts);
    free(ends);
    fprintf(err, "intake: %d grades filled in\n", filled);
    return INTAKE_OK;
}
