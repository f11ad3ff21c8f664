/* test_bench.c - unit tests (cmocka) of the pure parts of `grader --bench`: how long
 * bench_repeat runs (against bench_repeat itself, with runs that never settle), the rule that
 * times a slow row at a smaller N (the largest that fits the budget, also when runs carry a fixed
 * cost the N^3 prediction does not know of), the scaling of its times (the GFLOP/s kept), the
 * estimate of the time left and its words, and the data file of the GFLOP/s per step plot, read
 * back from random bench.csv files (and from one written before the step column).
 *
 * Sizes, times and tables are drawn from a seed chosen at run time and printed at the start and
 * in every failure; set TEST_BENCH_SEED=<seed> to repeat a run. Expected values are computed here
 * in ways of their own (sums, scans), not by calling the code under test again.
 */
#define _DEFAULT_SOURCE /* mkdtemp; not _GNU_SOURCE, whose limits.h has a CHAR_WIDTH of its own */
#include "grader.h"
#include "bench/csv.h"
#include "bench/measure.h"
#include "bench/plot.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "testkit.h"

static char g_tmp[64];

static int group_setup(void **state) {
    (void)state;
    return testkit_start("test_bench", "TEST_BENCH_SEED", g_tmp, sizeof g_tmp);
}

static int group_teardown(void **state) {
    (void)state;
    grader_remove_tree(g_tmp);
    return 0;
}

