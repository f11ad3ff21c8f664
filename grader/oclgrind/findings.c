/* findings.c - oclgrind's --log file (findings.h): read line by line, entries counted by kind and
 * grouped by place, and summarised for the student with kernel.cl's line numbers.
 *
 * oclgrind 21.10 writes one entry per finding, entries separated by an empty line, e.g.
 *
 *   Read-write data race at local memory address 0x1000000000004
 *   <tab>Kernel: mmul
 *   <tab>
 *   <tab>First entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
 *   <tab>  store float %2, float addrspace(3)* %arrayidx24, align 4, !dbg !78
 *   <tab>At line 15 (column 21) of input.cl:
 *   <tab>  Bcol[k] = B[k * N + j];
 *   <tab>
 *   <tab>Second entity: ...
 *   <tab>At line 18 (column 30) of input.cl:
 *   <tab>  acc += Arow[k] * Bcol[k];
 *
 * and for --check-api "Oclgrind - OpenCL runtime error detected" with "Function: ...", "Error: ..."
 * and a line that explains. Where oclgrind cannot interpret an instruction (21.10's check for
 * uninitialised values and LLVM's `freeze`) it writes "OCLGRIND FATAL ERROR (file:line)" and a
 * line of what, and leaves the kernel's run unchecked from there on: counted apart, never as a
 * finding. "input.cl" is the source oclgrind was handed: the grader's canonical
 * text of kernel.cl, whose lines are kernel.cl's (canon.c), so places are named kernel.cl:LINE.
 * A finding that counts per element (one uninitialised store per element of C) comes hundreds of
 * times from one line: grouped by place, the line that causes it (a race) is not buried under the
 * line that shows it (the store of C). */
#define _GNU_SOURCE /* O_NOFOLLOW */
#include "oclgrind/findings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PLACES_SHOWN 6 /* places in a summary; the rest are counted */

static const char out_of_bounds[] =
    "an index goes past the end of a buffer (check the loop bounds and i*N + j)";

/* Each kind: how its entry's first line says it, how a count of it reads, the kernel hint. */
static const struct {
    const char *needle, *what, *hint;
} kinds[FINDING_KINDS] = {
    [FINDING_READ_OUT] = {"Invalid read", "out-of-bounds reads", out_of_bounds},
    [FINDING_WRITE_OUT] = {"Invalid write", "out-of-bounds writes", out_of_bounds},
    [FINDING_RACE_LOCAL] = {"data race at local", "data races in local memory",
                            "work-items of a group read and write the same local memory with no "
                            "barrier(CLK_LOCAL_MEM_FENCE) between: fill, barrier, use, barrier "
                            "before refilling"},
    [FINDING_RACE_GLOBAL] = {"data race at global", "data races in global memory",
                             "two work-items write the same element of C, or one reads what "
                             "another writes"},
    [FINDING_UNINIT] = {"ninitiali", "uses of uninitialised values",
                        "a value is read before anything was written to it: a private variable "
                        "without a start value (float tmp; instead of float tmp = 0.0f;), or "
                        "local memory read before the work-items that fill it reached a "
                        "barrier(CLK_LOCAL_MEM_FENCE)"},
    [FINDING_DIVERGENCE] = {"divergence", "barrier divergences",
                            "every work-item of a group must reach the same barriers: a barrier "
                            "inside an if, or after a return that only some work-items take, "
                            "breaks the group"},
    [FINDING_UNALIGNED] = {"not aligned", "unaligned vector loads or stores",
                           "a vector load or store at an address that is not a multiple of its "
                           "size: the float offset of a floatN must be a multiple of N (a vector "
                           "count times N: is a * WIDTH missing?)"},
    [FINDING_API] = {"rror detected", "OpenCL API errors", "a call the harness made was refused"},
    [FINDING_OTHER] = {NULL, "other messages", NULL},
};

/* The entry being read. */
struct entry {
    int open;        /* an entry has begun */
    int note;        /* it is one of oclgrind's own notes ("Oclgrind: ..."): not a finding */
    int fatal;       /* "OCLGRIND FATAL ERROR": oclgrind could not go on (detail: its words) */
    int want_source; /* the next line quotes the source line of the last "At line" */
    int want_detail; /* the next line explains an API error */
    struct grader_finding_place p;
};

