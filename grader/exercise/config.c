/* config.c - an instructor's config file, read into a plan (config.h): which exercises to grade,
 * their sizes and points, the time and resource limits, the performance bar. Every key is
 * optional; without a file the table's defaults hold. The table itself is never changed: the
 * plan holds its own copy of the rows. A mistake stops the grader with the file and line (a
 * batch graded with a misspelt key would be graded wrongly without anyone noticing).
 *
 *     # grader.conf
 *     exercises = 02_per_row, 04_local_B
 *     timeout = 20            # seconds per run of a student's kernel or program
 *     memory_mb = 2048        # per student program, all its processes together
 *     04_local_B.sizes = 16, 100, 200
 *     04_local_B.points.host = 3
 *     slurm.gres = gpu:1      # make batch ENGINE=slurm: each student's task (also partition,
 *                             # time_minutes, memory_mb, cpus)
 *     deadline = 2026-12-01 23:59              # make batch's late penalty (every exercise's;
 *     04_local_B.deadline = 2026-11-20 23:59   # one exercise's), late.per_day = 10 (percent of
 *     late.cap = 50                            # the points an exercise earned, per day or part
 *     late.grace_minutes = 15                  # of one), its cap, and the minutes before
 *                                              # lateness counts: the rule in
 * grader/batch/README.md
 */
#include "exercise/config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Names an `exercises = a, b, ...` line may list: a list that long is refused, never cut. */
#define CONFIG_MAX_LISTED 64

/* A whole-number value in [low, high]: 0, or -1. */
static int parse_long(const char *text, long low, long high, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < low || v > high)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *text, double low, double high, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < low || v > high)
        return -1;
    *out = v;
    return 0;
}

/* A deadline, `YYYY-MM-DD HH:MM` (the batch machine's local time): 0, or -1. Only checked here:
 * make batch applies it (grader/batch/class_files.sh), the grader grades the same either way. */
static int check_deadline(const char *text) {
    int y, mo, d, h, mi, used = 0;
    if (sscanf(text, "%4d-%2d-%2d %2d:%2d%n", &y, &mo, &d, &h, &mi, &used) != 5 || text[used] ||
        strlen(text) != 16)
        return -1;
    return y >= 2000 && y <= 9999 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 &&
                   h <= 23 && mi >= 0 && mi <= 59
               ? 0
               : -1;
}

/* A key after "late." (make batch's late penalty, grader/batch/class_files.sh): 0, or -1 with the
 * reason in why. */
static int check_late_key(const char *key, const char *value, char *why, size_t why_size) {
    static const struct {
        const char *name;
        long high;
    } keys[] = {{"per_day", 100}, {"cap", 100}, {"grace_minutes", 7 * 24 * 60}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(key, keys[i].name)) {
            long v;
            if (parse_long(value, 0, keys[i].high, &v) != 0) {
                snprintf(why, why_size, "late.%s wants a whole number from 0 to %ld, not \"%s\"",
                         key, keys[i].high, value);
                return -1;
            }
            return 0;
        }
    snprintf(why, why_size, "unknown key \"late.%s\"", key);
    return -1;
}

/* Split value at commas into trimmed, non-empty items (modifies value): the item count, or -1
 * when there are more than max (the list is refused rather than cut short). */
