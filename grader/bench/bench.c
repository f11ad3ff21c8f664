/* bench.c - `grader --bench` (`make bench`): the lecture's table, measured here.
 *
 * For each N and each OpenCL device (or the one $DEVICE / --device names) it times the reference
 * solutions of solutions/ exactly as the grader launches them (one definition of each launch, in
 * harness.c), the blocked kernel at BLOCK 8/16/32/64 where the device takes the work-group, the
 * vendor SGEMMs, and the sequential C loop on the host; it measures each device's FP32 peak and
 * bandwidth with our own kernels and counts each kernel's memory traffic under oclgrind. Builds
 * and first launches stay outside every timed region; each figure is the median of repeats.
 */
#define _DEFAULT_SOURCE /* realpath */
#include "bench/bench.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#define BENCH_MAX_DEVICES 8
#define BENCH_MAX_SIZES   8
#define BENCH_MAX_ROWS    24
#define TRAFFIC_N         32 /* size of the oclgrind counting runs (it interprets every access) */

/* ---------------------------------------------------------------- repeats */

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int bench_repeat(bench_run_fn run, void *ctx, int warmup, struct clu_stats *stats) {
    memset(stats, 0, sizeof *stats);
    for (int i = 0; i < warmup; i++) {
        double ignored;
        if (run(ctx, &ignored) != 0)
            return -1;
    }
    double *samples = malloc(sizeof(double) * BENCH_HARD_CAP);
    double *copy = malloc(sizeof(double) * BENCH_HARD_CAP);
    if (!samples || !copy) {
        free(samples);
        free(copy);
        return -1;
    }
    double total = 0.0;
    int count = 0, status = 0;
    while (count < BENCH_HARD_CAP) {
        if (run(ctx, &samples[count]) != 0) {
            status = -1;
            break;
        }
        total += samples[count++];
        if (count < BENCH_MIN_REPEATS)
            continue;
        if (total >= BENCH_MAX_TIMED)
            break;
        if (total < BENCH_MIN_TIMED)
            continue; /* short kernels: repeat until 50 ms of work are timed */
        memcpy(copy, samples, sizeof(double) * (size_t)count);
        struct clu_stats s = clu_stats_of(copy, count);
        if (count >= BENCH_MAX_REPEATS ||
            (s.median > 0 && (s.max - s.min) / s.median < BENCH_SPREAD))
            break;
    }
    *stats = clu_stats_of(samples, count);
    free(samples);
    free(copy);
    return status;
}

/* ---------------------------------------------------------------- what is measured */

struct figure {
    int done;           /* 1: measured */
    struct clu_stats s; /* seconds */
    char note[200];     /* why not measured, or what it was (library, options) */
};

struct row {
    const char *kind;                 /* baseline | kernel | vendor */
    char name[80];                    /* the lecture's case name */
    const struct grader_exercise *ex; /* kernel rows: the exercise */
    int block;                        /* kernel rows: BLOCK */
    struct grader_traffic traffic;    /* kernel rows, counted once */
    int traffic_done;                 /* 1: traffic counted */
    struct figure at[BENCH_MAX_SIZES][BENCH_MAX_DEVICES];
};

struct device {
    char name[520];   /* device (platform) */
    char driver[200]; /* driver and platform versions */
    int is_cpu;       /* CL_DEVICE_TYPE_CPU */
    int spec_index;   /* index for clu_env_open */
    struct bench_peak peak;
    int peak_done;
};

struct bench {
    const char *root, *out, *self;
    int sizes[BENCH_MAX_SIZES], size_count;
    struct device devices[BENCH_MAX_DEVICES];
    int device_count;
    struct row rows[BENCH_MAX_ROWS];
    int row_count;
    int vendor, traffic, plots;
    int failures; /* reference kernels that gave a wrong result */
};

static const char *const lecture_ids[] = {"01_per_element", "02_per_row", "03_private_A",
                                          "04_local_B"};
static const int blocked_sizes[] = {8, 16, 32, 64};

