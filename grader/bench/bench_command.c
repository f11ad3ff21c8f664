/* bench_command.c - `grader --bench` (`make bench`): the lecture's table, measured here.
 *
 * For each N and each OpenCL device (or the one $DEVICE / --device names) it times the reference
 * solution of every exercise of the table (grader/exercise/table.c) at its tuning values, the
 * blocked kernel at BLOCK 8/16/32/64 where the device takes the work-group, the vendor SGEMMs and
 * the sequential C loop on the host (measure.c), then writes the table and the CSV and draws the
 * plots. This file holds the command line, the rows, and the writing of the results.
 */
#define _DEFAULT_SOURCE /* realpath */
#include "bench/csv.h"
#include "bench/measure.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the rows */

static const int blocked_sizes[] = {8, 16, 32, 64};

/* A new row, or NULL (said once) when the table has more than BENCH_MAX_ROWS of them. */
static struct bench_row *new_row(struct bench *b, const char *kind) {
    if (b->row_count == BENCH_MAX_ROWS) {
        if (b->row_count++ == BENCH_MAX_ROWS)
            fprintf(stderr, "bench: more than %d rows; raise BENCH_MAX_ROWS (measure.h)\n",
                    BENCH_MAX_ROWS);
        return NULL;
    }
    if (b->row_count > BENCH_MAX_ROWS)
        return NULL;
    struct bench_row *r = &b->rows[b->row_count++];
    r->kind = kind;
    return r;
}

/* The line of ex for side (the reference's, or a submission's) in the tuning file of every
 * device measured, into values: 1 when each has one and they agree (a row has one set of values
 * for all its devices), else 0 (said when some device has a line). A bad line is said on stderr
 * and left out. */
static int tuned_values(const struct bench *b, const struct grader_exercise *ex,
                        enum grader_tuning_side side, struct grader_values *values) {
    int have = 0;
    for (int d = 0; d < b->device_count; d++) {
        char path[PATH_MAX + 160], warnings[1200];
        struct grader_tuned found[2];
        if (grader_tuning_path(b->tuning, b->devices[d].device_name, path, sizeof path) != 0)
            continue;
        grader_tuning_lookup(path, ex, found, warnings, sizeof warnings);
        for (char *w = warnings, *end; *w && (end = strchr(w, '\n')); w = end + 1)
            fprintf(stderr, "bench: %.*s\n", (int)(end - w), w);
        if (!found[side].line)
            continue;
        if (have && !grader_values_equal(values, &found[side].values)) {
            fprintf(stderr,
                    "bench: %s at the table's values: the devices' tuning files differ "
                    "(DEVICE=... measures one)\n",
                    ex->id);
            return 0;
        }
        *values = found[side].values;
        have++;
    }
    if (have && have < b->device_count)
        fprintf(stderr,
                "bench: %s at the table's values: not every device has a tuning file "
                "line for it (DEVICE=... measures one)\n",
                ex->id);
    return have && have == b->device_count;
}

/* One row per exercise of the table with a matrix kernel, in the table's order: a tiled kernel
 * without tuning values (05) at each BLOCK of blocked_sizes, one with them (07 on) at its
 * values (make tune's where the tuning file has them), named with them ("... (TS=32 WPT=8)")
 * since a figure means little without them. */
