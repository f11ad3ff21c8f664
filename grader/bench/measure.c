/* measure.c - the measuring of `grader --bench`: the repeat protocol, the sequential loop on the
 * host, each reference kernel on each device exactly as the grader launches it (one definition of
 * each launch, in harness.c), the vendor SGEMMs, the devices' peaks and the kernels' memory
 * traffic. Builds and first launches stay outside every timed region; each figure is the median
 * of repeats. A row whose whole timing at N would outrun the budget is probed at small sizes and
 * timed at the largest N that fits, its times scaled by N^3 (scale.c has the rule).
 */
#define _DEFAULT_SOURCE /* clock_gettime */
#include "bench/measure.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---------------------------------------------------------------- inputs at any size */

/* A and B from the same seeds at every size, and room for C: a row timed at a smaller N than the
 * table's gets inputs of its own. */
struct mats {
    int n;
    float *a, *b, *c;
};

static int mats_make(struct mats *m, int n) {
    size_t nn = (size_t)n * (size_t)n;
    m->n = n;
    m->a = malloc(nn * sizeof *m->a);
    m->b = malloc(nn * sizeof *m->b);
    m->c = malloc(nn * sizeof *m->c);
    if (!m->a || !m->b || !m->c) {
        free(m->a);
        free(m->b);
        free(m->c);
        return -1;
    }
    clu_random_fill(m->a, nn, 2024, 0);
    clu_random_fill(m->b, nn, 2024, 1);
    return 0;
}

static void mats_free(struct mats *m) {
    free(m->a);
    free(m->b);
    free(m->c);
}

/* ---------------------------------------------------------------- a row at any size */

/* A row that can be timed at any valid size: `at` runs it at m->n either as a probe (its warm-up,
 * then one run whose seconds go to *probe_s) or whole (bench_repeat into *stats, the product
 * checked). 0, or -1 with why in note. */
struct sized_row {
    int (*at)(void *ctx, const struct mats *m, int whole, double *probe_s, struct clu_stats *stats,
              char *note, size_t note_size);
    void *ctx;
    int warmup; /* bench_repeat's warm-up runs in the whole timing */
    int step;   /* a smaller N is a multiple of this */
};

/* Time row at full->n, or, when that would take longer than the budget, at the smaller N
 * bench_plan_size gives, its times scaled by N^3 (measure.h). The note says why when not done. */
static void time_sized(const struct bench *b, const struct mats *full, const struct sized_row *row,
                       struct bench_figure *f) {
    int n = full->n, m = n, p = BENCH_PROBE_N / row->step * row->step;
    double probe_s = 0;
    if (p < row->step)
        p = row->step;
    int smallest = p;
    if (b->budget > 0 && p < n) {
        /* probe at growing sizes while a run there is short and the size fits the budget: small
         * sizes carry fixed costs (launches, too few work-items) that N^3 would blow up */
        for (;;) {
            struct mats small;
            if (mats_make(&small, p) != 0) {
                snprintf(f->note, sizeof f->note, "out of memory at N = %d", p);
                return;
            }
            int status = row->at(row->ctx, &small, 0, &probe_s, NULL, f->note, sizeof f->note);
            mats_free(&small);
            if (status != 0)
                return;
            m = bench_plan_size(n, p, probe_s, row->warmup, b->budget, row->step, smallest);
            int q = 2 * p / row->step * row->step;
            double ratio = (double)q / p;
            if (m == n || q >= n || q > m || probe_s * ratio * ratio * ratio > BENCH_PROBE_RUN)
                break;
            p = q;
        }
        if (m == 0) {
            snprintf(f->note, sizeof f->note,
                     "too slow to time here: one run at N = %d took %.1f s (--budget %.0f s)", p,
                     probe_s, b->budget);
            return;
        }
    }
    struct mats own, *at = (struct mats *)full;
    if (m != n) {
        if (mats_make(&own, m) != 0) {
            snprintf(f->note, sizeof f->note, "out of memory at N = %d", m);
            return;
        }
        at = &own;
    }
    if (row->at(row->ctx, at, 1, NULL, &f->s, f->note, sizeof f->note) == 0) {
        f->done = 1;
        f->timed_n = m;
        if (m != n) {
            bench_scale_stats(&f->s, n, m);
            f->full_s = bench_repeat_cost(probe_s * pow((double)n / p, 3), row->warmup);
        }
    }
    if (at == &own)
        mats_free(&own);
}

/* ---------------------------------------------------------------- the sequential baseline */

struct seq_ctx {
    int n;
    const float *a, *b;
    float *c;
};

/* The lecture's triple loop (clu_sequential_matmul), timed. */
static int run_sequential(void *ctx, double *seconds) {
    struct seq_ctx *s = ctx;
    double start = bench_now();
    clu_sequential_matmul(s->n, s->a, s->b, s->c);
    *seconds = bench_now() - start;
    return 0;
}