static void add_rows(struct bench *b) {
    struct row *r = &b->rows[b->row_count++];
    r->kind = "baseline";
    snprintf(r->name, sizeof r->name, "Sequential C (not OpenCL)");
    for (size_t i = 0; i < sizeof lecture_ids / sizeof lecture_ids[0]; i++) {
        r = &b->rows[b->row_count++];
        r->kind = "kernel";
        r->ex = grader_find_exercise(lecture_ids[i]);
        r->block = r->ex->block;
        snprintf(r->name, sizeof r->name, "%s", r->ex->title);
    }
    for (size_t i = 0; i < sizeof blocked_sizes / sizeof blocked_sizes[0]; i++) {
        r = &b->rows[b->row_count++];
        r->kind = "kernel";
        r->ex = grader_find_exercise("05_blocked_16x16");
        r->block = blocked_sizes[i];
        snprintf(r->name, sizeof r->name, "%s, %dx%d", r->ex->title, r->block, r->block);
    }
    const char *vendors[] = {"OpenBLAS sgemm (CPU)", "CLBlast SGEMM",
                             "cuBLAS SGEMM (FP32, no TF32)"};
    for (size_t i = 0; i < 3; i++) {
        r = &b->rows[b->row_count++];
        r->kind = "vendor";
        snprintf(r->name, sizeof r->name, "%s", vendors[i]);
    }
}

/* ---------------------------------------------------------------- the sequential baseline */

struct seq_ctx {
    int n;
    const float *a, *b;
    float *c;
};

/* The lecture's triple loop, as a student writes it first (i-j-k, one dot product per C). */
static int run_sequential(void *ctx, double *seconds) {
    struct seq_ctx *s = ctx;
    int n = s->n;
    double start = bench_now();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float tmp = 0.0f;
            for (int k = 0; k < n; k++)
                tmp += s->a[(size_t)i * n + k] * s->b[(size_t)k * n + j];
            s->c[(size_t)i * n + j] = tmp;
        }
    *seconds = bench_now() - start;
    return 0;
}

/* ---------------------------------------------------------------- one kernel on one device */

struct kernel_ctx {
    struct clu_env *env;
    struct grader_launch launch;
};

static int run_kernel(void *ctx, double *seconds) {
    struct kernel_ctx *k = ctx;
    cl_event done = NULL;
    cl_int err = grader_enqueue(&k->launch, k->env->queue, &done);
    if (err == CL_SUCCESS)
        err = clWaitForEvents(1, &done);
    if (err != CL_SUCCESS) {
        clu_report_error(err, "timed kernel launch", __FILE__, __LINE__);
        if (done)
            clReleaseEvent(done);
        return -1;
    }
    *seconds = clu_event_seconds(done);
    clReleaseEvent(done);
    return 0;
}

