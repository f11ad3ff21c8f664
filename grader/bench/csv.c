/* csv.c - bench.csv written and read (csv.h): RFC 4180 quoting both ways, one row a line. */
#include "bench/csv.h"

#include "clu.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- writing */

/* A text field, quoted when it holds a comma, a quote or a line break: the lecture's case names
 * do ("C(i,j) per work-item, all global"), and so do drivers' version strings. */
static void csv_text(FILE *f, const char *s) {
    if (!s)
        s = "";
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* A number field after its comma: empty when NAN. */
static void csv_number(FILE *f, const char *format, double v) {
    fputc(',', f);
    if (!isnan(v))
        fprintf(f, format, v);
}

void bench_csv_write_header(FILE *f) {
    fprintf(f, "%s\n", BENCH_CSV_HEADER);
}

void bench_csv_write_row(FILE *f, const struct bench_csv_row *r) {
    csv_text(f, r->kind);
    fputc(',', f);
    csv_text(f, r->name);
    fputc(',', f);
    csv_text(f, r->device);
    fputc(',', f);
    csv_text(f, r->driver);
    fprintf(f, ",%d,", r->n);
    csv_text(f, r->options);
    fputc(',', f);
    if (r->repeats > 0)
        fprintf(f, "%d", r->repeats);
    csv_number(f, "%.9g", r->min_s);
    csv_number(f, "%.9g", r->median_s);
    csv_number(f, "%.9g", r->max_s);
    csv_number(f, "%.3f", r->value);
    fputc(',', f);
    csv_text(f, r->unit);
    csv_number(f, "%.2f", r->pct_peak);
    csv_number(f, "%.4f", r->flops_per_byte);
    fputc(',', f);
    csv_text(f, r->key);
    fputc(',', f);
    if (r->timed_n > 0)
        fprintf(f, "%d", r->timed_n);
    fputc(',', f);
    csv_text(f, r->tuning);
    fputc(',', f);
    csv_text(f, r->step);
    fputc('\n', f);
}

/* ---------------------------------------------------------------- reading */

int csv_fail(char *why, size_t why_size, const char *fmt, ...) {
    if (why_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *csv_trim(char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        s[--len] = '\0';
    return s;
}

/* Split line in place into fields (unquoted, trimmed), appended to *cells; returns their count,
 * or -1 when out of memory. */
static int csv_split(char *line, char ***cells, size_t *used, size_t *room) {
    int count = 0;
    for (char *p = line;;) {
        char *comma, *start = p;
        if (*p == '"') {
            /* a quoted field: runs to the lone closing quote; "" stands for " */
            char *w = p;
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                *w++ = *p;
            }
            if (*p == '"')
                p++;
            comma = strchr(p, ',');
            *w = '\0';
        } else {
            comma = strchr(p, ',');
            if (comma)
                *comma = '\0';
        }
        if (*used == *room) {
            size_t more = *room ? 2 * *room : 64;
            char **grown = realloc(*cells, more * sizeof *grown);
            if (!grown)
                return -1;
            *cells = grown;
            *room = more;
        }
        (*cells)[(*used)++] = csv_trim(start);
        count++;
        if (!comma)
            return count;
        p = comma + 1;
    }
}

int bench_csv_read(const char *path, const char *required, struct bench_csv *t, char *why,
                   size_t why_size) {
    memset(t, 0, sizeof *t);
    if (!(t->text = clu_read_file(path, NULL)))
        return csv_fail(why, why_size, "cannot read %s: %s", path, strerror(errno));
    char **cells = NULL;
    size_t used = 0, room = 0, line_room = 0;
    int status = 0, line_no = 0;
    char *line = t->text;
    if (strncmp(line, "\xef\xbb\xbf", 3) == 0) /* a byte-order mark, if an editor added one */
        line += 3;
    while (status == 0 && line && *line) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        line_no++;
        char *content = csv_trim(line);
        line = next;
        if (line_no > 1 && !*content)
            continue;
        int count = csv_split(content, &cells, &used, &room);
        if (count < 0) {
            status = csv_fail(why, why_size, "out of memory reading %s", path);
        } else if (line_no == 1) {
            t->columns = count;
        } else if (count != t->columns) {
            status = csv_fail(why, why_size, "%s line %d: %d fields, %d expected (%s)", path,
                              line_no, count, t->columns, BENCH_CSV_HEADER);
        } else {
            if ((size_t)t->rows == line_room) {
                line_room = line_room ? 2 * line_room : 64;
                int *grown = realloc(t->lines, line_room * sizeof *grown);
                if (!grown) {
                    status = csv_fail(why, why_size, "out of memory reading %s", path);
                    break;
                }
                t->lines = grown;
            }
            t->lines[t->rows++] = line_no;
        }
    }
    if (status == 0 && line_no == 0)
        status = csv_fail(why, why_size, "%s is empty (no '%s' header)", path, BENCH_CSV_HEADER);
    t->names = cells;
    t->cells = cells ? cells + t->columns : NULL;
    /* every required name in the header */
    for (const char *p = required; status == 0 && p && *p;) {
        size_t length = strcspn(p, ",");
        int found = 0;
        for (int c = 0; c < t->columns && !found; c++)
            found = strlen(t->names[c]) == length && strncmp(t->names[c], p, length) == 0;
        if (!found)
            status = csv_fail(why, why_size,
                              "%s is not a bench CSV of this grader: no column '%.*s' in its "
                              "header (expected '%s'; run make bench again)",
                              path, (int)length, p, BENCH_CSV_HEADER);
        p += length + (p[length] == ',');
    }
    if (status != 0)
        bench_csv_free(t);
    return status;
}

int bench_csv_column(const struct bench_csv *t, const char *name) {
    for (int c = 0; c < t->columns; c++)
        if (strcmp(t->names[c], name) == 0)
            return c;
    return -1;
}

const char *bench_csv_cell(const struct bench_csv *t, int row, int column) {
    if (column < 0 || column >= t->columns || row < 0 || row >= t->rows)
        return "";
    return t->cells[(size_t)row * (size_t)t->columns + (size_t)column];
}

void bench_csv_free(struct bench_csv *t) {
    free(t->names);
    free(t->lines);
    free(t->text);
    memset(t, 0, sizeof *t);
}
