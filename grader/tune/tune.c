/* tune.c - `make tune` (grader --tune): the row's tuning values searched on this device.
 *
 * A kernel is code, whoever wrote it: each candidate is canonicalised at its values (canon.c)
 * and timed in a jailed serving harness exactly as the grader times a student's kernel
 * (timing_protocol.h): the grader's clock on each launch, its own seeds, every round's C
 * checked with Freivalds' test. The defaults go first; their launch sets the timed N (doubled
 * while it lasts under 20 ms, as the grader does) and their cost predicts the others'. Where the
 * budget holds every candidate the launch can take, all are tried in a random order; else a
 * random half of what it holds, then the neighbours of the best (one value one step away) while
 * they improve it, then random ones again. The best is kept in the tuning file (tuning.h).
 */
#define _GNU_SOURCE /* strcasestr */
#include "tune/tune.h"
#include "grade/timing_protocol.h"
#include "text/canon.h"
#include "exercise/protocol.h"
#include "exercise/tuning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TUNE_MIN_LAUNCH    0.020 /* seconds: N doubles while the defaults' launch is shorter */
#define TUNE_MAX_N         4096  /* ... up to this */
#define TUNE_MIN_LIMIT     5.0   /* seconds a run may wait, however little of the budget is left */
#define TUNE_SKIP_KINDS    12    /* distinct reasons counted for the combinations not tried */
#define TUNE_CONFIRM_PAIRS 3 /* at the end: the defaults and the best timed again, alternating */
#define TUNE_CONFIRM       (2 * TUNE_CONFIRM_PAIRS) /* ... the trials that takes */

enum trial_state { TRIAL_TIMED, TRIAL_SKIPPED };

/* One candidate tried. */
struct trial {
    struct grader_values values;
    long index;             /* in the grid (-1: not on it) */
    enum trial_state state; /* timed, or skipped (why) */
    struct clu_stats s;     /* seconds per launch at the timed N */
    double cost;            /* wall seconds the trial took */
    int ran;                /* a harness ran: its cost predicts the next trial's */
    char why[260];
};

/* Combinations the launch cannot take, by reason. */
struct skip_kind {
    char why[160];
    int count;
};

