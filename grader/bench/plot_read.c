/* plot_read.c - bench.csv read into the plots' data (plot.h's plot_read): its rows checked, the
 * cases ordered as the lecture's table, the devices and sizes listed once each. */
#define _DEFAULT_SOURCE /* strdup */
#include "bench/csv.h"
#include "bench/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- reading bench.csv */

static const char *const kind_names[] = {"baseline", "kernel", "vendor", "peak", "bandwidth"};

/* The columns this file reads (by name: the header says where they are). */
#define PLOT_COLUMNS "kind,case,device,n,value,flops_per_byte,key"

int plot_is_case(enum plot_kind kind) {
    return kind == KIND_BASELINE || kind == KIND_KERNEL || kind == KIND_VENDOR;
}

/* Index of key in the list, appended with its label when new; -1 when out of memory. */
static int names_index(struct plot_names *l, const char *key, const char *label) {
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->keys[i], key) == 0)
            return i;
    char **more = realloc(l->names, (size_t)(l->count + 1) * sizeof *more);
    if (more)
        l->names = more;
    char **more_keys = realloc(l->keys, (size_t)(l->count + 1) * sizeof *more_keys);
    if (more_keys)
        l->keys = more_keys;
    if (!more || !more_keys || !(l->names[l->count] = strdup(label)))
        return -1;
    if (!(l->keys[l->count] = strdup(key))) {
        free(l->names[l->count]);
        return -1;
    }
    return l->count++;
}

static void names_free(struct plot_names *l) {
    for (int i = 0; i < l->count; i++) {
        free(l->names[i]);
        free(l->keys[i]);
    }
    free(l->names);
    free(l->keys);
}

/* A device's name for a slide: "cpu-skylake-avx512-Intel(R) Xeon(R) Processor (Portable Computing
 * Language)" is "Intel Xeon Processor (POCL)"; the full name stays the device's key and is in
 * bench.md. POCL's "cpu-" or "pthread-" prefix names its build target, (R) and (TM) say nothing
 * on a slide, and the platforms have short names of their own. */
void plot_short_device(const char *name, char *out, size_t size) {
    static const char *const dropped[] = {"(R)", "(r)", "(TM)", "(tm)"};
    static const char *const platforms[][2] = {{"(Portable Computing Language)", "(POCL)"},
                                               {"(NVIDIA CUDA)", "(CUDA)"},
                                               {"(AMD Accelerated Parallel Processing)", "(AMD)"},
                                               {"(Intel(R) OpenCL)", "(Intel)"}};
    if (size == 0)
        return;
    if (strncmp(name, "cpu-", 4) == 0 || strncmp(name, "pthread-", 8) == 0) {
        size_t word = strcspn(name, " ");
        const char *dash = name;
        for (const char *p = name; p < name + word; p++)
            if (*p == '-')
                dash = p;
        name = dash + 1;
    }
    size_t used = 0;
    for (const char *p = name; *p && used + 1 < size;) {
        int skipped = 0;
        for (int i = 0; i < COUNT_OF(platforms) && !skipped; i++)
            if (strncmp(p, platforms[i][0], strlen(platforms[i][0])) == 0) {
                used += (size_t)snprintf(out + used, size - used, "%s", platforms[i][1]);
                used = used < size ? used : size - 1;
                p += strlen(platforms[i][0]);
                skipped = 1;
            }
        for (int i = 0; i < COUNT_OF(dropped) && !skipped; i++)
            if (strncmp(p, dropped[i], strlen(dropped[i])) == 0) {
                p += strlen(dropped[i]);
                skipped = 1;
            }
        if (skipped)
            continue;
        if (*p == ' ' && (used == 0 || out[used - 1] == ' ')) { /* one space, none leading */
            p++;
            continue;
        }
        out[used++] = *p++;
    }
    while (used > 0 && out[used - 1] == ' ')
        used--;
    out[used] = '\0';
}

void plot_case_split(const char *name, char *label, size_t label_size, char *tuning,
                     size_t tuning_size) {
    const char *open = strrchr(name, '(');
    size_t length = strlen(name);
    int has_values = open && open > name && open[-1] == ' ' && length > 0 &&
                     name[length - 1] == ')' && memchr(open, '=', length - (size_t)(open - name));
    if (!has_values) {
        snprintf(label, label_size, "%s", name);
        snprintf(tuning, tuning_size, "%s", "");
        return;
    }
    snprintf(label, label_size, "%.*s", (int)(open - 1 - name), name);
    snprintf(tuning, tuning_size, "%.*s", (int)(name + length - 1 - (open + 1)), open + 1);
}