static int split_list(char *value, char **items, int max) {
    int count = 0;
    for (char *item = strtok(value, ","); item; item = strtok(NULL, ",")) {
        while (isspace((unsigned char)*item))
            item++;
        char *end = item + strlen(item);
        while (end > item && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (!*item)
            continue;
        if (count == max)
            return -1;
        items[count++] = item;
    }
    return count;
}

/* An exercise's key (after "ID."): 0, or -1 with the reason in why. */
static int set_exercise_key(struct grader_exercise *ex, const char *key, char *value, char *why,
                            size_t why_size) {
    long v;
    /* a vector's length or a matrix's order: vadd takes millions, a matmul thousands */
    const long size_limit = ex->is_vector ? 1L << 25 : 16384; /* C.bin within the file cap */
    struct {
        const char *name;
        int *field;
        long low, high;
    } ints[] = {
        {"host_n", &ex->host_n, 1, size_limit},
        {"memcheck_n", &ex->memcheck_n, 1, ex->is_vector ? 1 << 20 : 512},
        {"perf_n", &ex->perf_n, 1, size_limit},
        {"points.per_size", &ex->points.per_size, 0, 1000},
        {"points.host", &ex->points.host, 0, 1000},
        {"points.memcheck", &ex->points.memcheck, 0, 1000},
        {"points.perf", &ex->points.perf, 0, 1000},
        {"points.technique", &ex->points.technique, 0, 1000},
        {"points.cuda_per_size", &ex->cuda_per_size, 0, 1000},
        {"points.vendor", &ex->points.vendor, 0, 1000},
    };
    if (ex->rectangular && (!strcmp(key, "sizes") || !strcmp(key, "host_n"))) {
        /* its sizes are M x N x K, which a line of N cannot say */
        snprintf(why, why_size, "%s.%s cannot be set: %s is graded at M x N x K sizes of its own",
                 ex->id, key, ex->id);
        return -1;
    }
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (strcmp(key, ints[i].name) != 0)
            continue;
        if (parse_long(value, ints[i].low, ints[i].high, &v) != 0) {
            snprintf(why, why_size, "%s.%s wants a whole number from %ld to %ld, not \"%s\"",
                     ex->id, key, ints[i].low, ints[i].high, value);
            return -1;
        }
        if ((!strcmp(key, "host_n") || !strcmp(key, "memcheck_n") || !strcmp(key, "perf_n")) &&
            !grader_size_valid_at(ex, !strcmp(key, "memcheck_n"), (int)v)) {
            snprintf(why, why_size,
                     "%s.%s = %ld is not a valid size of %s (multiple of %d, at "
                     "most %d)",
                     ex->id, key, v, ex->id, ex->multiple, ex->max_n);
            return -1;
        }
        *ints[i].field = (int)v;
        ex->perf_fixed |= !strcmp(key, "perf_n"); /* the instructor's size: it does not grow */
        return 0;
    }
    if (!strcmp(key, "sizes")) {
        char *items[GRADER_MAX_SIZES + 1];
        int count = split_list(value, items, GRADER_MAX_SIZES + 1);
        if (count < 1 || count > GRADER_MAX_SIZES - 1) {
            snprintf(why, why_size, "%s.sizes wants 1 to %d sizes", ex->id, GRADER_MAX_SIZES - 1);
            return -1;
        }
        int sizes[GRADER_MAX_SIZES] = {0};
        for (int i = 0; i < count; i++) {
            if (parse_long(items[i], 1, size_limit, &v) != 0 || !grader_size_valid(ex, (int)v)) {
                snprintf(why, why_size,
                         "%s.sizes: \"%s\" is not a valid size (multiple of %d, at most %ld)",
                         ex->id, items[i], ex->multiple, ex->max_n ? (long)ex->max_n : size_limit);
                return -1;
            }
            for (int j = 0; j < i; j++)
                if (sizes[j] == (int)v) {
                    snprintf(why, why_size, "%s.sizes: %ld twice", ex->id, v);
                    return -1;
                }
            sizes[i] = (int)v;
        }
        memcpy(ex->sizes, sizes, sizeof sizes);
        return 0;
    }
    if (!strcmp(key, "vendor_ratios")) {
        /* fractions of the vendor's speed, ascending: "0.5, 1, 1.5" */
        char *items[GRADER_MAX_RATIOS + 1];
        int count = split_list(value, items, GRADER_MAX_RATIOS + 1);
        double ratios[GRADER_MAX_RATIOS] = {0};
        if (!ex->vendor_ratios[0]) {
            snprintf(why, why_size, "%s.vendor_ratios: %s is not timed against the vendors", ex->id,
                     ex->id);
            return -1;
        }
        if (count < 1 || count > GRADER_MAX_RATIOS - 1) {
            snprintf(why, why_size, "%s.vendor_ratios wants 1 to %d fractions", ex->id,
                     GRADER_MAX_RATIOS - 1);
            return -1;
        }
        for (int i = 0; i < count; i++) {
            char *end = NULL;
            double d = strtod(items[i], &end);
            if (end == items[i] || *end || !(d > 0.0 && d <= 100.0) ||
                (i > 0 && !(d > ratios[i - 1]))) {
                snprintf(why, why_size,
                         "%s.vendor_ratios: \"%s\" is not a fraction above the one before it "
                         "(from 0 to 100)",
                         ex->id, items[i]);
                return -1;
            }
            ratios[i] = d;
        }
        memcpy(ex->vendor_ratios, ratios, sizeof ratios);
        return 0;
    }
    if (!strcmp(key, "deadline")) {
        if (check_deadline(value) != 0) {
            snprintf(why, why_size, "%s.deadline wants YYYY-MM-DD HH:MM, not \"%s\"", ex->id,
                     value);
            return -1;
        }
        return 0;
    }
    if (!strncmp(key, "quiz.", 5)) {
        for (int q = 0; q < GRADER_MAX_QUESTIONS && ex->quiz[q].id; q++)
            if (!strcmp(ex->quiz[q].id, key + 5)) {
                if (parse_long(value, 0, 1000, &v) != 0) {
                    snprintf(why, why_size, "%s.%s wants points from 0 to 1000", ex->id, key);
                    return -1;
                }
                ex->quiz[q].points = (int)v;
                return 0;
            }
        snprintf(why, why_size, "%s has no quiz question \"%s\"", ex->id, key + 5);
        return -1;
    }
    snprintf(why, why_size, "unknown key \"%s.%s\"", ex->id, key);
    return -1;
}

