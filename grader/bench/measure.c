/* measure.c - the measuring of `grader --bench`: the repeat protocol, the sequential loop on the
 * host, each reference kernel on each device exactly as the grader launches it (one definition of
 * each launch, in harness.c), the vendor SGEMMs, the devices' peaks and the kernels' memory
 * traffic. Builds and first launches stay outside every timed region; each figure is the median
 * of repeats.
 */
#define _DEFAULT_SOURCE /* clock_gettime */
#include "bench/measure.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

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

static void time_kernel(struct bench *b, struct clu_env *env, struct bench_row *r, int n,
                        const float *a, const float *b_host, float *c, struct bench_figure *f) {
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
    if (r->ex->tuning[0].name && !grader_size_valid(r->ex, n)) {
        snprintf(f->note, sizeof f->note, "N not a multiple of the tiles");
        return;
    }
    struct grader_variant variant = grader_variant_of(r->ex, r->block, 0);
    char path[PATH_MAX], options[400] = "";
    snprintf(path, sizeof path, "%s/solutions/%s/kernel.cl", b->root, r->ex->id);
    grader_build_options(&variant, options, sizeof options);
    cl_int err;
    cl_program program = clu_build_file(env, path, options, &err);
    if (!program) {
        snprintf(f->note, sizeof f->note, "build failed (%s)", clu_error_name(err));
        return;
    }
    struct kernel_ctx k = {.env = env};
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    cl_mem abc[3] = {NULL, NULL, NULL};
    if (grader_plan_launch(r->ex, env, grader_square(n), &variant, &k.launch) != 0) {
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
        err = grader_set_args(r->ex, k.launch.kernel, grader_square(n), &variant, abc);
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
        snprintf(d->driver, sizeof d->driver, "driver %s, %s", driver, version);
        d->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
        d->spec_index = i;
        clu_env_close(&env);
    }
    return b->device_count > 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- measuring everything */

void bench_measure_size(struct bench *b, int si) {
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
        struct bench_row *r = &b->rows[ri];
        if (strcmp(r->kind, "baseline") == 0) {
            /* host code: one measurement, shown in every CPU device's column */
            struct bench_figure f = {0};
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
        struct bench_device *dev = &b->devices[d];
        struct clu_env env;
        char index[16];
        snprintf(index, sizeof index, "%d", dev->spec_index);
        if (clu_env_open(&env, index) != 0)
            continue;
        if (!dev->peak_done) {
            printf("  %s: measuring FP32 peak and bandwidth ...\n", dev->name);
            fflush(stdout);
            if (bench_measure_peak(&env, b->peak_source, &dev->peak) != 0)
                printf("    peak: %s\n", dev->peak.why);
            dev->peak_done = 1;
        }
        for (int ri = 0; ri < b->row_count; ri++) {
            struct bench_row *r = &b->rows[ri];
            struct bench_figure *f = &r->at[si][d];
            char library[200] = "";
            if (strcmp(r->kind, "baseline") == 0)
                continue;
            printf("  N = %d  %s  %s ...\n", n, dev->name, r->name);
            fflush(stdout);
            if (strcmp(r->kind, "kernel") == 0) {
                time_kernel(b, &env, r, n, a, bm, c, f);
            } else if (!b->vendor) {
                snprintf(f->note, sizeof f->note, "vendor rows switched off");
            } else if (strcmp(r->key, "vendor:openblas") == 0) {
                if (!dev->is_cpu)
                    snprintf(f->note, sizeof f->note, "CPU library");
                else if (bench_openblas(n, a, bm, &f->s, library, sizeof library, f->note,
                                        sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "%s", library);
                }
            } else if (strcmp(r->key, "vendor:clblast") == 0) {
                if (bench_clblast(&env, n, a, bm, &f->s, library, sizeof library, f->note,
                                  sizeof f->note) == 0) {
                    f->done = 1;
                    snprintf(f->note, sizeof f->note, "%s", library);
                }
            } else if (strcmp(r->key, "vendor:cublas") == 0) {
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
            grader_traffic(b->self, r->ex, path, r->block, r->ex->tuning[0].name != NULL,
                           grader_square(n), work, t, NULL, NULL, NULL) == 0;
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