/* Uniform in [lo, hi). */
static double rng_real(struct rng *r, double lo, double hi) {
    return lo + (hi - lo) * (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

/* Log-uniform in [lo, hi): times and speeds spread over decades. */
static double rng_log(struct rng *r, double lo, double hi) {
    return exp(rng_real(r, log(lo), log(hi)));
}

/* ---------------------------------------------------------------- bench_repeat_cost */

/* A run of t seconds, 3% off either way in turn: a spread that never settles below 5%. */
struct fake_run {
    double t, total;
    long calls;
};

static int fake_run(void *ctx, double *seconds) {
    struct fake_run *f = ctx;
    *seconds = f->t * (f->calls++ % 2 ? 1.03 : 0.97);
    f->total += *seconds;
    return 0;
}

static void test_repeat_cost_bounds_bench_repeat(void **state) {
    (void)state;
    struct rng r = rng_for("repeat_cost");
    for (int i = 0; i < 150; i++) {
        double t = rng_log(&r, 1e-6, 40);
        int warmup = (int)rng_range(&r, 0, 3);
        struct fake_run f = {t, 0, 0};
        struct clu_stats stats;
        CHECK(bench_repeat(fake_run, &f, warmup, &stats) == 0, "bench_repeat failed");
        /* at most the cost of its longest run; less by no more than a few runs (each bound
         * allows one run past it, and 50 runs 3% short) */
        double over = bench_repeat_cost(1.03 * t, warmup), near = bench_repeat_cost(t, warmup);
        CHECK(f.total <= over * (1 + 1e-12) && f.total >= near - 3 * t,
              "runs of %g s, %d warm-up: bench_repeat took %g s in %ld runs; the cost says %g s "
              "(%g s for runs of 1.03 t)",
              t, warmup, f.total, f.calls, near, over);
        /* runs so long that the fewest repeats pass BENCH_MAX_TIMED, even after a run shorter
         * than predicted, cost exactly those */
        if (t >= BENCH_MAX_TIMED / (BENCH_MIN_REPEATS - 1))
            CHECK(fabs(near - (warmup + BENCH_MIN_REPEATS) * t) <= 1e-9 * near,
                  "runs of %g s: the fewest repeats, %g s expected, %g s said", t,
                  (warmup + BENCH_MIN_REPEATS) * t, near);
        /* and it never falls as runs lengthen */
        double t2 = t * rng_real(&r, 1, 3);
        CHECK(bench_repeat_cost(t2, warmup) >= near, "runs of %g s cost %g, of %g s %g", t, near,
              t2, bench_repeat_cost(t2, warmup));
    }
    CHECK(bench_repeat_cost(0, 2) == 0 && bench_repeat_cost(-1, 2) == 0, "no time, no cost");
}

/* ---------------------------------------------------------------- bench_plan_size */

/* The cost of timing at m, predicted from a probe of probe_s seconds at p. */
static double predicted(int m, int p, double probe_s, int warmup) {
    double ratio = (double)m / p;
    return bench_repeat_cost(probe_s * ratio * ratio * ratio, warmup);
}

static void test_plan_size_is_the_largest_that_fits(void **state) {
    (void)state;
    struct rng r = rng_for("plan_size");
    static const int steps[] = {16, 32, 48, 64, 128};
    for (int i = 0; i < 400; i++) {
        int step = steps[rng_range(&r, 0, 4)];
        int p = (int)rng_range(&r, 1, 512 / step) * step;
        int n = (int)rng_range(&r, p + 1, 16384);
        int smallest = (int)rng_range(&r, 1, p / step) * step;
        int warmup = (int)rng_range(&r, 0, 2);
        double budget = rng_real(&r, 5, 80), probe_s = rng_log(&r, 1e-5, 10);
        int m = bench_plan_size(n, p, probe_s, warmup, budget, step, smallest);
        int fits_n = predicted(n, p, probe_s, warmup) <= budget;
        CHECK((m == n) == fits_n, "N %d, probe %g s at %d, budget %g: %d (N %s)", n, probe_s, p,
              budget, m, fits_n ? "fits" : "does not fit");
        if (m == n)
            continue;
        /* every multiple of step from m (exclusive) up to n (exclusive) is over the budget */
        int first_over = m ? m + step : smallest;
        for (int c = (first_over + step - 1) / step * step; c < n; c += step)
            CHECK(predicted(c, p, probe_s, warmup) > budget,
                  "N %d, step %d: %d fits (%g s <= %g) but %d was chosen", n, step, c,
                  predicted(c, p, probe_s, warmup), budget, m);
        if (m) {
            CHECK(m % step == 0 && m >= smallest && m < n, "N %d, step %d, smallest %d: %d", n,
                  step, smallest, m);
            CHECK(predicted(m, p, probe_s, warmup) <= budget, "%d over the budget %g: %g", m,
                  budget, predicted(m, p, probe_s, warmup));
        }
    }
    CHECK(bench_plan_size(4096, 256, 100, 1, 0, 64, 256) == 4096, "budget 0 is no limit");
}

/* A row whose runs take fixed + a m^3 seconds: probed at p, timed at the size chosen, whose
 * whole timing then truly fits the budget (the N^3 prediction from p overstates a fixed cost),
 * and whose scaled times give the GFLOP/s measured there. */
static void test_scaled_row_fits_and_keeps_its_gflops(void **state) {
    (void)state;
    struct rng r = rng_for("scaled_row");
    for (int i = 0; i < 300; i++) {
        double a = rng_log(&r, 1e-13, 1e-8), fixed = rng_log(&r, 1e-6, 0.05);
        double budget = rng_real(&r, 10, 60);
        int warmup = (int)rng_range(&r, 1, 2), step = 64, p = 256;
        int n = (int)rng_range(&r, 300, 16384);
        double probe_s = fixed + a * p * p * (double)p;
        int m = bench_plan_size(n, p, probe_s, warmup, budget, step, p);
        if (m == 0 || m == n)
            continue;
        double run = fixed + a * m * m * (double)m;
        CHECK(bench_repeat_cost(run, warmup) <= budget * (1 + 1e-12),
              "timed at %d of %d: runs of %g s cost %g s, over the budget %g", m, n, run,
              bench_repeat_cost(run, warmup), budget);
        struct clu_stats s = {run * 0.97, run, run * 1.05, 7};
        bench_scale_stats(&s, n, m);
        double at_m = 2.0 * m * m * (double)m / run, at_n = 2.0 * n * n * (double)n / s.median;
        CHECK(fabs(at_n - at_m) <= 1e-9 * at_m, "GFLOP/s at %d %g, scaled to %d %g", m, at_m, n,
              at_n);
        CHECK(s.min <= s.median && s.median <= s.max && s.count == 7, "order or count lost");
    }
    struct clu_stats same = {1, 2, 3, 4};
    bench_scale_stats(&same, 1024, 1024);
    bench_scale_stats(&same, 1024, 0);
    CHECK(same.min == 1 && same.median == 2 && same.max == 3, "timed at N: unchanged");
}

/* ---------------------------------------------------------------- the time left */

/* The estimate computed another way: for each step left, a scan for the nearest size done. */
static double expected_eta(const int *dn, const double *ds, int done, const int *ln, int left,
                           double cap) {
    double total = 0;
    for (int i = 0; i < left; i++) {
        double same = 0;
        int same_count = 0;
        for (int j = 0; j < done; j++)
            if (dn[j] == ln[i]) {
                same += ds[j];
                same_count++;
            }
        if (same_count) {
            total += same / same_count;
            continue;
        }
        if (ln[i] == 0)
            return -1;
        int best = -1;
        for (int j = 0; j < done; j++) {
            if (dn[j] <= 0)
                continue;
            long d = labs((long)dn[j] - ln[i]), bd = best < 0 ? 0 : labs((long)best - ln[i]);
            if (best < 0 || d < bd || (d == bd && dn[j] > best))
                best = dn[j];
        }
        if (best < 0)
            return -1;
        double sum = 0;
        int count = 0;
        for (int j = 0; j < done; j++)
            if (dn[j] == best) {
                sum += ds[j];
                count++;
            }
        double scaled = sum / count * pow((double)ln[i] / best, 3);
        total += scaled < cap ? scaled : cap;
    }
    return total;
}

static void test_eta(void **state) {
    (void)state;
    struct rng r = rng_for("eta");
    static const int sizes[] = {0, 128, 256, 384, 512, 1000, 1024, 2048, 4096};
    for (int i = 0; i < 400; i++) {
        int done = (int)rng_range(&r, 0, 12), left = (int)rng_range(&r, 0, 12);
        int dn[12], ln[12];
        double ds[12], cap = rng_real(&r, 5, 100);
        for (int j = 0; j < done; j++) {
            dn[j] = sizes[rng_range(&r, 0, 8)];
            ds[j] = rng_log(&r, 0.001, 300);
        }
        for (int j = 0; j < left; j++)
            ln[j] = sizes[rng_range(&r, 0, 8)];
        double want = expected_eta(dn, ds, done, ln, left, cap);
        double got = bench_eta(dn, ds, done, ln, left, cap);
        CHECK((want < 0 && got < 0) || fabs(got - want) <= 1e-9 * (1 + want),
              "%d done, %d left, cap %g: %g expected, %g said", done, left, cap, want, got);
    }
    /* by hand: two rows done at 256 (1 s, 3 s), the peak (0) in 5 s */
    int dn[] = {256, 0, 256}, ln[] = {256, 512, 0, 64};
    double ds[] = {1, 5, 3};
    CHECK(fabs(bench_eta(dn, ds, 3, ln, 1, 100) - 2) < 1e-12, "mean at the same N");
    CHECK(fabs(bench_eta(dn, ds, 3, ln + 1, 1, 100) - 16) < 1e-12, "2 s x 8 at twice N");
    CHECK(fabs(bench_eta(dn, ds, 3, ln + 1, 1, 10) - 10) < 1e-12, "at most the cap");
    CHECK(fabs(bench_eta(dn, ds, 3, ln + 2, 1, 100) - 5) < 1e-12, "the peak by the peak");
    CHECK(fabs(bench_eta(dn, ds, 3, ln + 3, 1, 100) - 2.0 / 64) < 1e-12, "down by N^3 too");
    CHECK(bench_eta(dn, ds, 0, ln, 2, 100) < 0, "nothing done: not known");
    CHECK(bench_eta(dn + 1, ds + 1, 1, ln, 1, 100) < 0, "only the peak done: rows not known");
}

/* Seconds back from bench_duration_text's words, or -1 when they are none of its forms. */
static double parse_duration(const char *text, double *unit) {
    long a, b;
    char tail[8];
    *unit = 1;
    if (strcmp(text, "less than 1 s") == 0)
        return 0;
    if (sscanf(text, "%ld h %ld min%7s", &a, &b, tail) == 2 && b < 60 &&
        strlen(strstr(text, "h ") + 2) == 6) {
        *unit = 60;
        return a * 3600.0 + b * 60.0;
    }
    if (sscanf(text, "%ld min %ld s%7s", &a, &b, tail) == 2 && b < 60 && a < 60 &&
        strlen(strstr(text, "min ") + 4) == 4)
        return a * 60.0 + b;
    if (sscanf(text, "%ld s%7s", &a, tail) == 1 && a < 60 && strchr(text, ' ') &&
        strcmp(strchr(text, ' '), " s") == 0)
        return (double)a;
    return -1;
}

static void test_duration_and_progress_text(void **state) {
    (void)state;
    struct rng r = rng_for("duration");
    for (int i = 0; i < 2000; i++) {
        double s = i % 4 == 0 ? rng_real(&r, 0, 2) : rng_log(&r, 0.01, 400000);
        char text[64], line[600], what[80];
        bench_duration_text(text, sizeof text, s);
        double unit, back = parse_duration(text, &unit);
        CHECK(back >= 0, "%g s as \"%s\"", s, text);
        CHECK(s < 0.5 ? back == 0 : fabs(back - s) <= unit / 2 + 1e-9, "%g s as \"%s\" (%g)", s,
              text, back);
        /* the progress line around it */
        int total = (int)rng_range(&r, 1, 400), step = (int)rng_range(&r, 1, total);
        double eta = rng_range(&r, 0, 3) == 0 ? -1 : s;
        snprintf(what, sizeof what, "N = %ld, device %ld: case %lx", rng_range(&r, 16, 16384),
                 rng_range(&r, 1, 8), (unsigned long)rng_next(&r));
        bench_progress_text(line, sizeof line, step, total, eta, what);
        char head[80], left[80], said[600];
        snprintf(head, sizeof head, "row %d of %d, ", step, total);
        if (step == total)
            snprintf(left, sizeof left, "the last one, ");
        else
            snprintf(left, sizeof left, "%d after it, ", total - step);
        if (eta < 0)
            snprintf(said, sizeof said, "%s%stime left not known yet: %s", head, left, what);
        else
            snprintf(said, sizeof said, "%s%s%s%s left: %s", head, left, s < 0.5 ? "" : "about ",
                     text, what);
        CHECK(strcmp(line, said) == 0, "step %d of %d, eta %g: \"%s\", expected \"%s\"", step,
              total, eta, line, said);
    }
}

/* ---------------------------------------------------------------- the steps plot's data */

#define MAX_IDS     11
#define MAX_DEVICES 3

struct scenario {
    char ids[MAX_IDS][32];
    int id_count;
    char devices[MAX_DEVICES][80];
    int device_count;
    int big_n;                          /* the largest N: the plot's */
    double value[MAX_DEVICES][MAX_IDS]; /* at big_n; 0: not measured */
    int timed[MAX_DEVICES][MAX_IDS];    /* N timed at big_n */
    double vendor[MAX_DEVICES][3];      /* openblas, clblast, cublas at big_n; 0: none */
};

static const char *const vendor_keys[3] = {"vendor:openblas", "vendor:clblast", "vendor:cublas"};
static const char *const vendor_names[3] = {"OpenBLAS sgemm (CPU)", "CLBlast SGEMM",
                                            "cuBLAS SGEMM (FP32, no TF32)"};

static void write_row(FILE *f, const char *kind, const char *name, const char *device, int n,
                      double value, const char *key, int timed_n, const char *step) {
    struct bench_csv_row row = {.kind = kind,
                                .name = name,
                                .device = device,
                                .driver = "driver 1.0, OpenCL 3.0",
                                .n = n,
                                .options = "-DBLOCK=16",
                                .repeats = 3,
                                .min_s = 0.9,
                                .median_s = 1,
                                .max_s = 1.1,
                                .value = value,
                                .unit = "GFLOP/s",
                                .pct_peak = NAN,
                                .flops_per_byte = NAN,
                                .key = key,
                                .timed_n = timed_n,
                                .tuning = "",
                                .step = step};
    bench_csv_write_row(f, &row);
}

/* A random bench.csv: devices, some of the steps 01-11 measured on each at two N (the plot shows
 * the larger), a tiled step with BLOCK variants besides its own, vendor rows, the host's row. */
static void make_scenario(struct rng *r, struct scenario *s, const char *path) {
    memset(s, 0, sizeof *s);
    for (int id = 1; id <= 11; id++)
        if (rng_range(r, 0, 3) > 0 || id == 1)
            snprintf(s->ids[s->id_count++], sizeof s->ids[0], "%02d_step_%c%lx", id, 'a' + id,
                     (unsigned long)rng_range(r, 0, 4095));
    s->device_count = (int)rng_range(r, 1, MAX_DEVICES);
    for (int k = 0; k < s->device_count; k++)
        snprintf(s->devices[k], sizeof s->devices[0], "Device \"%c\", model %lx (Platform %d)",
                 'A' + k, (unsigned long)rng_next(r) % 100000, k);
    int small_n = (int)rng_range(r, 2, 8) * 64;
    s->big_n = small_n * (int)rng_range(r, 2, 8);
    FILE *f = fopen(path, "w");
    bench_csv_write_header(f);
    for (int si = 0; si < 2; si++) {
        int n = si ? s->big_n : small_n;
        for (int k = 0; k < s->device_count; k++) {
            if (k == 0)
                write_row(f, "baseline", "Sequential C (not OpenCL)", s->devices[k], n,
                          rng_log(r, 0.1, 2), "baseline:sequential", n, "");
            for (int x = 0; x < s->id_count; x++) {
                char key[64], name[80];
                int tiled = x == s->id_count / 2;
                if (tiled) { /* the BLOCK sweep's other rows: no step */
                    snprintf(key, sizeof key, "ex:%s@b8", s->ids[x]);
                    write_row(f, "kernel", "tiled, 8x8", s->devices[k], n, rng_log(r, 0.1, 9e3),
                              key, n, "");
                }
                if (rng_range(r, 0, 4) == 0)
                    continue; /* not measured on this device */
                double v = round(rng_log(r, 0.05, 9e4) * 1000) / 1000; /* as bench.csv has it */
                int timed = rng_range(r, 0, 3) == 0 ? (int)rng_range(r, 1, n / 64) * 64 : n;
                snprintf(key, sizeof key, tiled ? "ex:%s@b16" : "ex:%s", s->ids[x]);
                snprintf(name, sizeof name, "Step %s, with a comma", s->ids[x]);
                write_row(f, "kernel", name, s->devices[k], n, v, key, timed, s->ids[x]);
                if (si) {
                    s->value[k][x] = v;
                    s->timed[k][x] = timed;
                }
            }
            for (int v = 0; v < 3; v++) {
                if (rng_range(r, 0, 2) == 0)
                    continue;
                double g = round(rng_log(r, 1, 5e4) * 1000) / 1000;
                write_row(f, "vendor", vendor_names[v], s->devices[k], n, g, vendor_keys[v], n, "");
                if (si)
                    s->vendor[k][v] = g;
            }
        }
    }
    fclose(f);
}

/* bench-steps.dat as blocks: each a header (after "# index B: ") and its lines, a gap as "". */
struct dat_block {
    char header[200];
    char lines[64][200];
    int count;
};

static int read_dat(const char *path, char steps_line[1000], struct dat_block *blocks, int room) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[1000];
    int count = 0, blanks = 0;
    steps_line[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        int index;
        char *colon;
        if (strncmp(line, "# Steps (x): ", 13) == 0) {
            snprintf(steps_line, 1000, "%s", line + 13);
        } else if (sscanf(line, "# index %d:", &index) == 1 && (colon = strchr(line, ':'))) {
            if (count == room || index != count)
                return fclose(f), -1;
            snprintf(blocks[count].header, sizeof blocks[count].header, "%s", colon + 2);
            blocks[count++].count = 0;
            blanks = 0;
        } else if (line[0] == '#') {
            continue;
        } else if (!line[0]) {
            blanks++;
        } else if (count > 0 && blocks[count - 1].count < 62) {
            struct dat_block *b = &blocks[count - 1];
            if (blanks == 1 && b->count > 0)
                b->lines[b->count++][0] = '\0';
            snprintf(b->lines[b->count++], sizeof b->lines[0], "%.150s", line);
            blanks = 0;
        }
    }
    fclose(f);
    return count;
}

static void check_steps_file(const struct scenario *s, const char *dir) {
    char path[PATH_MAX], steps_line[1000], want[1000] = "";
    static struct dat_block blocks[32];
    snprintf(path, sizeof path, "%s/bench-steps.dat", dir);
    int count = read_dat(path, steps_line, blocks, 32);
    CHECK(count > 0, "no blocks in %s", path);
    /* the steps measured at the largest N on some device, in the table's order */
    int x_of[MAX_IDS], xs = 0;
    for (int x = 0; x < s->id_count; x++) {
        int any = 0;
        for (int k = 0; k < s->device_count; k++)
            any |= s->value[k][x] > 0;
        x_of[x] = any ? xs : -1;
        if (any) {
            size_t used = strlen(want);
            snprintf(want + used, sizeof want - used, "%s%d = %s", xs ? "; " : "", xs, s->ids[x]);
            xs++;
        }
    }
    CHECK(strcmp(steps_line, want) == 0, "steps \"%s\", expected \"%s\"", steps_line, want);
    int b = 0, shown[MAX_DEVICES] = {0};
    for (int k = 0; k < s->device_count; k++) {
        for (int x = 0; x < s->id_count; x++)
            shown[k] |= s->value[k][x] > 0;
        if (!shown[k])
            continue;
        CHECK(b < count && strcmp(blocks[b].header, s->devices[k]) == 0,
              "block %d: \"%s\", expected device \"%s\"", b, b < count ? blocks[b].header : "",
              s->devices[k]);
        int line = 0, last_x = -1;
        for (int x = 0; x < s->id_count; x++) {
            if (!(s->value[k][x] > 0))
                continue;
            if (last_x >= 0 && x_of[x] != last_x + 1) { /* a step between: the line breaks */
                CHECK(line < blocks[b].count && blocks[b].lines[line][0] == '\0',
                      "device %d: no gap before step %s", k, s->ids[x]);
                line++;
            }
            int gx, gt;
            double gv;
            CHECK(line < blocks[b].count &&
                      sscanf(blocks[b].lines[line], "%d %lf %d", &gx, &gv, &gt) == 3,
                  "device %d: line %d \"%s\" for step %s", k, line,
                  line < blocks[b].count ? blocks[b].lines[line] : "(none)", s->ids[x]);
            CHECK(gx == x_of[x] && fabs(gv - s->value[k][x]) <= 1e-5 * s->value[k][x] &&
                      gt == s->timed[k][x],
                  "device %d step %s: \"%s\", expected x %d, %g GFLOP/s, timed at %d", k, s->ids[x],
                  blocks[b].lines[line], x_of[x], s->value[k][x], s->timed[k][x]);
            line++;
            last_x = x_of[x];
        }
        CHECK(line == blocks[b].count, "device %d: %d lines, %d expected", k, blocks[b].count,
              line);
        b++;
    }
    /* then the vendor lines of the devices shown, across the plot */
    int vendors = 0;
    for (int k = 0; k < s->device_count; k++)
        for (int v = 0; v < 3; v++) {
            if (!shown[k] || !(s->vendor[k][v] > 0))
                continue;
            vendors++;
            char header[200];
            snprintf(header, sizeof header, "%s on %s", vendor_names[v], s->devices[k]);
            int found = 0;
            for (int j = b; j < count; j++) {
                double x0, v0, x1, v1;
                if (strcmp(blocks[j].header, header) != 0)
                    continue;
                found = blocks[j].count == 2 &&
                        sscanf(blocks[j].lines[0], "%lf %lf", &x0, &v0) == 2 &&
                        sscanf(blocks[j].lines[1], "%lf %lf", &x1, &v1) == 2 && x0 == -0.5 &&
                        x1 > xs - 0.5 && fabs(v0 - s->vendor[k][v]) <= 1e-5 * v0 && v1 == v0;
            }
            CHECK(found, "no line \"%s\" at %g", header, s->vendor[k][v]);
        }
    CHECK(count == b + vendors, "%d blocks, %d expected", count, b + vendors);
}

static void test_steps_plot_data(void **state) {
    (void)state;
    struct rng r = rng_for("steps");
    for (int i = 0; i < 60; i++) {
        static struct scenario s;
        char csv[PATH_MAX], dir[200], why[300] = "";
        snprintf(csv, sizeof csv, "%s/bench-%d.csv", g_tmp, i);
        snprintf(dir, sizeof dir, "%s/steps-%d", g_tmp, i);
        CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
        make_scenario(&r, &s, csv);
        struct plot_data d;
        CHECK(plot_read(csv, &d, why, sizeof why) == 0, "%s: %s", csv, why);
        CHECK(d.max_n == s.big_n, "largest N %d, expected %d", d.max_n, s.big_n);
        int any = 0;
        for (int k = 0; k < s.device_count; k++)
            for (int x = 0; x < s.id_count; x++)
                any |= s.value[k][x] > 0;
        int status = plot_steps(&d, dir, why, sizeof why);
        CHECK(status == any, "plot_steps %d (%s), %d expected", status, why, any);
        if (any)
            check_steps_file(&s, dir);
        plot_free(&d);
    }
}

/* A bench.csv from before the step column: its steps by key, 05 at BLOCK 16 only. */
static void test_steps_of_an_older_csv(void **state) {
    (void)state;
    char csv[PATH_MAX], dir[200], why[300] = "", steps_line[1000];
    static struct dat_block blocks[8];
    snprintf(csv, sizeof csv, "%s/old.csv", g_tmp);
    snprintf(dir, sizeof dir, "%s/old", g_tmp);
    CHECK(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    FILE *f = fopen(csv, "w");
    fputs("kind,case,device,driver,n,options,repeats,min_s,median_s,max_s,value,unit,pct_peak,"
          "flops_per_byte,key\n"
          "baseline,Seq,GPU,d,1024,,3,1,1,1,0.5,GFLOP/s,,,baseline:sequential\n"
          "kernel,\"C(i,j) per work-item\",GPU,d,1024,,3,1,1,1,400,GFLOP/s,,2,ex:01_per_element\n"
          "kernel,\"Blocked, 8x8\",GPU,d,1024,,3,1,1,1,2700,GFLOP/s,,4,ex:05_blocked_16x16@b8\n"
          "kernel,\"Blocked, 16x16\",GPU,d,1024,,3,1,1,1,1300,GFLOP/s,,8,ex:05_blocked_16x16@b16\n"
          "vendor,CLBlast SGEMM,GPU,d,1024,,3,1,1,1,12000,GFLOP/s,,,vendor:clblast\n",
          f);
    fclose(f);
    struct plot_data d;
    CHECK(plot_read(csv, &d, why, sizeof why) == 0, "%s: %s", csv, why);
    CHECK(plot_steps(&d, dir, why, sizeof why) == 1, "no steps plot: %s", why);
    snprintf(csv, sizeof csv, "%s/bench-steps.dat", dir);
    int count = read_dat(csv, steps_line, blocks, 8);
    CHECK(count == 2 && strcmp(steps_line, "0 = 01_per_element; 1 = 05_blocked_16x16") == 0,
          "%d blocks, steps \"%s\"", count, steps_line);
    CHECK(blocks[0].count == 2 && strcmp(blocks[0].lines[0], "0 400 1024") == 0 &&
              strcmp(blocks[0].lines[1], "1 1300 1024") == 0,
          "the GPU's steps: \"%s\", \"%s\"", blocks[0].lines[0], blocks[0].lines[1]);
    CHECK(strcmp(blocks[1].header, "CLBlast SGEMM on GPU") == 0, "vendor block \"%s\"",
          blocks[1].header);
    plot_free(&d);
}

/* The cases of random bench.csv files, each device and N listing a different random part of
 * one order: read back in that order wherever the file tells it, that is wherever a chain of
 * lists puts one case before another (cases no list relates may go either way). */
static void test_case_order_merges_the_devices(void **state) {
    (void)state;
    struct rng r = rng_for("case_order");
    for (int i = 0; i < 200; i++) {
        int cases = (int)rng_range(&r, 2, 25), devices = (int)rng_range(&r, 1, 4);
        int sizes = (int)rng_range(&r, 1, 3), seen[25] = {0};
        char after[25][25] = {{0}}; /* after[a][b]: some list has a before b, or a chain does */
        char csv[PATH_MAX], why[300] = "", key[32], device[32];
        snprintf(csv, sizeof csv, "%s/order-%d.csv", g_tmp, i);
        FILE *f = fopen(csv, "w");
        bench_csv_write_header(f);
        for (int si = 0; si < sizes; si++)
            for (int k = 0; k < devices; k++) {
                snprintf(device, sizeof device, "device %d", k);
                long keep = rng_range(&r, 1, 9); /* out of 10: how full this list is */
                int listed[25], count = 0;
                for (int c = 0; c < cases; c++) {
                    if (rng_range(&r, 0, 9) >= keep)
                        continue;
                    snprintf(key, sizeof key, "ex:%02d_case", c);
                    write_row(f, c == 0 ? "baseline" : "kernel", key + 3, device, 64 << si, 1.5,
                              key, 64 << si, "");
                    seen[c] = 1;
                    for (int j = 0; j < count; j++)
                        after[listed[j]][c] = 1;
                    listed[count++] = c;
                }
            }
        fclose(f);
        for (int m = 0; m < cases; m++) /* chains: the transitive closure */
            for (int a = 0; a < cases; a++)
                for (int b = 0; b < cases; b++)
                    after[a][b] |= after[a][m] && after[m][b];
        struct plot_data d;
        CHECK(plot_read(csv, &d, why, sizeof why) == 0, "%s: %s", csv, why);
        int place[25], found = 0;
        for (int c = 0; c < cases; c++) {
            place[c] = -1;
            snprintf(key, sizeof key, "ex:%02d_case", c);
            for (int at = 0; at < d.cases.count; at++)
                if (strcmp(d.cases.keys[at], key) == 0)
                    place[c] = at;
            CHECK((place[c] >= 0) == seen[c], "%s: case %d %s", csv, c,
                  seen[c] ? "lost" : "made up");
            found += place[c] >= 0;
        }
        CHECK(found == d.cases.count, "%d cases read, %d expected", d.cases.count, found);
        for (int a = 0; a < cases; a++)
            for (int b = 0; b < cases; b++)
                CHECK(!after[a][b] || place[a] < place[b],
                      "%s: case %d goes before case %d, but they were read at places %d and %d",
                      csv, a, b, place[a], place[b]);
        plot_free(&d);
    }
}

/* A slide's names: the device's without POCL's target prefix, (R) and the platform's long name;
 * a case's without its tuning values, which go to a note. */
static void test_short_names_for_slides(void **state) {
    (void)state;
    static const char *const devices[][2] = {
        {"cpu-skylake-avx512-Intel(R) Xeon(R) Processor (Portable Computing Language)",
         "Intel Xeon Processor (POCL)"},
        {"pthread-haswell-AMD EPYC (Portable Computing Language)", "AMD EPYC (POCL)"},
        {"NVIDIA H100 80GB HBM3 (NVIDIA CUDA)", "NVIDIA H100 80GB HBM3 (CUDA)"},
        {"Device \"A\", model 1 (Platform 2)", "Device \"A\", model 1 (Platform 2)"}};
    char out[200], label[200], tuning[200];
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        plot_short_device(devices[i][0], out, sizeof out);
        assert_string_equal(out, devices[i][1]);
    }
    plot_short_device("cpu-x-Intel(R) Xeon(R) Processor (Portable Computing Language)", out, 6);
    assert_int_equal(strlen(out), 5); /* cut, never past the buffer */
    static const char *const cases[][3] = {
        {"Wide vector loads (TS=32 WPT=8 WIDTH=4)", "Wide vector loads", "TS=32 WPT=8 WIDTH=4"},
        {"2-D register blocking (TSM=32 TSN=32 TSK=16 WPTM=8 WPTN=4, make tune's)",
         "2-D register blocking", "TSM=32 TSN=32 TSK=16 WPTM=8 WPTN=4, make tune's"},
        {"OpenBLAS sgemm (CPU)", "OpenBLAS sgemm (CPU)", ""},
        {"cuBLAS SGEMM (FP32, no TF32)", "cuBLAS SGEMM (FP32, no TF32)", ""},
        {"(A=1)", "(A=1)", ""}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plot_case_split(cases[i][0], label, sizeof label, tuning, sizeof tuning);
        assert_string_equal(label, cases[i][1]);
        assert_string_equal(tuning, cases[i][2]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_short_names_for_slides),
        cmocka_unit_test(test_repeat_cost_bounds_bench_repeat),
        cmocka_unit_test(test_plan_size_is_the_largest_that_fits),
        cmocka_unit_test(test_scaled_row_fits_and_keeps_its_gflops),
        cmocka_unit_test(test_eta),
        cmocka_unit_test(test_duration_and_progress_text),
        cmocka_unit_test(test_steps_plot_data),
        cmocka_unit_test(test_steps_of_an_older_csv),
        cmocka_unit_test(test_case_order_merges_the_devices),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