/* A key after "slurm.": 0, or -1 with the reason in why. */
static int set_slurm_key(struct grader_slurm *slurm, const char *key, const char *value, char *why,
                         size_t why_size) {
    char *texts[] = {slurm->partition, slurm->gres};
    const char *text_names[] = {"partition", "gres"};
    for (int i = 0; i < 2; i++)
        if (!strcmp(key, text_names[i])) {
            size_t length = strlen(value);
            if (length >= sizeof slurm->partition ||
                strspn(value,
                       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:,=-") !=
                    length) {
                snprintf(why, why_size,
                         "slurm.%s wants up to %zu letters, digits or _ . : , = - (not \"%s\")",
                         key, sizeof slurm->partition - 1, value);
                return -1;
            }
            memcpy(texts[i], value, length + 1);
            return 0;
        }
    struct {
        const char *name;
        long high;
        int *field;
    } numbers[] = {
        {"time_minutes", 7 * 24 * 60, &slurm->time_minutes},
        {"memory_mb", 1L << 24, &slurm->memory_mb},
        {"cpus", 1024, &slurm->cpus},
    };
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++)
        if (!strcmp(key, numbers[i].name)) {
            long v;
            if (parse_long(value, 1, numbers[i].high, &v) != 0) {
                snprintf(why, why_size, "slurm.%s wants a whole number from 1 to %ld, not \"%s\"",
                         key, numbers[i].high, value);
                return -1;
            }
            *numbers[i].field = (int)v;
            return 0;
        }
    snprintf(why, why_size, "unknown key \"slurm.%s\"", key);
    return -1;
}

/* A key that is not an exercise's: 0, or -1 with the reason in why. */
static int set_global_key(const char *key, char *value, struct grader_plan *plan, char *why,
                          size_t why_size) {
    struct grader_limits *limits = &plan->limits;
    long v;
    double d;
    if (!strcmp(key, "exercises")) {
        char *items[CONFIG_MAX_LISTED];
        int count = split_list(value, items, CONFIG_MAX_LISTED);
        if (count < 0) {
            snprintf(why, why_size, "exercises lists more than %d names", CONFIG_MAX_LISTED);
            return -1;
        }
        plan->chosen_count = 0;
        for (int i = 0; i < count; i++) {
            const struct grader_exercise *ex = grader_find_exercise(items[i]);
            if (!ex) {
                snprintf(why, why_size, "no exercise \"%s\"", items[i]);
                return -1;
            }
            int row = (int)(ex - grader_exercises), already = 0;
            for (int c = 0; c < plan->chosen_count; c++)
                already |= plan->chosen[c] == row;
            if (!already) /* at most every row once: it fits */
                plan->chosen[plan->chosen_count++] = row;
        }
        if (plan->chosen_count == 0) {
            snprintf(why, why_size, "exercises lists none");
            return -1;
        }
        return 0;
    }
    struct {
        const char *name;
        long low, high, scale;
        long long *target;
    } sizes[] = {
        /* up to 64 TiB: a grader built with AddressSanitizer (make asan) runs its harness
         * children under RLIMIT_DATA, and their shadow memory reserves about 20 TiB */
        {"memory_mb", 64, 1L << 26, 1L << 20, &limits->memory_bytes},
        {"disk_mb", 1, 1L << 20, 1L << 20, &limits->disk_bytes},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!strcmp(key, sizes[i].name)) {
            if (parse_long(value, sizes[i].low, sizes[i].high, &v) != 0)
                goto bad_number;
            *sizes[i].target = (long long)v * sizes[i].scale;
            return 0;
        }
    if (!strcmp(key, "processes") || !strcmp(key, "open_files")) {
        if (parse_long(value, 16, 1 << 20, &v) != 0)
            goto bad_number;
        *(!strcmp(key, "processes") ? &limits->processes : &limits->open_files) = v;
        return 0;
    }
    if (!strcmp(key, "timeout") || !strcmp(key, "cpu_seconds")) {
        if (parse_double(value, 1, 86400, &d) != 0)
            goto bad_number;
        *(!strcmp(key, "timeout") ? &plan->timeout : &limits->cpu_seconds) = d;
        return 0;
    }
    if (!strcmp(key, "deadline")) {
        if (check_deadline(value) != 0) {
            snprintf(why, why_size, "deadline wants YYYY-MM-DD HH:MM, not \"%s\"", value);
            return -1;
        }
        return 0;
    }
    if (!strcmp(key, "perf_ratio")) {
        if (parse_double(value, 0, 100, &d) != 0)
            goto bad_number;
        plan->perf_ratio = d;
        return 0;
    }
    snprintf(why, why_size, "unknown key \"%s\"", key);
    return -1;
bad_number:
    snprintf(why, why_size, "%s: \"%s\" is not a number in range", key, value);
    return -1;
}