static int sequential_at(void *ctx, const struct mats *m, int whole, double *probe_s,
                         struct clu_stats *stats, char *note, size_t note_size) {
    (void)ctx;
    struct seq_ctx s = {m->n, m->a, m->b, m->c};
    if (!whole)
        return run_sequential(&s, probe_s);
    if (bench_repeat(run_sequential, &s, 1, stats) != 0 ||
        bench_check_product(m->n, m->a, m->b, m->c, note, note_size) != 0)
        return -1;
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

/* A kernel row built on one device, to be timed at any size. */
struct kernel_row {
    struct bench *b;
    struct clu_env *env;
    struct bench_row *r;
    cl_kernel kernel;
};

static int kernel_at(void *ctx, const struct mats *m, int whole, double *probe_s,
                     struct clu_stats *stats, char *note, size_t note_size) {
    struct kernel_row *kr = ctx;
    struct bench_row *r = kr->r;
    struct kernel_ctx k = {.env = kr->env};
    int n = m->n, status = -1;
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    cl_mem abc[3] = {NULL, NULL, NULL};
    if (grader_plan_launch(r->ex, kr->env, grader_square(n), &r->variant, &k.launch) != 0) {
        snprintf(note, note_size, "the device cannot take the work-group");
        return -1;
    }
    k.launch.kernel = kr->kernel;
    const float *hosts[2] = {m->a, m->b};
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 3 && err == CL_SUCCESS; i++)
        abc[i] = clCreateBuffer(kr->env->context,
                                i < 2 ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE,
                                bytes, i < 2 ? (void *)hosts[i] : NULL, &err);
    if (err == CL_SUCCESS)
        err = grader_set_args(r->ex, k.launch.kernel, grader_square(n), &r->variant, abc);
    if (err != CL_SUCCESS) {
        snprintf(note, note_size, "OpenCL error %s", clu_error_name(err));
    } else if (!whole) {
        /* a probe: one untimed launch first, where POCL generates code for the local size */
        double ignored;
        if (run_kernel(&k, &ignored) == 0 && run_kernel(&k, probe_s) == 0)
            status = 0;
        else
            snprintf(note, note_size, "a launch failed");
    } else if (bench_repeat(run_kernel, &k, 2, stats) == 0) {
        /* two warm-up launches: POCL generates code at the first enqueue of a local size */
        err = clEnqueueReadBuffer(kr->env->queue, abc[2], CL_TRUE, 0, bytes, m->c, 0, NULL, NULL);
        if (err == CL_SUCCESS && bench_check_product(n, m->a, m->b, m->c, note, note_size) == 0) {
            status = 0;
        } else {
            if (err != CL_SUCCESS)
                snprintf(note, note_size, "read back: %s", clu_error_name(err));
            bench_progress_clear(kr->b);
            fprintf(stderr, "bench: %s at N = %d: %s\n", r->name, n, note);
            kr->b->failures += !r->yours; /* (a student's wrong kernel is the table's news) */
        }
    } else {
        snprintf(note, note_size, "a launch failed");
    }
    for (int i = 0; i < 3; i++)
        if (abc[i])
            clReleaseMemObject(abc[i]);
    return status;
}