struct tune {
    const struct grader_config *cfg;
    const struct grader_tune_request *req;
    struct grader_exercise row; /* the row; perf_n: the timed N */
    char work[PATH_MAX];        /* the canonical texts and the logs */
    char cache[PATH_MAX];       /* POCL's cache for the jailed runs ("": none) */
    double start;               /* on the monotonic clock */
    uint64_t rng;               /* the random order's state */
    uint64_t seeds[GRADER_TIMED_ROUNDS];
    long grid;            /* combinations */
    unsigned char *tried; /* per combination: tried (or not to be) */
    struct trial *trials;
    int count, capacity;
    struct skip_kind kinds[TUNE_SKIP_KINDS];
    int kind_count, not_tried;
    int tty; /* stderr is a terminal: the progress line is rewritten in place */
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double left(const struct tune *t) {
    return t->req->budget - (now() - t->start);
}

/* splitmix64 */
static uint64_t next_random(struct tune *t) {
    uint64_t z = (t->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void duration_text(double seconds, char *buf, size_t size) {
    if (seconds < 1)
        snprintf(buf, size, "less than 1 s");
    else if (seconds < 60)
        snprintf(buf, size, "%.0f s", seconds);
    else
        snprintf(buf, size, "%d min %02d s", (int)seconds / 60, (int)seconds % 60);
}

/* What one more trial is expected to cost: the mean of those that ran a harness. */
static double expected_cost(const struct tune *t) {
    double sum = 0;
    int ran = 0;
    for (int i = 0; i < t->count; i++)
        if (t->trials[i].ran)
            sum += t->trials[i].cost, ran++;
    return ran ? sum / ran : 1.0;
}

static void progress(const struct tune *t, int waiting, const char *values) {
    char time_left[32];
    double seconds = left(t) > 0 ? left(t) : 0;
    duration_text(seconds, time_left, sizeof time_left);
    int can = (int)(seconds / expected_cost(t));
    int more = waiting < can ? waiting : can;
    fprintf(stderr, "%stune %s: %d done, about %d left, %s of the budget left: %s%s",
            t->tty ? "\r\033[K" : "", t->row.id, t->count, more, time_left, values,
            t->tty ? "" : "\n");
    fflush(stderr);
}

static struct trial *new_trial(struct tune *t, const struct grader_values *values) {
    if (t->count == t->capacity) {
        int capacity = t->capacity ? 2 * t->capacity : 32;
        struct trial *more = realloc(t->trials, (size_t)capacity * sizeof *more);
        if (!more)
            return NULL;
        t->trials = more, t->capacity = capacity;
    }
    struct trial *tr = &t->trials[t->count++];
    memset(tr, 0, sizeof *tr);
    tr->values = *values;
    tr->index = grader_grid_index(&t->row, values);
    if (tr->index >= 0)
        t->tried[tr->index] = 1;
    return tr;
}

/* The first line of the log that says "error", for a build failure's reason ("" when none). */
static void first_error(const char *log, char *buf, size_t size) {
    buf[0] = '\0';
    const char *at = log ? strcasestr(log, "error") : NULL;
    if (!at)
        return;
    const char *start = at, *end = strchr(at, '\n');
    while (start > log && start[-1] != '\n')
        start--;
    size_t length = end ? (size_t)(end - start) : strlen(start);
    snprintf(buf, size, "%.*s", (int)(length < 120 ? length : 120), start);
    grader_sanitize_text(buf);
}

/* Why a candidate's run failed, from how its harness ended (its words, not the kernel's), else
 * what the grader saw. */
static void failure(const struct grade_side *s, const char *seen, char *why, size_t size) {
    char detail[160] = "", run[300];
    if (s->ended.how == RUN_EXITED) {
        switch (s->ended.code) {
        case HARNESS_BUILD:
            first_error(s->log_text, detail, sizeof detail);
            snprintf(why, size, "build failure%s%s", detail[0] ? ": " : "", detail);
            return;
        case HARNESS_BAD_DEVICE:
            snprintf(why, size, "work-group too large for the device");
            return;
        case HARNESS_GROUP_LIMIT:
            snprintf(why, size,
                     "work-group too large for the built kernel "
                     "(CL_KERNEL_WORK_GROUP_SIZE)");
            return;
        case HARNESS_LOCAL_LIMIT:
            snprintf(why, size, "local memory too large for the device (CL_KERNEL_LOCAL_MEM_SIZE)");
            return;
        case HARNESS_NO_KERNEL:
        case HARNESS_BAD_ARGS:
            snprintf(why, size, "the kernel is not the exercise's (its name or parameters)");
            return;
        default:
            break;
        }
    }
    if (strncmp(seen, "round ", 6) == 0) {
        snprintf(why, size, "wrong result, %.200s", seen);
        return;
    }
    grader_describe_run(&s->ended, run, sizeof run);
    snprintf(why, size, "%.120s (the harness %.100s)", seen, run);
}

/* Time row's kernel text in a jailed serving harness at row->perf_n into tr. */
static void time_trial(struct tune *t, const struct grader_exercise *row, const char *kernel,
                       struct trial *tr) {
    struct grader_config own = *t->cfg;
    double limit = left(t) / 3;
    own.timeout = limit < TUNE_MIN_LIMIT ? TUNE_MIN_LIMIT
                  : limit > own.timeout  ? own.timeout
                                         : limit;
    own.jail.kernel_cache = t->cache[0] ? t->cache : NULL;
    struct grader_jail jail;
    if (grader_jail_open(own.self, kernel, &jail) != 0) {
        tr->state = TRIAL_SKIPPED;
        snprintf(tr->why, sizeof tr->why, "the grader cannot prepare its folder in /tmp");
        return;
    }
    struct grade_side s = {.who = "the candidate"};
    snprintf(s.dir, sizeof s.dir, "%s", jail.dir);
    snprintf(s.log, sizeof s.log, "%s/trial-%d.log", t->work, t->count);
    tr->ran = 1;
    s.child =
        grade_timing_start(&own, row, jail.self, jail.kernel, row->perf_n, jail.dir, 1, 0, s.log);
    char reply[64], seen[600] = "";
    if (!s.child || grader_child_ask(s.child, NULL, reply, sizeof reply, 3 * own.timeout) != 0 ||
        strcmp(reply, SERVE_READY) != 0)
        snprintf(seen, sizeof seen, "its timing run did not start");
    if (!seen[0])
        grade_timing_calibrate(&own, row, &s, t->seeds[0], seen, sizeof seen);
    for (int r = 0; r < GRADER_TIMED_ROUNDS && !seen[0]; r++) {
        if (grade_timing_round(&own, &s, r, t->seeds[r], seen, sizeof seen) != 0)
            break;
        grade_timing_checked(&own, row, &s, r, t->seeds[r], -1, 0, seen, sizeof seen);
    }
    grade_timing_end(&own, &s);
    if (seen[0]) {
        tr->state = TRIAL_SKIPPED;
        failure(&s, seen, tr->why, sizeof tr->why);
    } else {
        tr->state = TRIAL_TIMED;
        tr->s = clu_stats_of(s.timed.seconds, GRADER_TIMED_ROUNDS);
    }
    free(s.log_text);
    grader_jail_dir_remove(jail.dir);
}

/* Try values at the timed N: the launch's geometry, the kernel's text at them, then the timing. */
static void run_values(struct tune *t, const struct grader_values *values, struct trial *tr) {
    double started = now();
    struct grader_exercise row = t->row;
    memcpy(row.tuning, values->v, sizeof row.tuning);
    char why[200], text[PATH_MAX + 32], refusal[400] = "";
    struct grader_variant variant = grader_values_variant(values);
    snprintf(text, sizeof text, "%s/trial-%d.cl", t->work, t->count);
    if (!grader_values_fit(&row, values, row.perf_n, t->req->max_group, why, sizeof why)) {
        tr->state = TRIAL_SKIPPED;
        snprintf(tr->why, sizeof tr->why, "%s", why);
    } else if (grader_canonicalise(&t->cfg->jail, &t->cfg->sandbox, t->req->kernel, text, &variant,
                                   refusal, sizeof refusal) != 0) {
        tr->state = TRIAL_SKIPPED; /* an #error of the kernel's own rules, mostly: said alone */
        char *rule = strstr(refusal, "\"#error"), *end;
        rule = rule ? rule + 1 : NULL;            /* the student's #error line, quoted */
        end = rule ? strstr(rule, "\"; ") : NULL; /* it ends before the next error, or last */
        if (rule && !end)
            end = strrchr(rule, '"');
        if (end)
            *end = '\0';
        snprintf(tr->why, sizeof tr->why, "build failure: %.200s", rule ? rule : refusal);
    } else {
        time_trial(t, &row, text, tr);
    }
    unlink(text);
    tr->cost = now() - started;
}

static struct trial *try_values(struct tune *t, const struct grader_values *values) {
    struct trial *tr = new_trial(t, values);
    if (tr)
        run_values(t, values, tr);
    return tr;
}

/* The defaults at the row's timed size, doubled while a launch lasts under TUNE_MIN_LAUNCH. */
static struct trial *try_defaults(struct tune *t) {
    struct grader_values defaults = grader_values_default(&t->row);
    struct trial *tr = NULL;
    for (;;) {
        char text[400];
        grader_values_text(&defaults, text, sizeof text);
        progress(t, 1, text);
        tr = try_values(t, &defaults);
        int next = 2 * t->row.perf_n;
        char why[200];
        if (!tr || tr->state != TRIAL_TIMED || tr->s.median >= TUNE_MIN_LAUNCH ||
            t->row.perf_fixed || next > TUNE_MAX_N ||
            !grader_values_fit(&t->row, &defaults, next, 0, why, sizeof why))
            return tr;
        if (t->tty)
            fprintf(stderr, "\r\033[K");
        printf("N = %d: a launch of the defaults lasts %.2f ms, under %.0f ms: N = %d\n",
               t->row.perf_n, tr->s.median * 1e3, TUNE_MIN_LAUNCH * 1e3, next);
        t->row.perf_n = next;
        t->count--; /* timed again at the larger N */
    }
}

/* Count one combination the launch cannot take, by its reason. */
static void not_tried(struct tune *t, const char *why) {
    t->not_tried++;
    for (int k = 0; k < t->kind_count; k++)
        if (strcmp(t->kinds[k].why, why) == 0) {
            t->kinds[k].count++;
            return;
        }
    if (t->kind_count < TUNE_SKIP_KINDS) {
        snprintf(t->kinds[t->kind_count].why, sizeof t->kinds[0].why, "%.150s", why);
        t->kinds[t->kind_count++].count = 1;
    }
}

static int better(const struct trial *a, const struct trial *b) {
    return a->state == TRIAL_TIMED && (!b || b->state != TRIAL_TIMED || a->s.median < b->s.median);
}

static const struct trial *best_of(const struct tune *t) {
    const struct trial *best = NULL;
    for (int i = 0; i < t->count; i++)
        if (better(&t->trials[i], best))
            best = &t->trials[i];
    return best;
}

/* The grid after the defaults: the combinations the launch can take into a random order, then
 * tried while the budget lasts (see the top of the file). */
static void search(struct tune *t) {
    long *pool = malloc((size_t)t->grid * sizeof *pool), *queue = malloc(64 * sizeof *queue);
    long pool_count = 0, queue_count = 0, next = 0, sampled = 0, seeded_for = -2;
    if (!pool || !queue) {
        free(pool);
        free(queue);
        return;
    }
    for (long i = 0; i < t->grid; i++) {
        char why[200];
        struct grader_values values = grader_grid_point(&t->row, i);
        if (t->tried[i])
            continue;
        if (grader_values_fit(&t->row, &values, t->row.perf_n, t->req->max_group, why, sizeof why))
            pool[pool_count++] = i;
        else
            not_tried(t, why), t->tried[i] = 1;
    }
    for (long i = pool_count - 1; i > 0; i--) { /* Fisher-Yates */
        long j = (long)(next_random(t) % (uint64_t)(i + 1)), swap = pool[i];
        pool[i] = pool[j], pool[j] = swap;
    }
    long slots = (long)(left(t) / expected_cost(t));
    long sample = pool_count <= slots ? pool_count : (slots / 2 > 0 ? slots / 2 : 1);
    for (;;) {
        const struct trial *best = best_of(t);
        if (sampled >= sample && best && best->index != seeded_for) {
            /* the neighbours of a new best, in place of the last one's */
            seeded_for = best->index;
            queue_count = 0;
            int lists = 0;
            while (lists < CLU_MAX_DEFINES && t->row.candidates[lists].name)
                lists++;
            for (int c = 0; c < lists; c++)
                for (int step = -1; step <= 1; step += 2) {
                    long n = grader_grid_neighbour(&t->row, best->index, c, step);
                    if (n >= 0 && !t->tried[n] && queue_count < 64)
                        queue[queue_count++] = n;
                }
        }
        long index = -1;
        int sampling = sampled < sample && next < pool_count;
        if (sampling)
            index = pool[next++], sampled++;
        else if (queue_count > 0)
            index = queue[--queue_count];
        else if (next < pool_count)
            index = pool[next++];
        else
            break;
        if (t->tried[index])
            continue;
        if (left(t) < (1 + TUNE_CONFIRM) * expected_cost(t)) /* the confirmation's time kept */
            break;
        struct grader_values values = grader_grid_point(&t->row, index);
        char text[400];
        grader_values_text(&values, text, sizeof text);
        long waiting = queue_count + pool_count - next + 1;
        progress(t, (int)(waiting < 100000 ? waiting : 100000), text);
        struct trial *tr = try_values(t, &values);
        if (!tr)
            break;
        sampled -= sampling && !tr->ran; /* refused before a run: it sampled nothing */
    }
    free(pool);
    free(queue);
}

static int by_speed(const void *a, const void *b) {
    const struct trial *x = a, *y = b;
    if (x->state != y->state)
        return x->state == TRIAL_TIMED ? -1 : 1;
    if (x->state == TRIAL_TIMED && x->s.median != y->s.median)
        return x->s.median < y->s.median ? -1 : 1;
    return 0;
}

/* The fastest of many single measurements is flattered by their noise (more so on a shared
 * machine, where a sequential "the defaults, then the best" also hands each side a different
 * load): the defaults and the best are timed again in TUNE_CONFIRM_PAIRS alternating pairs
 * (A B A B ...), and the median of the pairs' own ratios decides, as the grader's rounds do.
 * again[0] and again[1] get each side's fastest median; 1 when every pair was timed, and then
 * *ratio is the best's time over the defaults' (under 1: the best is faster). */
static int confirm(struct tune *t, const struct trial *base, const struct trial *best,
                   struct trial again[2], double *ratio) {
    const struct trial *which[2] = {base, best};
    double ratios[TUNE_CONFIRM_PAIRS];
    int pairs = 0;
    for (int i = 0; i < 2; i++) {
        memset(&again[i], 0, sizeof again[i]);
        again[i].state = TRIAL_SKIPPED; /* (until a pair times it: TRIAL_TIMED is 0) */
        again[i].values = which[i]->values;
    }
    for (int p = 0; p < TUNE_CONFIRM_PAIRS; p++) {
        struct trial pair[2];
        int timed = 1;
        for (int i = 0; i < 2; i++) {
            char text[400];
            memset(&pair[i], 0, sizeof pair[i]);
            pair[i].values = which[i]->values;
            grader_values_text(&pair[i].values, text, sizeof text);
            progress(t, 2 * (TUNE_CONFIRM_PAIRS - p) - i, text);
            run_values(t, &pair[i].values, &pair[i]);
            timed &= pair[i].state == TRIAL_TIMED;
        }
        if (!timed)
            break;
        ratios[pairs++] = pair[1].s.median / pair[0].s.median;
        for (int i = 0; i < 2; i++)
            if (again[i].state != TRIAL_TIMED || pair[i].s.median < again[i].s.median)
                again[i] = pair[i];
    }
    if (t->tty)
        fprintf(stderr, "\r\033[K");
    if (pairs < TUNE_CONFIRM_PAIRS)
        return 0;
    *ratio = clu_stats_of(ratios, pairs).median;
    printf("timed again in %d alternating pairs: the defaults %.3f ms, the best %.3f ms (each "
           "side's fastest), the best at %.2fx the defaults' time (the median of the pairs' own "
           "ratios)%s\n",
           pairs, again[0].s.median * 1e3, again[1].s.median * 1e3, *ratio,
           *ratio < 1.0 ? "" : ": the defaults are kept");
    return 1;
}

/* The table, fastest first, then the skipped in the order tried; and the best. */
static void report(struct tune *t, const struct grader_values *defaults) {
    double flops = grader_flops(&t->row, grader_square(t->row.perf_n));
    int width = 6;
    char text[400];
    for (int i = 0; i < t->count; i++) {
        grader_values_text(&t->trials[i].values, text, sizeof text);
        int length =
            (int)strlen(text) + (grader_values_equal(&t->trials[i].values, defaults) ? 11 : 0);
        width = length > width ? length : width;
    }
    /* a stable sort: qsort is not, so the order tried is kept through the index */
    struct trial *sorted = malloc((size_t)(t->count ? t->count : 1) * sizeof *sorted);
    if (!sorted)
        return;
    memcpy(sorted, t->trials, (size_t)t->count * sizeof *sorted);
    for (int i = 1; i < t->count; i++) /* insertion sort: stable, and a few hundred at most */
        for (int j = i; j > 0 && by_speed(&sorted[j], &sorted[j - 1]) < 0; j--) {
            struct trial swap = sorted[j];
            sorted[j] = sorted[j - 1], sorted[j - 1] = swap;
        }
    printf("\n%-*s  %10s  %9s\n", width, "values", "median ms", "GFLOP/s");
    for (int i = 0; i < t->count; i++) {
        const struct trial *tr = &sorted[i];
        grader_values_text(&tr->values, text, sizeof text);
        if (grader_values_equal(&tr->values, defaults))
            strncat(text, " (defaults)", sizeof text - strlen(text) - 1);
        if (tr->state == TRIAL_TIMED)
            printf("%-*s  %10.3f  %9.2f\n", width, text, tr->s.median * 1e3,
                   flops / tr->s.median * 1e-9);
        else
            printf("%-*s  skipped: %s\n", width, text, tr->why);
    }
    free(sorted);
    if (t->not_tried) {
        printf("not tried, the launch cannot take them: %d combination%s\n", t->not_tried,
               t->not_tried == 1 ? "" : "s");
        for (int k = 0; k < t->kind_count; k++)
            printf("  %d: %s\n", t->kinds[k].count, t->kinds[k].why);
    }
    char took[32];
    duration_text(now() - t->start, took, sizeof took);
    printf("%d of %ld combinations tried in %s (budget %.0f s)\n", t->count, t->grid, took,
           t->req->budget);
}

int grader_tune(const struct grader_config *cfg, const struct grader_tune_request *req) {
    struct tune t = {.cfg = cfg,
                     .req = req,
                     .row = *req->ex,
                     .start = now(),
                     .rng = req->seed,
                     .tty = isatty(2)};
    t.grid = grader_grid_size(&t.row);
    t.tried = calloc((size_t)(t.grid > 0 ? t.grid : 1), 1);
    if (!t.tried)
        return 1;
    for (int r = 0; r < GRADER_TIMED_ROUNDS; r++)
        t.seeds[r] = grader_derive_seed(req->seed, "tune round", r);
    snprintf(t.work, sizeof t.work, "%s/tune-%s", cfg->work, t.row.id);
    grader_remove_tree(t.work);
    grader_make_dirs(t.work);
    if (grader_jail_dir_make(t.cache, sizeof t.cache) != 0 ||
        (grader_jail_uid() != (uid_t)-1 &&
         chown(t.cache, grader_jail_uid(), grader_jail_uid()) != 0))
        t.cache[0] = '\0';
    printf("make tune: %s, %s (%s), on %s; budget %.0f s, seed %llu\n", t.row.id,
           req->side == TUNING_REFERENCE ? "the reference solution" : "the submission's kernel",
           req->kernel, req->device, req->budget, (unsigned long long)req->seed);
    fflush(stdout);
    struct grader_values defaults = grader_values_default(&t.row);
    const struct trial *first = try_defaults(&t);
    if (first)
        search(&t);
    if (t.tty)
        fprintf(stderr, "\r\033[K");
    printf("N = %d, %d timed launches each on the grader's clock, every result checked "
           "(Freivalds' test)\n",
           t.row.perf_n, GRADER_TIMED_ROUNDS);
    report(&t, &defaults);
    const struct trial *best = best_of(&t), *base = NULL;
    for (int i = 0; i < t.count; i++)
        if (grader_values_equal(&t.trials[i].values, &defaults) && t.trials[i].state == TRIAL_TIMED)
            base = &t.trials[i];
    struct trial again[2]; /* the defaults and the best, timed again in alternating pairs */
    double ratio = 1.0;
    int confirmed = 0;
    if (best && base && best != base && confirm(&t, base, best, again, &ratio)) {
        confirmed = 1;
        base = &again[0];
        best = ratio < 1.0 ? &again[1] : &again[0];
    }
    int status = 1;
    double flops = grader_flops(&t.row, grader_square(t.row.perf_n));
    if (!best) {
        printf("nothing could be timed: %s is left as it was\n", req->tuning_file);
    } else {
        char text[400], comment[200], date[32], why[300], against[80] = "";
        time_t when = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%d", gmtime(&when));
        grader_values_text(&best->values, text, sizeof text);
        if (base)
            snprintf(against, sizeof against, " (defaults %.2f)", flops / base->s.median * 1e-9);
        snprintf(comment, sizeof comment, "%.2f GFLOP/s at N = %d%s, %s",
                 flops / best->s.median * 1e-9, t.row.perf_n, against, date);
        printf("best: %s, %.2f GFLOP/s at N = %d", text, flops / best->s.median * 1e-9,
               t.row.perf_n);
        if (base) /* the pairs' ratio where they were timed: the figure that decided */
            printf(", %.2fx the defaults' %.2f GFLOP/s",
                   confirmed && best != base ? 1.0 / ratio : base->s.median / best->s.median,
                   flops / base->s.median * 1e-9);
        printf("\n");
        if (grader_tuning_write(req->tuning_file, t.row.id, req->side, &best->values, comment, why,
                                sizeof why) != 0) {
            printf("not kept: %s\n", why);
        } else {
            printf("kept in %s: %s %s %s  # %s\n", req->tuning_file, t.row.id,
                   grader_tuning_side_name(req->side), text, comment);
            status = 0;
        }
    }
    if (t.cache[0])
        grader_jail_dir_remove(t.cache);
    free(t.tried);
    free(t.trials);
    return status;
}