void grader_plan_init(struct grader_plan *plan, double timeout,
                      const struct grader_limits *limits) {
    memset(plan, 0, sizeof *plan);
    memcpy(plan->rows, grader_exercises,
           sizeof grader_exercises[0] * (size_t)grader_exercise_count);
    plan->row_count = grader_exercise_count;
    plan->timeout = timeout;
    plan->perf_ratio = GRADER_PERF_RATIO;
    plan->limits = *limits;
    plan->slurm.time_minutes = GRADER_SLURM_MINUTES;
    plan->slurm.memory_mb = GRADER_SLURM_MEMORY_MB;
    plan->slurm.cpus = GRADER_SLURM_CPUS;
}

int grader_load_config(const char *path, struct grader_plan *plan, char *err, size_t err_size) {
    size_t length = 0;
    char *text = clu_read_file(path, &length);
    if (!text) {
        snprintf(err, err_size, "%s: cannot read it (%s)", path, strerror(errno));
        return -1;
    }
    const char *nul = memchr(text, '\0', length);
    if (nul) {
        int line = 1;
        for (const char *p = text; p < nul; p++)
            line += *p == '\n';
        snprintf(err, err_size, "%s:%d: not a text file (a NUL byte)", path, line);
        free(text);
        return -1;
    }
    /* lines change a copy, kept only when the whole file is right: a refused file changes
     * nothing (a plan is a few kilobytes) */
    struct grader_plan *next_plan = malloc(sizeof *next_plan);
    if (!next_plan) {
        snprintf(err, err_size, "%s: out of memory", path);
        free(text);
        return -1;
    }
    *next_plan = *plan;
    int line_no = 0, status = 0;
    char why[300];
    for (char *line = text, *next; line && status == 0; line = next) {
        line_no++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *eq = strchr(line, '=');
        char *key = line, *value = eq ? eq + 1 : NULL;
        if (eq)
            *eq = '\0';
        char *items[2];
        int parts = split_list(key, items, 2);
        if (parts == 0 && !value)
            continue; /* blank or comment */
        if (parts != 1 || !value) {
            snprintf(err, err_size, "%s:%d: expected `key = value`", path, line_no);
            status = -1;
            break;
        }
        key = items[0];
        while (isspace((unsigned char)*value))
            value++;
        char *end = value + strlen(value);
        while (end > value && isspace((unsigned char)end[-1]))
            *--end = '\0';
        char *dot = strchr(key, '.');
        struct grader_exercise *ex = NULL;
        if (dot && dot - key == 4 && !strncmp(key, "late", 4)) {
            if (check_late_key(dot + 1, value, why, sizeof why) != 0) {
                snprintf(err, err_size, "%s:%d: %s", path, line_no, why);
                status = -1;
            }
            continue;
        }
        if (dot && dot - key == 5 && !strncmp(key, "slurm", 5)) {
            if (set_slurm_key(&next_plan->slurm, dot + 1, value, why, sizeof why) != 0) {
                snprintf(err, err_size, "%s:%d: %s", path, line_no, why);
                status = -1;
            }
            continue;
        }
        if (dot) {
            *dot = '\0';
            const struct grader_exercise *row = grader_find_exercise(key);
            if (row)
                ex = &next_plan->rows[row - grader_exercises];
            if (!ex) {
                snprintf(err, err_size, "%s:%d: no exercise \"%s\"", path, line_no, key);
                status = -1;
                break;
            }
        }
        int bad = ex ? set_exercise_key(ex, dot + 1, value, why, sizeof why)
                     : set_global_key(key, value, next_plan, why, sizeof why);
        if (bad) {
            snprintf(err, err_size, "%s:%d: %s", path, line_no, why);
            status = -1;
        }
    }
    free(text);
    if (status == 0)
        *plan = *next_plan;
    free(next_plan);
    return status;
}