static void add_kernel_rows(struct bench *b, const struct grader_exercise *ex, int yours) {
    int sweep = ex->shape == SHAPE_TILES && !ex->tuning[0].name;
    int rows = sweep ? (int)(sizeof blocked_sizes / sizeof blocked_sizes[0]) : 1;
    for (int i = 0; i < rows; i++) {
        struct bench_row *r = new_row(b, "kernel");
        if (!r)
            return;
        r->ex = ex;
        r->yours = yours;
        if (yours)
            snprintf(r->kernel, sizeof r->kernel, "%s/%s/kernel.cl", b->submission, ex->id);
        else
            snprintf(r->kernel, sizeof r->kernel, "%s/solutions/%s/kernel.cl", b->root, ex->id);
        r->block = sweep ? blocked_sizes[i] : ex->block;
        const char *whose = yours ? "yours:" : "ex:", *mine = yours ? "Yours: " : "";
        if (sweep)
            snprintf(r->key, sizeof r->key, "%s%s@b%d", whose, ex->id, r->block);
        else
            snprintf(r->key, sizeof r->key, "%s%s", whose, ex->id);
        /* (a student's kernel is no step of the workbook's plot) */
        r->step = !yours && (!sweep || r->block == ex->block) ? ex->id : NULL;
        if (sweep) {
            snprintf(r->name, sizeof r->name, "%s%s, %dx%d", mine, ex->title, r->block, r->block);
            snprintf(r->tuning, sizeof r->tuning, "BLOCK=%d", r->block);
        } else if (ex->tuning[0].name) {
            char tuning[sizeof r->tuning];
            int tuned =
                tuned_values(b, ex, yours ? TUNING_SUBMISSION : TUNING_REFERENCE, &r->tuned);
            if (!tuned)
                r->tuned = grader_values_default(ex);
            grader_values_text(&r->tuned, tuning, sizeof tuning);
            snprintf(r->tuning, sizeof r->tuning, "%s", tuning);
            snprintf(r->name, sizeof r->name, "%s%s (%s%s)", mine, ex->title, tuning,
                     tuned ? ", make tune's" : "");
        } else {
            snprintf(r->name, sizeof r->name, "%s%s", mine, ex->title);
        }
        /* built and launched as the grader does: -DNAME=VALUE for each tuning value (the
         * defaults), else -DBLOCK */
        r->variant = grader_variant_of(ex, r->block, 0);
        if (!sweep && ex->tuning[0].name)
            r->variant = grader_values_variant(&r->tuned);
        grader_build_options(&r->variant, r->options, sizeof r->options);
    }
}

/* Whether the workbook has ex's reference kernel (a handout, make handout's, has none). */
static int reference_there(const struct bench *b, const struct grader_exercise *ex) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/solutions/%s/kernel.cl", b->root, ex->id);
    return access(path, R_OK) == 0;
}

/* The rows; how many are the reference's kernels. */
static int add_rows(struct bench *b) {
    struct bench_row *r = new_row(b, "baseline");
    snprintf(r->name, sizeof r->name, "Sequential C (not OpenCL)");
    snprintf(r->key, sizeof r->key, "baseline:sequential");
    int kernels = b->row_count;
    for (int i = 0; i < grader_exercise_count; i++) {
        const struct grader_exercise *ex = &grader_exercises[i];
        if (!ex->kernel || ex->is_vector || (b->only && strcmp(b->only, ex->id) != 0))
            continue;
        if (reference_there(b, ex))
            add_kernel_rows(b, ex, 0);
        char yours[PATH_MAX + 160];
        snprintf(yours, sizeof yours, "%s/%s/kernel.cl", b->submission ? b->submission : "",
                 ex->id);
        if (b->submission && access(yours, R_OK) == 0)
            add_kernel_rows(b, ex, 1); /* the student's own kernel, beside the reference */
    }
    kernels = b->row_count - kernels;
    static const struct {
        const char *key, *name;
    } vendors[] = {{"vendor:openblas", "OpenBLAS sgemm (CPU)"},
                   {"vendor:clblast", "CLBlast SGEMM"},
                   {"vendor:cublas", "cuBLAS SGEMM (FP32, no TF32)"}};
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
        if (!(r = new_row(b, "vendor")))
            break;
        snprintf(r->name, sizeof r->name, "%s", vendors[i].name);
        snprintf(r->key, sizeof r->key, "%s", vendors[i].key);
    }
    if (b->row_count > BENCH_MAX_ROWS)
        b->row_count = BENCH_MAX_ROWS;
    return kernels;
}

/* ---------------------------------------------------------------- writing the results */

static double gflops_of(int n, const struct bench_figure *f) {
    return f->done && f->s.median > 0 ? 2.0 * n * (double)n * n / f->s.median * 1e-9 : 0.0;
}