static void time_kernel(struct bench *b, struct clu_env *env, struct row *r, int n, const float *a,
                        const float *b_host, float *c, struct figure *f) {
    size_t max_group = clu_device_max_group(env);
    cl_ulong local_mem = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    if (r->ex->max_n > 0 && n > r->ex->max_n) {
        snprintf(f->note, sizeof f->note, "N above the exercise's limit of %d", r->ex->max_n);
        return;
    }
    if (r->ex->shape == SHAPE_TILES) {
        if ((size_t)r->block * (size_t)r->block > max_group) {
            snprintf(f->note, sizeof f->note, "work-group of %d exceeds the device's %zu",
                     r->block * r->block, max_group);
            return;
        }
        if (n % r->block != 0) {
            snprintf(f->note, sizeof f->note, "N not a multiple of %d", r->block);
            return;
        }
        if (2 * sizeof(float) * (size_t)r->block * (size_t)r->block > local_mem) {
            snprintf(f->note, sizeof f->note, "tiles exceed the device's local memory");
            return;
        }
    }
    char path[PATH_MAX], options[64] = "";
    snprintf(path, sizeof path, "%s/solutions/%s/kernel.cl", b->root, r->ex->id);
    snprintf(options, sizeof options, "-DBLOCK=%d", r->block);
    cl_int err;
    cl_program program = clu_build_file(env, path, options, &err);
    if (!program) {
        snprintf(f->note, sizeof f->note, "build failed (%s)", clu_error_name(err));
        return;
    }
    struct kernel_ctx k = {.env = env};
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    cl_mem abc[3] = {NULL, NULL, NULL};
    if (grader_plan_launch(r->ex, env, n, r->block, &k.launch) != 0) {
        snprintf(f->note, sizeof f->note, "the device cannot take the work-group");
        clReleaseProgram(program);
        return;
    }
    k.launch.kernel = clCreateKernel(program, r->ex->kernel, &err);
    const float *hosts[2] = {a, b_host};
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++)
        abc[i] = clCreateBuffer(env->context,
                                i < 2 ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE,
                                bytes, i < 2 ? (void *)hosts[i] : NULL, &err);
    if (err == CL_SUCCESS)
        err = grader_set_args(r->ex, k.launch.kernel, n, r->block, abc);
    if (err != CL_SUCCESS) {
        snprintf(f->note, sizeof f->note, "OpenCL error %s", clu_error_name(err));
    } else if (bench_repeat(run_kernel, &k, 2, &f->s) == 0) {
        /* two warm-up launches: POCL generates code at the first enqueue of a local size */
        err = clEnqueueReadBuffer(env->queue, abc[2], CL_TRUE, 0, bytes, c, 0, NULL, NULL);
        if (err == CL_SUCCESS &&
            bench_check_product(n, a, b_host, c, f->note, sizeof f->note) == 0) {
            f->done = 1;
            snprintf(f->note, sizeof f->note, "%s", options);
        } else {
            if (err != CL_SUCCESS)
                snprintf(f->note, sizeof f->note, "read back: %s", clu_error_name(err));
            fprintf(stderr, "bench: %s: %s\n", r->name, f->note);
            b->failures++;
        }
    } else {
        snprintf(f->note, sizeof f->note, "a launch failed");
    }
    for (int i = 0; i < 3; i++)
        if (abc[i])
            clReleaseMemObject(abc[i]);
    if (k.launch.kernel)
        clReleaseKernel(k.launch.kernel);
    clReleaseProgram(program);
}

/* ---------------------------------------------------------------- devices */