static void append(char *to, size_t size, const char *text) {
    size_t used = strlen(to);
    if (used + 1 < size)
        snprintf(to + used, size - used, "%s", text);
}

/* The entry's first line: its kind, and its title (the line less " address 0x..."). */
static void begin_entry(struct entry *e, const char *line) {
    memset(e, 0, sizeof *e);
    e->open = 1;
    if (strncmp(line, "Oclgrind:", 9) == 0) {
        e->note = 1;
        return;
    }
    e->fatal = strncmp(line, "OCLGRIND FATAL ERROR", 20) == 0;
    e->p.kind = FINDING_OTHER;
    for (int k = 0; k < FINDING_OTHER; k++)
        if (strstr(line, kinds[k].needle)) {
            e->p.kind = (enum grader_finding_kind)k;
            break;
        }
    if (strncmp(line, "Oclgrind - ", 11) == 0)
        line += 11;
    const char *address = strstr(line, " address ");
    size_t len = address ? (size_t)(address - line) : strlen(line);
    snprintf(e->p.title, sizeof e->p.title, "%.*s", (int)len, line);
}

/* A line inside an entry (leading white space already skipped). */
static void entry_line(struct entry *e, const char *text) {
    struct grader_finding_place *p = &e->p;
    int line, column;
    if (e->fatal && !p->detail[0]) { /* its first line says what it could not do */
        snprintf(p->detail, sizeof p->detail, "%s", text);
    } else if (e->want_source) {
        e->want_source = 0;
        snprintf(p->source[p->lines - 1], sizeof p->source[0], "%s", text);
    } else if (sscanf(text, "At line %d (column %d) of", &line, &column) == 2) {
        if (p->lines < 2) {
            p->line[p->lines] = line;
            p->column[p->lines] = column;
            p->lines++;
            e->want_source = 1;
        }
    } else if (p->kind == FINDING_API && strncmp(text, "Function:", 9) == 0) {
        append(p->detail, sizeof p->detail, text + 9 + strspn(text + 9, " \t"));
    } else if (p->kind == FINDING_API && strncmp(text, "Error:", 6) == 0) {
        append(p->detail, sizeof p->detail, ": ");
        append(p->detail, sizeof p->detail, text + 6 + strspn(text + 6, " \t"));
        e->want_detail = 1;
    } else if (e->want_detail && *text) {
        e->want_detail = 0;
        append(p->detail, sizeof p->detail, ": ");
        append(p->detail, sizeof p->detail, text);
    }
}

static int same_place(const struct grader_finding_place *a, const struct grader_finding_place *b) {
    if (a->kind != b->kind || a->lines != b->lines || strcmp(a->title, b->title) != 0 ||
        strcmp(a->detail, b->detail) != 0)
        return 0;
    for (int i = 0; i < a->lines; i++)
        if (a->line[i] != b->line[i] || a->column[i] != b->column[i])
            return 0;
    return 1;
}

/* The entry is complete: count it, and add it to its place. */
static void end_entry(struct entry *e, struct grader_findings *f) {
    struct grader_finding_place *p = &e->p;
    e->open = 0;
    if (e->note)
        return;
    if (e->fatal) {
        if (!f->fatal++)
            snprintf(f->fatal_what, sizeof f->fatal_what, "%.*s", (int)sizeof f->fatal_what - 1,
                     p->detail);
        return;
    }
    f->counts[p->kind]++;
    f->total++;
    /* a race is one place whichever of its two accesses oclgrind names first */
    int race = p->kind == FINDING_RACE_LOCAL || p->kind == FINDING_RACE_GLOBAL;
    if (race && p->lines == 2 &&
        (p->line[0] > p->line[1] || (p->line[0] == p->line[1] && p->column[0] > p->column[1]))) {
        struct grader_finding_place swapped = *p;
        for (int i = 0; i < 2; i++) {
            swapped.line[i] = p->line[1 - i];
            swapped.column[i] = p->column[1 - i];
            memcpy(swapped.source[i], p->source[1 - i], sizeof p->source[i]);
        }
        *p = swapped;
    }
    if (p->lines == 2 && p->line[0] == p->line[1] && p->column[0] == p->column[1])
        p->lines = 1; /* two work-items at one access */
    for (size_t i = 0; i < f->place_count; i++)
        if (same_place(&f->places[i], p)) {
            f->places[i].count++;
            return;
        }
    if (f->place_count == FINDINGS_MAX_PLACES) {
        f->left_out++;
        return;
    }
    p->count = 1;
    f->places[f->place_count++] = *p;
}