static int gcd(int a, int b) {
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The multiple every N of the row must be: BLOCK for a tile without tuning values (the block
 * sweep of 05 includes blocks that are not the table's), else the smallest size the table takes
 * (its multiple and the tuning values the row names in multiple_of); 0 when none up to 4096. */
static int row_multiple(const struct bench_row *r) {
    if (r->ex->shape == SHAPE_TILES && !r->ex->tuning[0].name)
        return r->block;
    struct grader_exercise built = *r->ex; /* with the values it is built with (a tuning file's) */
    if (r->variant.tuning == r->tuned.v)
        memcpy(built.tuning, r->tuned.v, sizeof built.tuning);
    for (int m = 1; m <= 4096 && (r->ex->max_n <= 0 || m <= r->ex->max_n); m++)
        if (grader_size_valid(&built, m))
            return m;
    return 0;
}

static void time_kernel(struct bench *b, struct clu_env *env, struct bench_row *r,
                        const struct mats *full, struct bench_figure *f) {
    int n = full->n, multiple = row_multiple(r);
    size_t max_group = clu_device_max_group(env);
    cl_ulong local_mem = 0;
    clGetDeviceInfo(env->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local_mem, &local_mem, NULL);
    char extensions[8192] = "";
    if (r->ex->needs_extension &&
        (clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions,
                         NULL) != CL_SUCCESS ||
         !grader_has_extension(extensions, r->ex->needs_extension))) {
        snprintf(f->note, sizeof f->note, "the device has no %s", r->ex->needs_extension);
        return;
    }
    if (r->ex->max_n > 0 && n > r->ex->max_n) {
        snprintf(f->note, sizeof f->note, "N above the exercise's limit of %d", r->ex->max_n);
        return;
    }
    if (multiple <= 0 || n % multiple != 0) {
        snprintf(f->note, sizeof f->note, "N not a multiple of %d", multiple);
        return;
    }
    if (r->ex->shape == SHAPE_TILES) {
        if ((size_t)r->block * (size_t)r->block > max_group) {
            snprintf(f->note, sizeof f->note, "work-group of %d exceeds the device's %zu",
                     r->block * r->block, max_group);
            return;
        }
        if (2 * sizeof(float) * (size_t)r->block * (size_t)r->block > local_mem) {
            snprintf(f->note, sizeof f->note, "tiles exceed the device's local memory");
            return;
        }
    }
    cl_int err;
    cl_program program = clu_build_file(env, r->kernel, r->options, &err);
    if (!program) {
        snprintf(f->note, sizeof f->note, "build failed (%s)", clu_error_name(err));
        return;
    }
    struct kernel_row kr = {b, env, r, clCreateKernel(program, r->ex->kernel, &err)};
    if (!kr.kernel) {
        snprintf(f->note, sizeof f->note, "OpenCL error %s", clu_error_name(err));
    } else {
        struct sized_row row = {kernel_at, &kr, 2,
                                BENCH_STEP / gcd(BENCH_STEP, multiple) * multiple};
        time_sized(b, full, &row, f);
        if (f->done)
            snprintf(f->note, sizeof f->note, "%.*s", (int)sizeof f->note - 1, r->options);
        clReleaseKernel(kr.kernel);
    }
    clReleaseProgram(program);
}

/* ---------------------------------------------------------------- devices */

int bench_find_devices(struct bench *b, const char *spec) {
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
        struct bench_device *d = &b->devices[b->device_count++];
        char driver[100] = "", version[200] = "";
        cl_device_type type = 0;
        clGetDeviceInfo(env.device, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
        clGetPlatformInfo(env.platform, CL_PLATFORM_VERSION, sizeof version, version, NULL);
        clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
        snprintf(d->name, sizeof d->name, "%s (%s)", env.device_name, env.platform_name);
        snprintf(d->device_name, sizeof d->device_name, "%s", env.device_name);
        snprintf(d->driver, sizeof d->driver, "driver %s, %s", driver, version);
        d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
        d->spec_index = i;
        clu_env_close(&env);
    }
    return b->device_count > 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- measuring everything */

/* Whether the host's rows are timed: their figure is shown in a CPU device's column only, so
 * with none (DEVICE=nvidia) the sequential loop would cost its minutes for nothing. */
static int host_timed(const struct bench *b) {
    for (int d = 0; d < b->device_count; d++)
        if (b->devices[d].is_cpu)
            return 1;
    return 0;
}

int bench_steps(const struct bench *b, int *step_n) {
    int count = 0;
    for (int si = 0; si < b->size_count; si++) {
        /* bench_measure_size's order: the host's rows, then each device's peak (at the first
         * size) and its other rows */
        for (int d = -1; d < b->device_count; d++) {
            if (d >= 0 && si == 0 && step_n)
                step_n[count] = 0; /* the peak: the same at every N (bench_eta) */
            count += d >= 0 && si == 0;
            for (int ri = 0; ri < b->row_count; ri++) {
                int host = strcmp(b->rows[ri].kind, "baseline") == 0;
                if (host != (d < 0) || (host && !host_timed(b)))
                    continue;
                if (step_n)
                    step_n[count] = b->sizes[si];
                count++;
            }
        }
    }
    return count;
}

/* What was timed, when it was not the row's N: said under the row's line. */
static void say_scaled(const struct bench_figure *f, int n) {
    if (!f->done || f->timed_n == n)
        return;
    char duration[48];
    bench_duration_text(duration, sizeof duration, f->full_s);
    printf("    timed at N = %d, scaled (at N = %d it would take about %s)\n", f->timed_n, n,
           duration);
}

void bench_measure_size(struct bench *b, int si) {
    int n = b->sizes[si];
    struct mats full;
    if (mats_make(&full, n) != 0) {
        fprintf(stderr, "bench: out of memory at N = %d\n", n);
        exit(2);
    }
    char what[300];
    for (int ri = 0; ri < b->row_count; ri++) {
        struct bench_row *r = &b->rows[ri];
        if (strcmp(r->kind, "baseline") == 0 && !host_timed(b)) {
            for (int d = 0; d < b->device_count; d++)
                snprintf(r->at[si][d].note, sizeof r->at[si][d].note, "host code");
        } else if (strcmp(r->kind, "baseline") == 0) {
            /* host code: one measurement, shown in every CPU device's column */
            struct bench_figure f = {0};
            struct sized_row row = {sequential_at, NULL, 1, BENCH_STEP};
            bench_progress_clear(b);
            printf("  N = %d  %s ...\n", n, r->name);
            fflush(stdout);
            snprintf(what, sizeof what, "N = %d, the host: %s", n, r->name);
            bench_progress_step(b, what);
            time_sized(b, &full, &row, &f);
            bench_progress_clear(b);
            if (f.done)
                snprintf(f.note, sizeof f.note, "cc -O2, i-j-k loop");
            else
                printf("    skipped: %s\n", f.note);
            say_scaled(&f, n);
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
        struct bench_device *dev = &b->devices[d];
        struct clu_env env;
        char index[16];
        snprintf(index, sizeof index, "%d", dev->spec_index);
        if (clu_env_open(&env, index) != 0)
            continue;
        if (!dev->peak_done) {
            bench_progress_clear(b);
            printf("  %s: measuring FP32 peak and bandwidth ...\n", dev->name);
            fflush(stdout);
            snprintf(what, sizeof what, "device %d: FP32 peak and bandwidth", d + 1);
            bench_progress_step(b, what);
            int status = bench_measure_peak(&env, b->peak_source, &dev->peak);
            bench_progress_clear(b);
            if (status != 0)
                printf("    peak: %s\n", dev->peak.why);
            dev->peak_done = 1;
        }
        for (int ri = 0; ri < b->row_count; ri++) {
            struct bench_row *r = &b->rows[ri];
            struct bench_figure *f = &r->at[si][d];
            char library[200] = "";
            if (strcmp(r->kind, "baseline") == 0)
                continue;
            bench_progress_clear(b);
            printf("  N = %d  %s  %s ...\n", n, dev->name, r->name);
            fflush(stdout);
            snprintf(what, sizeof what, "N = %d, device %d: %s", n, d + 1, r->name);
            bench_progress_step(b, what);
            if (strcmp(r->kind, "kernel") == 0) {
                time_kernel(b, &env, r, &full, f);
            } else if (!b->vendor) {
                snprintf(f->note, sizeof f->note, "vendor rows switched off");
            } else if (strcmp(r->key, "vendor:openblas") == 0 && !dev->is_cpu) {
                snprintf(f->note, sizeof f->note, "CPU library");
            } else if (strcmp(r->key, "vendor:cublas") == 0 &&
                       (dev->is_cpu || !strstr(dev->name, "NVIDIA"))) {
                snprintf(f->note, sizeof f->note, "NVIDIA GPUs only");
            } else {
                enum clu_vendor_id id = strcmp(r->key, "vendor:openblas") == 0  ? CLU_OPENBLAS
                                        : strcmp(r->key, "vendor:clblast") == 0 ? CLU_CLBLAST
                                                                                : CLU_CUBLAS;
                if (bench_vendor(id, &env, n, full.a, full.b, &f->s, library, sizeof library,
                                 f->note, sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "%s%s", id == CLU_CUBLAS ? "on " : "",
                             library);
                }
            }
            if (f->done && !f->timed_n)
                f->timed_n = n; /* vendor rows: always at N */
            bench_progress_clear(b);
            if (!f->done && f->note[0])
                printf("    skipped: %s\n", f->note);
            say_scaled(f, n);
        }
        clu_env_close(&env);
    }
    mats_free(&full);
}

void bench_count_traffic(struct bench *b) {
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/build", b->root);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/build/bench-traffic", b->root);
    mkdir(dir, 0755);
    for (int ri = 0; ri < b->row_count; ri++) {
        struct bench_row *r = &b->rows[ri];
        if (strcmp(r->kind, "kernel") != 0)
            continue;
        char work[PATH_MAX + 128], cache[PATH_MAX + 128];
        const char *path = r->kernel, *whose = r->yours ? "yours-" : "";
        snprintf(work, sizeof work, "%s/%s%s-%d", dir, whose, r->ex->id, r->block);
        snprintf(cache, sizeof cache, "%s/%s%s-%d.txt", dir, whose, r->ex->id, r->block);
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
        if (r->ex->needs_extension) { /* oclgrind has no extension: its run could only fail */
            snprintf(t->why, sizeof t->why, "oclgrind has no %s%s, which the kernel needs",
                     r->ex->needs_extension,
                     strcmp(r->ex->needs_extension, "cl_khr_subgroups") == 0 ? " (sub-groups)"
                                                                             : "");
            printf("  memory traffic of %s not counted: %s\n", r->name, t->why);
            continue;
        }
        printf("  counting memory traffic of %s under oclgrind (N = %d) ...\n", r->name, n);
        fflush(stdout);
        r->traffic_done =
            grader_traffic(b->self, r->ex, path, r->block, r->ex->tuning[0].name != NULL,
                           grader_square(n), work, NULL, t, NULL, NULL, NULL) == 0;
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