static int find_devices(struct bench *b, const char *spec) {
    int count = clu_device_count();
    if (count < 0)
        return -1;
    for (int i = 0; i < count && b->device_count < BENCH_MAX_DEVICES; i++) {
        struct clu_env env;
        char index[16];
        snprintf(index, sizeof index, "%d", i);
        if (clu_env_open(&env, index) != 0)
            continue;
        if (spec && *spec) {
            /* the user's choice: keep only the device that spec selects */
            struct clu_env chosen;
            if (clu_env_open(&chosen, spec) != 0) {
                clu_env_close(&env);
                return -1;
            }
            int same = chosen.device == env.device;
            clu_env_close(&chosen);
            if (!same) {
                clu_env_close(&env);
                continue;
            }
        }
        struct device *d = &b->devices[b->device_count++];
        char driver[100] = "", version[200] = "";
        cl_device_type type = 0;
        clGetDeviceInfo(env.device, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
        clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, sizeof version, version, NULL);
        clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
        snprintf(d->name, sizeof d->name, "%s (%s)", env.device_name, env.platform_name);
        snprintf(d->driver, sizeof d->driver, "driver %s, %s", driver, version);
        d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
        d->spec_index = i;
        clu_env_close(&env);
    }
    return b->device_count > 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- measuring everything */

static void measure_size(struct bench *b, int si) {
    int n = b->sizes[si];
    size_t nn = (size_t)n * (size_t)n;
    float *a = malloc(nn * sizeof *a), *bm = malloc(nn * sizeof *bm), *c = malloc(nn * sizeof *c);
    if (!a || !bm || !c) {
        fprintf(stderr, "bench: out of memory at N = %d\n", n);
        exit(2);
    }
    clu_random_fill(a, nn, 2024, 0);
    clu_random_fill(bm, nn, 2024, 1);
    for (int ri = 0; ri < b->row_count; ri++) {
        struct row *r = &b->rows[ri];
        if (strcmp(r->kind, "baseline") == 0) {
            /* host code: one measurement, shown in every CPU device's column */
            struct figure f = {0};
            struct seq_ctx s = {n, a, bm, c};
            printf("  N = %d  %s ...\n", n, r->name);
            fflush(stdout);
            if (bench_repeat(run_sequential, &s, 1, &f.s) == 0 &&
                bench_check_product(n, a, bm, c, f.note, sizeof f.note) == 0) {
                f.done = 1;
                snprintf(f.note, sizeof f.note, "cc -O2, i-j-k loop");
            }
            for (int d = 0; d < b->device_count; d++) {
                r->at[si][d] = f;
                if (!b->devices[d].is_cpu) {
                    r->at[si][d].done = 0;
                    snprintf(r->at[si][d].note, sizeof r->at[si][d].note, "host code");
                }
            }
        }
    }
    for (int d = 0; d < b->device_count; d++) {
        struct device *dev = &b->devices[d];
        struct clu_env env;
        char index[16];
        snprintf(index, sizeof index, "%d", dev->spec_index);
        if (clu_env_open(&env, index) != 0)
            continue;
        if (!dev->peak_done) {
            printf("  %s: measuring FP32 peak and bandwidth ...\n", dev->name);
            fflush(stdout);
            bench_measure_peak(&env, &dev->peak);
            dev->peak_done = 1;
        }
        for (int ri = 0; ri < b->row_count; ri++) {
            struct row *r = &b->rows[ri];
            struct figure *f = &r->at[si][d];
            char library[200] = "";
            if (strcmp(r->kind, "baseline") == 0)
                continue;
            printf("  N = %d  %s  %s ...\n", n, dev->name, r->name);
            fflush(stdout);
            if (strcmp(r->kind, "kernel") == 0) {
                time_kernel(b, &env, r, n, a, bm, c, f);
            } else if (!b->vendor) {
                snprintf(f->note, sizeof f->note, "vendor rows switched off");
            } else if (strstr(r->name, "OpenBLAS")) {
                if (!dev->is_cpu)
                    snprintf(f->note, sizeof f->note, "CPU library");
                else if (bench_openblas(n, a, bm, &f->s, library, sizeof library, f->note,
                                        sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "%s", library);
                }
            } else if (strstr(r->name, "CLBlast")) {
                if (bench_clblast(&env, n, a, bm, &f->s, library, sizeof library, f->note,
                                  sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "%s", library);
                }
            } else if (strstr(r->name, "cuBLAS")) {
                if (dev->is_cpu || !strstr(dev->name, "NVIDIA"))
                    snprintf(f->note, sizeof f->note, "NVIDIA GPUs only");
                else if (bench_cublas(n, a, bm, &f->s, library, sizeof library, f->note,
                                      sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "on %s", library);
                }
            }
            if (!f->done && f->note[0])
                printf("    skipped: %s\n", f->note);
        }
        clu_env_close(&env);
    }
    free(a);
    free(bm);
    free(c);
}

/* The counts are the same on every machine, so they are kept in build/bench-traffic/ and reused
 * while the kernel source is unchanged (also where oclgrind is not installed, if the folder was
 * copied from a machine where it is). */
static void count_traffic(struct bench *b) {
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/build", b->root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/build/bench-traffic", b->root);
    mkdir(dir, 0755);
    for (int ri = 0; ri < b->row_count; ri++) {
        struct row *r = &b->rows[ri];
        if (strcmp(r->kind, "kernel") != 0)
            continue;
        char path[PATH_MAX], work[PATH_MAX + 128], cache[PATH_MAX + 128];
        snprintf(path, sizeof path, "%s/solutions/%s/kernel.cl", b->root, r->ex->id);
        snprintf(work, sizeof work, "%s/%s-%d", dir, r->ex->id, r->block);
        snprintf(cache, sizeof cache, "%s/%s-%d.txt", dir, r->ex->id, r->block);
        mkdir(work, 0755);
        int n = r->block > TRAFFIC_N ? r->block : TRAFFIC_N;
        unsigned long long hash = (unsigned long long)grader_file_hash(path), cached_hash = 0;
        struct grader_traffic *t = &r->traffic;
        FILE *f = fopen(cache, "r");
        if (f &&
            fscanf(f, "%llx %d %lf %lf %lf %lf", &cached_hash, &t->n, &t->global_loads,
                   &t->global_stores, &t->local_loads, &t->local_stores) == 6 &&
            cached_hash == hash && t->n == n) {
            r->traffic_done = 1;
            fclose(f);
            continue;
        }
        if (f)
            fclose(f);
        printf("  counting memory traffic of %s under oclgrind (N = %d) ...\n", r->name, n);
        fflush(stdout);
        r->traffic_done =
            grader_traffic(b->self, r->ex, path, r->block, n, work, t, NULL, NULL, NULL) == 0;
        if (!r->traffic_done) {
            printf("    not counted: %s\n", t->why);
            continue;
        }
        f = fopen(cache, "w");
        if (f) {
            fprintf(f, "%llx %d %.17g %.17g %.17g %.17g\n", hash, n, t->global_loads,
                    t->global_stores, t->local_loads, t->local_stores);
            fclose(f);
        }
    }
}