int grader_read_findings(const char *path, struct grader_findings *f, char *why, size_t why_size) {
    memset(f, 0, sizeof *f);
    f->blank = 1;
    /* the log may lie in a folder that a student's process could write: never follow a link,
     * never block on a FIFO, never read a file linked in from elsewhere */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return 0;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        snprintf(why, why_size, "oclgrind's log is not a plain file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    FILE *in = fdopen(fd, "r");
    if (!in) {
        close(fd);
        snprintf(why, why_size, "oclgrind's log cannot be read");
        return -1;
    }
    struct entry e = {0};
    char buf[512];
    size_t bytes = 0;
    int continued = 0; /* the rest of a line longer than buf: skipped */
    while (bytes < FINDINGS_MAX_BYTES && fgets(buf, sizeof buf, in)) {
        size_t len = strlen(buf);
        bytes += len;
        int whole = len > 0 && buf[len - 1] == '\n';
        int skip = continued;
        continued = !whole;
        if (whole)
            buf[--len] = '\0';
        if (skip)
            continue;
        int white = strspn(buf, " \t\r") == len;
        f->blank &= white;
        /* only an empty line ends an entry: oclgrind's have lines of a tab inside them */
        if (len == 0) {
            if (e.open)
                end_entry(&e, f);
        } else if (!e.open && !white) {
            begin_entry(&e, buf);
            if (e.note && strstr(buf, "errors generated"))
                f->capped = 1;
        } else if (e.open) {
            entry_line(&e, buf + strspn(buf, " \t"));
        }
    }
    if (e.open)
        end_entry(&e, f);
    fclose(in);
    return 0;
}

/* ---------------------------------------------------------------- the summary */

struct text {
    char *out;
    size_t size, used;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...) {
    if (t->used + 1 >= t->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->out + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n < t->size - t->used ? (size_t)n : t->size - t->used - 1;
}

/* Places in the order of the kinds (a race before the uninitialised store it causes), the most
 * frequent first within a kind. */
static int place_order(const void *a, const void *b) {
    const struct grader_finding_place *p = a, *q = b;
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return p->count == q->count ? 0 : p->count > q->count ? -1 : 1;
}

void grader_describe_findings(const struct grader_findings *f, int kernel_hints,
                              const char *local_race_hint, char *out, size_t size) {
    struct text t = {out, size, 0};
    out[0] = '\0';
    put(&t, "oclgrind found:");
    for (int k = 0; k < FINDING_KINDS; k++)
        if (f->counts[k])
            put(&t, " %zu %s;", f->counts[k], kinds[k].what);
    if (f->capped)
        put(&t, " and more (oclgrind stops reporting at its limit)");
    const char *last_hint = NULL;
    for (int k = 0; kernel_hints && k < FINDING_KINDS; k++)
        if (f->counts[k] && kinds[k].hint && kinds[k].hint != last_hint) {
            put(&t, "\nhint: %s",
                k == FINDING_RACE_LOCAL && local_race_hint ? local_race_hint : kinds[k].hint);
            last_hint = kinds[k].hint;
        }
    struct grader_finding_place places[FINDINGS_MAX_PLACES];
    memcpy(places, f->places, f->place_count * sizeof places[0]);
    qsort(places, f->place_count, sizeof places[0], place_order);
    size_t shown = f->place_count < PLACES_SHOWN ? f->place_count : PLACES_SHOWN;
    if (shown)
        put(&t, "\nwhere (each place once):");
    for (size_t i = 0; i < shown; i++) {
        const struct grader_finding_place *p = &places[i];
        put(&t, "\n  %zu x %s%s%s", p->count, p->title, p->detail[0] ? ": " : "", p->detail);
        if (p->lines)
            put(&t, p->lines == 2 ? ", between" : ", at");
        for (int l = 0; l < p->lines; l++)
            put(&t, "\n      kernel.cl:%d:%d  %s", p->line[l], p->column[l], p->source[l]);
    }
    size_t more = f->left_out;
    for (size_t i = shown; i < f->place_count; i++)
        more += places[i].count;
    if (more)
        put(&t, "\n  and %zu more at other places", more);
}