static int write_csv(const struct bench *b, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    bench_csv_write_header(f);
    for (int si = 0; si < b->size_count; si++) {
        int n = b->sizes[si];
        for (int d = 0; d < b->device_count; d++) {
            const struct bench_device *dev = &b->devices[d];
            struct bench_csv_row row = {.device = dev->name,
                                        .driver = dev->driver,
                                        .min_s = NAN,
                                        .median_s = NAN,
                                        .max_s = NAN,
                                        .pct_peak = NAN,
                                        .flops_per_byte = NAN};
            if (si == 0 && dev->peak.gflops > 0) {
                struct bench_csv_row peak = row;
                peak.kind = peak.key = "peak";
                peak.name = "FP32 peak (measured)";
                peak.value = dev->peak.gflops;
                peak.unit = "GFLOP/s";
                peak.pct_peak = 100;
                bench_csv_write_row(f, &peak);
            }
            if (si == 0 && dev->peak.gbytes > 0) {
                struct bench_csv_row bandwidth = row;
                bandwidth.kind = bandwidth.key = "bandwidth";
                bandwidth.name = "Memory bandwidth (measured)";
                bandwidth.value = dev->peak.gbytes;
                bandwidth.unit = "GB/s";
                bench_csv_write_row(f, &bandwidth);
            }
            for (int ri = 0; ri < b->row_count; ri++) {
                const struct bench_row *r = &b->rows[ri];
                const struct bench_figure *fig = &r->at[si][d];
                if (!fig->done)
                    continue;
                struct bench_csv_row one = row;
                one.kind = r->kind;
                one.name = r->name;
                one.key = r->key;
                one.n = n;
                one.options = fig->note;
                one.repeats = fig->s.count;
                one.min_s = fig->s.min;
                one.median_s = fig->s.median;
                one.max_s = fig->s.max;
                one.value = gflops_of(n, fig);
                one.unit = "GFLOP/s";
                if (dev->peak.gflops > 0)
                    one.pct_peak = 100.0 * one.value / dev->peak.gflops;
                if (r->traffic_done && grader_intensity(&r->traffic) > 0)
                    one.flops_per_byte = grader_intensity(&r->traffic);
                one.timed_n = fig->timed_n ? fig->timed_n : n;
                one.tuning = r->tuning;
                one.step = r->step;
                bench_csv_write_row(f, &one);
            }
        }
    }
    int bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

static void write_table(const struct bench *b, FILE *f) {
    struct utsname host;
    uname(&host);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    fprintf(f, "# Matrix multiplication: GFLOP/s measured by `make bench`\n\n");
    fprintf(f,
            "Measured %s on %s (%s %s). Median of repeats (warm-up excluded, at least %d "
            "runs and %.0f ms of timed work; see bench.csv for min, max and repeats). In "
            "brackets: percent of the device's FP32 peak as our own OpenCL kernel measures it; a "
            "library outside OpenCL (OpenBLAS) can go beyond what OpenCL reaches on a CPU.",
            date, host.nodename, host.sysname, host.machine, BENCH_MIN_REPEATS,
            BENCH_MIN_TIMED * 1e3);
    if (b->budget > 0)
        fprintf(f,
                " A row whose timing at N would take over %.0f s is timed at the largest N "
                "that fits (marked †).",
                b->budget);
    fprintf(f, "\n\n");
    for (int d = 0; d < b->device_count; d++)
        fprintf(f, "- Device %d: %s, %s\n", d + 1, b->devices[d].name, b->devices[d].driver);
    for (int si = 0; si < b->size_count; si++) {
        int n = b->sizes[si];
        fprintf(f, "\n## N = %d\n\n| Case |", n);
        for (int d = 0; d < b->device_count; d++)
            fprintf(f, " Device %d |", d + 1);
        fprintf(f, " global loads / stores per FMA | local loads / stores per FMA |\n|---|");
        for (int d = 0; d < b->device_count; d++)
            fprintf(f, "---:|");
        fprintf(f, "---:|---:|\n");
        for (int ri = 0; ri < b->row_count; ri++) {
            const struct bench_row *r = &b->rows[ri];
            fprintf(f, "| %s |", r->name);
            for (int d = 0; d < b->device_count; d++) {
                const struct bench_figure *fig = &r->at[si][d];
                double peak = b->devices[d].peak.gflops;
                /* a figure timed at a smaller N is marked, and said under the table */
                const char *mark = fig->timed_n && fig->timed_n != n ? " †" : "";
                if (fig->done && peak > 0)
                    fprintf(f, " %.2f (%.1f%%)%s |", gflops_of(n, fig),
                            100.0 * gflops_of(n, fig) / peak, mark);
                else if (fig->done)
                    fprintf(f, " %.2f%s |", gflops_of(n, fig), mark);
                else
                    fprintf(f, " n/a |");
            }
            if (r->traffic_done)
                fprintf(f, " %.3f / %.4f | %.3f / %.4f |\n", r->traffic.global_loads,
                        r->traffic.global_stores, r->traffic.local_loads, r->traffic.local_stores);
            else
                fprintf(f, " | |\n");
        }
        fprintf(f, "| FP32 peak (measured) |");
        for (int d = 0; d < b->device_count; d++)
            if (b->devices[d].peak.gflops > 0)
                fprintf(f, " %.1f |", b->devices[d].peak.gflops);
            else
                fprintf(f, " n/a |");
        fprintf(f, " | |\n| Memory bandwidth, GB/s (measured) |");
        for (int d = 0; d < b->device_count; d++)
            if (b->devices[d].peak.gbytes > 0)
                fprintf(f, " %.1f |", b->devices[d].peak.gbytes);
            else
                fprintf(f, " n/a |");
        fprintf(f, " | |\n");
        /* which figures were timed at a smaller N, and what the whole timing would have taken */
        int scaled = 0;
        for (int ri = 0; ri < b->row_count; ri++)
            for (int d = 0; d < b->device_count; d++) {
                const struct bench_figure *fig = &b->rows[ri].at[si][d];
                if (!fig->done || !fig->timed_n || fig->timed_n == n)
                    continue;
                if (!scaled++)
                    fprintf(f, "\n† timed at a smaller N and scaled: GFLOP/s as measured there, "
                               "times (in bench.csv) multiplied by (N / that N)^3:\n");
                char duration[48];
                bench_duration_text(duration, sizeof duration, fig->full_s);
                fprintf(f,
                        "- %s on device %d: timed at N=%d, scaled (at N = %d the timing would "
                        "have taken about %s)\n",
                        b->rows[ri].name, d + 1, fig->timed_n, n, duration);
            }
        /* why the empty cells are empty, once per distinct reason */
        int notes = 0;
        for (int ri = 0; ri < b->row_count; ri++)
            for (int d = 0; d < b->device_count; d++) {
                const struct bench_figure *fig = &b->rows[ri].at[si][d];
                if (fig->done || !fig->note[0])
                    continue;
                if (!notes++)
                    fprintf(f, "\nn/a:\n");
                fprintf(f, "- %s on device %d: %s\n", b->rows[ri].name, d + 1, fig->note);
            }
    }
    fprintf(f,
            "\nTraffic: accesses of 4-byte floats per multiply-add, counted by "
            "`oclgrind --inst-counts` at N = %d (deterministic; private memory not counted).\n",
            TRAFFIC_N);
    for (int ri = 0; ri < b->row_count; ri++) /* why a kernel's traffic cells are empty */
        if (b->rows[ri].ex && !b->rows[ri].traffic_done && b->rows[ri].traffic.why[0])
            fprintf(f, "- %s: not counted: %s\n", b->rows[ri].name, b->rows[ri].traffic.why);
}

/* ---------------------------------------------------------------- command line */

static void usage(FILE *out) {
    fprintf(out,
            "usage: grader --bench [--n N] [--sweep] [--device SPEC] [--out DIR] [--root DIR]\n"
            "                      [--budget SECONDS] [--no-vendor] [--no-traffic] [--no-plots]\n"
            "                      [--replot CSV] [--tuning DIR] [--submission DIR] [--ex ID]\n"
            "Times the sequential loop, every reference solution, the blocked kernel at "
            "BLOCK 8/16/32/64\nand the vendor SGEMMs on every OpenCL device (or --device), "
            "and writes DIR/bench.md,\nDIR/bench.csv and SVG plots (default DIR: results/). A row "
            "whose timing at N would\ntake over --budget seconds (default %.0f; 0: no limit) is "
            "timed at a smaller N and\nscaled, and says so. --replot CSV only plots a bench.csv "
            "(made elsewhere, say on a\nmachine without gnuplot) into DIR. The steps from 07 on "
            "are built with make tune's values\nwhere the device's file in --tuning (default "
            "results/tuning/) has them. --submission DIR\nadds a row for each kernel.cl of a "
            "student's tree (DIR/ID/kernel.cl) beside the\nreference's, with make tune's values "
            "for it; it runs in this process, as the\nstudent's own program does: bench only "
            "code you trust (make grade jails it). --ex ID\nmeasures that exercise's kernels "
            "only.\n",
            BENCH_BUDGET);
}

int bench_main(int argc, char **argv, const char *self) {
    static struct bench b; /* large: keep it off the stack */
    memset(&b, 0, sizeof b);
    b.self = self;
    b.vendor = b.traffic = b.plots = 1;
    b.budget = BENCH_BUDGET;
    const char *device = getenv("DEVICE"), *root = NULL, *out = NULL, *submission = NULL;
    const struct grader_exercise *only = NULL;
    const char *replot = NULL; /* a bench.csv to plot again, measuring nothing */
    long n = 1024;
    int sweep = 0;
    static const struct option options[] = {{"n", required_argument, NULL, 'n'},
                                            {"sweep", no_argument, NULL, 's'},
                                            {"device", required_argument, NULL, 'd'},
                                            {"out", required_argument, NULL, 'o'},
                                            {"root", required_argument, NULL, 'r'},
                                            {"replot", required_argument, NULL, 'p'},
                                            {"budget", required_argument, NULL, 'b'},
                                            {"no-vendor", no_argument, NULL, 'V'},
                                            {"no-traffic", no_argument, NULL, 'T'},
                                            {"no-plots", no_argument, NULL, 'P'},
                                            {"help", no_argument, NULL, 'h'},
                                            {"tuning", required_argument, NULL, 't'},
                                            {"submission", required_argument, NULL, 'S'},
                                            {"ex", required_argument, NULL, 'e'},
                                            {NULL, 0, NULL, 0}};
    /* argv[0] is "--bench"; getopt_long starts after it. optind 0 reinitialises getopt in glibc
     * should it have run before in this process (the unit tests); our own messages, not its. */
    optind = 0;
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":h", options, NULL)) != -1;) {
        char *end = NULL;
        switch (c) {
        case 'n':
            errno = 0;
            n = strtol(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || n < 16 || n > 16384) {
                fprintf(stderr, "bench: --n %s: N must be a whole number from 16 to 16384\n",
                        optarg);
                return 2;
            }
            break;
        case 's':
            sweep = 1;
            break;
        case 'b':
            errno = 0;
            b.budget = strtod(optarg, &end);
            if (errno != 0 || end == optarg || *end != '\0' || !(b.budget >= 0) || b.budget > 1e6) {
                fprintf(stderr, "bench: --budget %s: seconds from 0 (no limit) to 1000000\n",
                        optarg);
                return 2;
            }
            break;
        case 'd':
            device = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case 'r':
            root = optarg;
            break;
        case 'p':
            replot = optarg;
            break;
        case 't':
            b.tuning = optarg;
            break;
        case 'S':
            submission = optarg;
            break;
        case 'e':
            if (!(only = grader_find_exercise(optarg))) {
                fprintf(stderr, "bench: --ex %s: no such exercise (grader --list)\n", optarg);
                return 2;
            }
            b.only = only->id;
            break;
        case 'V':
            b.vendor = 0;
            break;
        case 'T':
            b.traffic = 0;
            break;
        case 'P':
            b.plots = 0;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case ':':
            fprintf(stderr, "bench: %s needs a value (grader --bench --help)\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "bench: bad flag %s (grader --bench --help)\n", argv[optind - 1]);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "bench: unexpected argument %s (grader --bench --help)\n", argv[optind]);
        return 2;
    }
    char guess[PATH_MAX + 16];
    snprintf(guess, sizeof guess, "%s/../..", clu_exe_dir());
    b.root = realpath(root ? root : guess, NULL);
    if (!b.root) {
        fprintf(stderr, "bench: cannot find the workbook root\n");
        return 2;
    }
    char out_default[PATH_MAX + 16];
    snprintf(out_default, sizeof out_default, "%s/results", b.root);
    mkdir(out ? out : out_default, 0755);
    b.out = realpath(out ? out : out_default, NULL);
    if (!b.out) {
        fprintf(stderr, "bench: cannot create the results folder\n");
        return 2;
    }
    if (submission && !(b.submission = realpath(submission, NULL))) {
        fprintf(stderr, "bench: --submission %s: no such folder\n", submission);
        return 2;
    }
    if (replot) {
        char why[300] = "";
        int plots = bench_plot(replot, b.out, why, sizeof why);
        if (plots < 0)
            fprintf(stderr, "bench: no plots: %s\n", why);
        else
            printf("plots: %d SVG files in %s\n", plots, b.out);
        return plots < 0 ? 1 : 0;
    }
    /* the peak kernels are read at run time: a tree without them is said at once, not per device */
    if (snprintf(b.peak_source, sizeof b.peak_source, "%s/%s", b.root, BENCH_PEAK_SOURCE) >=
            (int)sizeof b.peak_source ||
        access(b.peak_source, R_OK) != 0) {
        fprintf(stderr, "bench: cannot read %s (the peak kernels): --root names the workbook\n",
                b.peak_source);
        return 2;
    }
    if (sweep) {
        for (int s = 128; s < n && b.size_count < BENCH_MAX_SIZES - 1; s *= 2)
            b.sizes[b.size_count++] = s;
    }
    b.sizes[b.size_count++] = (int)n;
    char tuning_default[PATH_MAX + 16];
    snprintf(tuning_default, sizeof tuning_default, "%s/results/tuning", b.root);
    if (!b.tuning)
        b.tuning = tuning_default;
    if (bench_find_devices(&b, device) != 0) {
        fprintf(stderr, "bench: no OpenCL device to measure\n");
        return 2;
    }
    int kernels = add_rows(&b);
    printf("make bench: N = ");
    for (int s = 0; s < b.size_count; s++)
        printf("%s%d", s ? ", " : "", b.sizes[s]);
    printf(" on %d device%s\n", b.device_count, b.device_count > 1 ? "s" : "");
    /* a student runs it from an exercise folder too: what is measured, said before any figure */
    int yours = 0;
    for (int i = 0; i < b.row_count && i < BENCH_MAX_ROWS; i++)
        yours += b.rows[i].kind && strcmp(b.rows[i].kind, "kernel") == 0 && b.rows[i].yours;
    if (yours > 0)
        printf("your kernels (%s, the rows \"Yours: ...\") beside the reference solutions "
               "(solutions/), the vendor libraries and the sequential loop\n",
               b.submission);
    else if (b.submission)
        printf("no kernel.cl of yours in %s%s%s: the reference solutions (solutions/), the vendor "
               "libraries and the sequential loop\n",
               b.submission, b.only ? " for " : "", b.only ? b.only : "");
    else if (kernels > 0)
        printf("the reference solutions (solutions/), the vendor libraries and the sequential "
               "loop: your own kernels are timed against the reference by make grade, and by "
               "make bench SUBMISSION=exercises (or make bench in an exercise's folder)\n");
    else
        printf("the vendor libraries and the sequential loop (this workbook, a handout, has no "
               "reference solutions): make grade times your own kernels beside OpenBLAS and the "
               "sequential loop\n");
    if (b.traffic)
        bench_count_traffic(&b);
    int steps = bench_steps(&b, NULL);
    int *step_n = malloc(((size_t)steps + 1) * sizeof *step_n);
    if (step_n) {
        bench_steps(&b, step_n);
        bench_progress_start(&b, step_n, steps);
        free(step_n);
    }
    for (int s = 0; s < b.size_count; s++)
        bench_measure_size(&b, s);
    bench_progress_end(&b);

    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/bench.csv", b.out);
    if (write_csv(&b, path) != 0) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return 2;
    }
    snprintf(path, sizeof path, "%s/bench.md", b.out);
    FILE *md = fopen(path, "w");
    if (!md) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return 2;
    }
    write_table(&b, md);
    fclose(md);
    printf("\n");
    write_table(&b, stdout);
    if (b.plots) {
        char why[300] = "", csv[PATH_MAX + 32];
        snprintf(csv, sizeof csv, "%s/bench.csv", b.out);
        int plots = bench_plot(csv, b.out, why, sizeof why);
        if (plots < 0)
            printf("\nplots: not made: %s\n", why);
        else
            printf("\nplots: %d SVG files in %s\n", plots, b.out);
    }
    printf("table: %s/bench.md, figures: %s/bench.csv\n", b.out, b.out);
    return b.failures ? 1 : 0;
}