/* ---------------------------------------------------------------- writing the results */

static double gflops_of(int n, const struct figure *f) {
    return f->done && f->s.median > 0 ? 2.0 * n * (double)n * n / f->s.median * 1e-9 : 0.0;
}

/* A CSV text field, quoted (RFC 4180) when it holds a comma or a quote: the lecture's case names
 * do ("C(i,j) per work-item, all global"). */
static void csv_text(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static int write_csv(const struct bench *b, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\n", BENCH_CSV_HEADER);
    for (int si = 0; si < b->size_count; si++) {
        int n = b->sizes[si];
        for (int d = 0; d < b->device_count; d++) {
            const struct device *dev = &b->devices[d];
            if (si == 0 && dev->peak.gflops > 0) {
                fprintf(f, "peak,FP32 peak (measured),");
                csv_text(f, dev->name);
                fputc(',', f);
                csv_text(f, dev->driver);
                fprintf(f, ",0,,,,,,%.3f,GFLOP/s,100,\n", dev->peak.gflops);
            }
            if (si == 0 && dev->peak.gbytes > 0) {
                fprintf(f, "bandwidth,Memory bandwidth (measured),");
                csv_text(f, dev->name);
                fputc(',', f);
                csv_text(f, dev->driver);
                fprintf(f, ",0,,,,,,%.3f,GB/s,,\n", dev->peak.gbytes);
            }
            for (int ri = 0; ri < b->row_count; ri++) {
                const struct row *r = &b->rows[ri];
                const struct figure *fig = &r->at[si][d];
                if (!fig->done)
                    continue;
                double g = gflops_of(n, fig);
                fprintf(f, "%s,", r->kind);
                csv_text(f, r->name);
                fputc(',', f);
                csv_text(f, dev->name);
                fputc(',', f);
                csv_text(f, dev->driver);
                fprintf(f, ",%d,", n);
                csv_text(f, fig->note);
                fprintf(f, ",%d,%.9g,%.9g,%.9g,%.3f,GFLOP/s,", fig->s.count, fig->s.min,
                        fig->s.median, fig->s.max, g);
                if (dev->peak.gflops > 0)
                    fprintf(f, "%.2f", 100.0 * g / dev->peak.gflops);
                fputc(',', f);
                if (r->traffic_done && grader_intensity(&r->traffic) > 0)
                    fprintf(f, "%.4f", grader_intensity(&r->traffic));
                fputc('\n', f);
            }
        }
    }
    return fclose(f);
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
            "library outside OpenCL (OpenBLAS) can go beyond what OpenCL reaches on a CPU.\n\n",
            date, host.nodename, host.sysname, host.machine, BENCH_MIN_REPEATS,
            BENCH_MIN_TIMED * 1e3);
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
            const struct row *r = &b->rows[ri];
            fprintf(f, "| %s |", r->name);
            for (int d = 0; d < b->device_count; d++) {
                const struct figure *fig = &r->at[si][d];
                double peak = b->devices[d].peak.gflops;
                if (fig->done && peak > 0)
                    fprintf(f, " %.2f (%.1f%%) |", gflops_of(n, fig),
                            100.0 * gflops_of(n, fig) / peak);
                else if (fig->done)
                    fprintf(f, " %.2f |", gflops_of(n, fig));
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
        /* why the empty cells are empty, once per distinct reason */
        int notes = 0;
        for (int ri = 0; ri < b->row_count; ri++)
            for (int d = 0; d < b->device_count; d++) {
                const struct figure *fig = &b->rows[ri].at[si][d];
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
}

/* ---------------------------------------------------------------- command line */

static void usage(FILE *out) {
    fprintf(
        out,
        "usage: grader --bench [--n N] [--sweep] [--device SPEC] [--out DIR] [--root DIR]\n"
        "                      [--no-vendor] [--no-traffic] [--no-plots] [--replot CSV]\n"
        "Times the sequential loop, every reference solution, the blocked kernel at "
        "BLOCK 8/16/32/64\nand the vendor SGEMMs on every OpenCL device (or --device), "
        "and writes DIR/bench.md,\nDIR/bench.csv and SVG plots (default DIR: results/). --replot "
        "CSV only plots a bench.csv\n(made elsewhere, say on a machine without "
        "gnuplot) into DIR.\n");
}

int bench_main(int argc, char **argv, const char *self) {
    static struct bench b; /* large: keep it off the stack */
    memset(&b, 0, sizeof b);
    b.self = self;
    b.vendor = b.traffic = b.plots = 1;
    const char *device = getenv("DEVICE"), *root = NULL, *out = NULL;
    const char *replot = NULL; /* a bench.csv to plot again, measuring nothing */
    int n = 1024, sweep = 0;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(flag, "--sweep"))
            sweep = 1;
        else if (!strcmp(flag, "--no-vendor"))
            b.vendor = 0;
        else if (!strcmp(flag, "--no-traffic"))
            b.traffic = 0;
        else if (!strcmp(flag, "--no-plots"))
            b.plots = 0;
        else if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            usage(stdout);
            return 0;
        } else if (value && !strcmp(flag, "--n"))
            n = atoi(argv[++i]);
        else if (value && !strcmp(flag, "--device"))
            device = argv[++i];
        else if (value && !strcmp(flag, "--out"))
            out = argv[++i];
        else if (value && !strcmp(flag, "--root"))
            root = argv[++i];
        else if (value && !strcmp(flag, "--replot"))
            replot = argv[++i];
        else {
            fprintf(stderr, "bench: bad flag %s\n", flag);
            usage(stderr);
            return 2;
        }
    }
    if (n < 16 || n > 16384) {
        fprintf(stderr, "bench: N must be from 16 to 16384\n");
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
    if (replot) {
        char why[300] = "";
        int plots = bench_plot(replot, b.out, why, sizeof why);
        if (plots < 0)
            fprintf(stderr, "bench: no plots: %s\n", why);
        else
            printf("plots: %d SVG files in %s\n", plots, b.out);
        return plots < 0 ? 1 : 0;
    }
    if (sweep) {
        for (int s = 128; s < n && b.size_count < BENCH_MAX_SIZES - 1; s *= 2)
            b.sizes[b.size_count++] = s;
    }
    b.sizes[b.size_count++] = n;
    if (find_devices(&b, device) != 0) {
        fprintf(stderr, "bench: no OpenCL device to measure\n");
        return 2;
    }
    add_rows(&b);
    printf("make bench: N = ");
    for (int s = 0; s < b.size_count; s++)
        printf("%s%d", s ? ", " : "", b.sizes[s]);
    printf(" on %d device%s\n", b.device_count, b.device_count > 1 ? "s" : "");
    if (b.traffic)
        count_traffic(&b);
    for (int s = 0; s < b.size_count; s++)
        measure_size(&b, s);

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
