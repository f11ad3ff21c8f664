/* intake_fill.c - the platform's own grading file as the instructor downloaded it, one column
 * filled with the batch's totals: the platforms' round trip. Moodle's grading worksheet gets its
 * Grade column, each row found by its "Participant N"; Canvas's gradebook export the assignment's
 * column, each row found by its ID (the Canvas user id of the student's download). Every other
 * byte stays as it was: the "Last modified (grade)" Moodle checks on import (a grade edited in
 * Moodle after the download is kept), each feedback comment however long, Canvas's other
 * assignments and its "Points Possible" row, the line ends. A row the batch has no total for keeps
 * its cell. Pure but for the caller's files (tests/unit/test_intake.c).
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

/* seen with "\nNUMBER\n" appended (NULL: none yet; unchanged where memory runs out). */
static char *remember(char *seen, size_t *size, const char *number) {
    size_t add = strlen(number) + 2, used = seen ? strlen(seen) : 0;
    char *more = realloc(seen, used + add + 1);
    if (!more)
        return seen;
    snprintf(more + used, add + 1, "\n%s\n", number);
    *size = used + add;
    return more;
}

/* `intake: no row for NUMBER` on err for each of GRADES' numbers that no row had: a student the
 * platform's file does not list (enrolled after its download, say) is said, never lost unseen. */
static void no_rows(const char *grades, const char *seen, FILE *err) {
    for (const char *line = grades; *line;) {
        const char *eol = strchr(line, '\n');
        if (!eol)
            eol = line + strlen(line);
        const char *tab = memchr(line, '\t', (size_t)(eol - line));
        char key[80];
        if (tab && (size_t)(tab - line) < sizeof key - 2) {
            snprintf(key, sizeof key, "\n%.*s\n", (int)(tab - line), line);
            if (!seen || !strstr(seen, key))
                fprintf(err, "intake: no row for %.*s\n", (int)(tab - line), line);
        }
        line = *eol ? eol + 1 : eol;
    }
}

/* Which columns a fill reads and writes: the key (its header), the one filled (the header that
 * `is_value` takes), and the key's number in a row's key cell (`number_of`, "" for none). */
struct fill_columns {
    const char *key, *what;
    int (*is_value)(const char *header, const char *wanted);
    const char *wanted;
    void (*number_of)(const char *cell, char *number, size_t size);
};

static int fill(const char *text, const char *grades, const struct fill_columns *cols, FILE *out,
                FILE *err) {
    const char *at = text;
    if (strncmp(at, "\xEF\xBB\xBF", 3) == 0) {
        fputs("\xEF\xBB\xBF", out);
        at += 3;
    }
    int identifier = -1, grade = -1, filled = 0, values = 0;
    char *seen = NULL; /* the numbers filled, each as "\nNUMBER\n" */
    size_t seen_size = 0;
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
        char name[256], number[64] = "";
        if (header) {
            for (size_t i = 0; i < count; i++) {
                field_text(starts[i], ends[i], name, sizeof name);
                identifier = strcmp(name, cols->key) == 0 ? (int)i : identifier;
                if (cols->is_value(name, cols->wanted))
                    grade = (int)i, values++;
            }
            if (identifier < 0 || values != 1) {
                fprintf(err, "not %s: %s\n", cols->what,
                        identifier < 0 ? "no key column"
                        : values == 0  ? "no column to fill"
                                       : "more than one column to fill");
                free(seen);
                free(starts);
                free(ends);
                return INTAKE_REFUSED;
            }
        } else if ((size_t)identifier < count) {
            field_text(starts[identifier], ends[identifier], name, sizeof name);
            cols->number_of(name, number, sizeof number);
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
        if (total && (size_t)grade < count) {
            filled++;
            seen = remember(seen, &seen_size, number);
        }
        fwrite(eol, 1, (size_t)(p - eol), out);
        at = p;
    }
    free(starts);
    free(ends);
    fprintf(err, "intake: %d grades filled in\n", filled);
    no_rows(grades, seen, err);
    free(seen);
    return INTAKE_OK;
}

static int is_grade(const char *header, const char *wanted) {
    return strcmp(header, wanted) == 0;
}

/* Moodle's "Participant 20001": 20001 */
static void participant_number(const char *cell, char *number, size_t size) {
    if (strncmp(cell, "Participant ", 12) == 0 && cell[12] &&
        strspn(cell + 12, "0123456789") == strlen(cell + 12))
        snprintf(number, size, "%s", cell + 12);
}

int intake_worksheet_fill(const char *text, const char *grades, FILE *out, FILE *err) {
    static const struct fill_columns moodle = {
        "Identifier", "Moodle's grading worksheet (no \"Identifier\" and one \"Grade\" column)",
        is_grade, "Grade", participant_number};
    return fill(text, grades, &moodle, out, err);
}

/* Canvas names an assignment's column "NAME (ID)": NAME itself, or NAME followed by " (digits)" */
static int is_assignment(const char *header, const char *wanted) {
    size_t n = strlen(wanted);
    if (strncmp(header, wanted, n) != 0)
        return 0;
    const char *rest = header + n;
    if (!*rest)
        return 1;
    size_t digits = strncmp(rest, " (", 2) == 0 ? strspn(rest + 2, "0123456789") : 0;
    return digits > 0 && strcmp(rest + 2 + digits, ")") == 0;
}

/* Canvas's ID cell: the user id, digits only */
static void canvas_id(const char *cell, char *number, size_t size) {
    if (*cell && strspn(cell, "0123456789") == strlen(cell))
        snprintf(number, size, "%s", cell);
}

int intake_gradebook_fill(const char *text, const char *assignment, const char *grades, FILE *out,
                          FILE *err) {
    const struct fill_columns canvas = {
        "ID",
        "Canvas's gradebook export with an ID column and one column of the assignment (its "
        "name, or \"NAME (id)\": ASSIGNMENT names it, default Workbook)",
        is_assignment, assignment, canvas_id};
    return fill(text, grades, &canvas, out, err);
}