/* A number field: 1 when read (NAN for an empty field), 0 when it is not a number. */
static int parse_number(const char *s, double *out) {
    if (!*s) {
        *out = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return errno == 0 && *end == '\0' && isfinite(*out);
}

/* Row i of the CSV into d; 0, or -1 with why. */
static int parse_row(struct plot_data *d, const struct bench_csv *t, int i, const char *path,
                     char *why, size_t why_size) {
    const char *kind_text = bench_csv_cell(t, i, bench_csv_column(t, "kind"));
    const char *n_text = bench_csv_cell(t, i, bench_csv_column(t, "n"));
    const char *value = bench_csv_cell(t, i, bench_csv_column(t, "value"));
    const char *intensity = bench_csv_cell(t, i, bench_csv_column(t, "flops_per_byte"));
    const char *device = bench_csv_cell(t, i, bench_csv_column(t, "device"));
    const char *name = bench_csv_cell(t, i, bench_csv_column(t, "case"));
    const char *key = bench_csv_cell(t, i, bench_csv_column(t, "key"));
    /* columns newer than some bench.csv files: "" where the file has none */
    const char *timed_text = bench_csv_cell(t, i, bench_csv_column(t, "timed_n"));
    int step_column = bench_csv_column(t, "step");
    const char *step = bench_csv_cell(t, i, step_column);
    int line_no = t->lines[i];
    struct plot_row r = {.case_index = -1, .step_index = -1};
    int kind = -1;
    for (int k = 0; k < COUNT_OF(kind_names); k++)
        if (strcmp(kind_text, kind_names[k]) == 0)
            kind = k;
    if (kind < 0)
        return csv_fail(why, why_size,
                        "%s line %d: unknown kind '%.40s' (baseline, kernel, vendor, peak or "
                        "bandwidth expected)",
                        path, line_no, kind_text);
    r.kind = (enum plot_kind)kind;
    double n;
    if (!parse_number(n_text, &n) || (!isnan(n) && (n < 0 || n > INT_MAX || n != floor(n))))
        return csv_fail(why, why_size, "%s line %d: n '%.40s' is not a matrix order", path, line_no,
                        n_text);
    r.n = isnan(n) ? 0 : (int)n;
    double timed;
    if (!parse_number(timed_text, &timed) ||
        (!isnan(timed) && (timed < 0 || timed > INT_MAX || timed != floor(timed))))
        return csv_fail(why, why_size, "%s line %d: timed_n '%.40s' is not a matrix order", path,
                        line_no, timed_text);
    r.timed_n = !isnan(timed) && (int)timed != r.n ? (int)timed : 0;
    if (plot_is_case(r.kind) && r.n <= 0)
        return csv_fail(why, why_size, "%s line %d: a %s row without its N", path, line_no,
                        kind_names[kind]);
    if (plot_is_case(r.kind) && !*key)
        return csv_fail(why, why_size, "%s line %d: a %s row without its key", path, line_no,
                        kind_names[kind]);
    if (!parse_number(value, &r.value))
        return csv_fail(why, why_size, "%s line %d: value '%.40s' is not a number", path, line_no,
                        value);
    if (!parse_number(intensity, &r.intensity))
        return csv_fail(why, why_size, "%s line %d: flops_per_byte '%.40s' is not a number", path,
                        line_no, intensity);
    if (!*device)
        device = "(unnamed device)";
    char short_name[200];
    plot_short_device(device, short_name, sizeof short_name);
    r.device_index = names_index(&d->devices, device, short_name);
    /* cases are told apart by their key; the case text is only their label */
    if (plot_is_case(r.kind))
        r.case_index = names_index(&d->cases, key, *name ? name : key);
    if (r.case_index >= 0 && r.case_index >= d->tunings.count) {
        char label[200], tuning[200];
        plot_case_split(*name ? name : key, label, sizeof label, tuning, sizeof tuning);
        if (names_index(&d->tunings, key, tuning) < 0)
            return csv_fail(why, why_size, "out of memory reading %s", path);
        free(d->cases.names[r.case_index]);
        if (!(d->cases.names[r.case_index] = strdup(label)))
            return csv_fail(why, why_size, "out of memory reading %s", path);
    }
    if (r.device_index < 0 || (plot_is_case(r.kind) && r.case_index < 0))
        return csv_fail(why, why_size, "out of memory reading %s", path);
    /* a file from before the step column: its steps were 01-04 by key and 05 at BLOCK 16 */
    char old_step[64] = "";
    if (step_column < 0 && r.kind == KIND_KERNEL && strncmp(key, "ex:", 3) == 0) {
        size_t id = strcspn(key + 3, "@");
        if ((!key[3 + id] || strcmp(key + 3 + id, "@b16") == 0) && id < sizeof old_step)
            snprintf(old_step, sizeof old_step, "%.*s", (int)id, key + 3);
        step = old_step;
    }
    if (r.kind == KIND_KERNEL && *step && (r.step_index = names_index(&d->steps, step, step)) < 0)
        return csv_fail(why, why_size, "out of memory reading %s", path);
    struct plot_row *more = realloc(d->rows, (size_t)(d->row_count + 1) * sizeof *more);
    if (!more)
        return csv_fail(why, why_size, "out of memory reading %s", path);
    d->rows = more;
    d->rows[d->row_count++] = r;
    if (plot_is_case(r.kind) && r.value > 0 && r.n > d->max_n)
        d->max_n = r.n;
    return 0;
}

/* Cases in the lecture's order even where each device lacks different ones (a kernel that failed
 * there, a vendor library of one kind of device): every device and N lists its cases in that
 * order, so a case goes after every case that some device and N lists before it, and otherwise
 * as early as it was first seen. (Placing a new case right after the one before it in its first
 * device's rows put cuBLAS before the 64x64 block where the GPU could not run that block and
 * had no CLBlast.) A file whose rows disagree (edited by hand) gets the first-seen order where
 * they do. Renumbers the cases in that order. */
static int order_cases(struct plot_data *d) {
    int count = d->cases.count;
    size_t cc = (size_t)count * (size_t)count;
    char *before = calloc(cc + 1, 1); /* before[a * count + b]: a listed before b somewhere */
    int *order = malloc((size_t)(count + 1) * sizeof *order);
    int *rank = malloc((size_t)(count + 1) * sizeof *rank);
    char *placed = calloc((size_t)count + 1, 1);
    char **names = malloc((size_t)(count + 1) * sizeof *names);
    char **keys = malloc((size_t)(count + 1) * sizeof *keys);
    if (!before || !order || !rank || !placed || !names || !keys) {
        free(before);
        free(order);
        free(rank);
        free(placed);
        free(names);
        free(keys);
        return -1;
    }
    for (int i = 0; i < d->row_count; i++) {
        const struct plot_row *r = &d->rows[i];
        if (!plot_is_case(r->kind))
            continue;
        for (int j = i + 1; j < d->row_count; j++) {
            const struct plot_row *q = &d->rows[j];
            if (plot_is_case(q->kind) && q->device_index == r->device_index && q->n == r->n &&
                q->case_index != r->case_index)
                before[(size_t)r->case_index * (size_t)count + (size_t)q->case_index] = 1;
        }
    }
    /* the cases are numbered in order of first appearance: take the first one whose every
     * predecessor is placed, or, where none is (rows that disagree), the first one left */
    for (int at = 0; at < count; at++) {
        int pick = -1, first_left = -1;
        for (int c = 0; c < count && pick < 0; c++) {
            if (placed[c])
                continue;
            if (first_left < 0)
                first_left = c;
            int free_of = 1;
            for (int p = 0; p < count && free_of; p++)
                free_of = placed[p] || p == c || !before[(size_t)p * (size_t)count + (size_t)c];
            if (free_of)
                pick = c;
        }
        if (pick < 0)
            pick = first_left;
        if (pick < 0)
            break; /* cannot happen: one is left for each place */
        placed[pick] = 1;
        order[at] = pick;
    }
    for (int i = 0; i < count; i++) {
        rank[order[i]] = i;
        names[i] = d->cases.names[order[i]];
        keys[i] = d->cases.keys[order[i]];
    }
    for (int i = 0; i < d->row_count; i++)
        if (plot_is_case(d->rows[i].kind))
            d->rows[i].case_index = rank[d->rows[i].case_index];
    free(d->cases.names);
    free(d->cases.keys);
    d->cases.names = names;
    d->cases.keys = keys;
    free(before);
    free(order);
    free(rank);
    free(placed);
    return 0;
}

void plot_free(struct plot_data *d) {
    free(d->rows);
    names_free(&d->cases);
    names_free(&d->tunings);
    names_free(&d->devices);
    names_free(&d->steps);
    memset(d, 0, sizeof *d);
}

int plot_read(const char *path, struct plot_data *d, char *why, size_t why_size) {
    memset(d, 0, sizeof *d);
    struct bench_csv t;
    if (bench_csv_read(path, PLOT_COLUMNS, &t, why, why_size) != 0)
        return -1;
    int status = 0;
    for (int i = 0; status == 0 && i < t.rows; i++)
        status = parse_row(d, &t, i, path, why, why_size);
    if (status == 0 && order_cases(d) != 0)
        status = csv_fail(why, why_size, "out of memory reading %s", path);
    bench_csv_free(&t);
    if (status != 0)
        plot_free(d);
    return status;
}
