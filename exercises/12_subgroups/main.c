/* main.c - 12_subgroups host program: C = A * B, each work-item computing a WPTM x WPTN block of
 * C in registers, the values of A shared across its sub-group by sub_group_broadcast instead of
 * local memory. Runs only where the device has cl_khr_subgroups; elsewhere it says "skipped".
 *
 * The shared driver in common/clu_mm.c does the rest (flags, device, build of kernel.cl with
 * -DTSN=... for every tuning value, random A and B, warm-up, timing, verification); this file
 * holds the two parts this step teaches, and the device check before them. Tuning values:
 * --define NAME=VALUE (the kernel's header states the rules they must meet).
 * Build and run: make && ./12_subgroups --n 1024 --device pocl --define WPTM=8    Grade: make grade
 */
#include "clu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contract: the kernel is mmul(const int N, const __global float *A, const __global float *B,
 * __global float *C); it uses no local memory, so there is no local-memory argument. Set its
 * four arguments, in that order, from mm->opt.n (an int) and the buffers mm->a, mm->b and
 * mm->c. Use clSetKernelArg and check every call (CLU_CHECK). */
static cl_int set_args(struct clu_mm *mm) {
    /* TODO(student) begin */
    (void)mm; /* stub: no arguments set yet */
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Contract: enqueue mm->kernel on mm->env.queue over a 2-D NDRange of {N/WPTN, N/WPTM}
 * work-items (dimension 0 runs along a row of C) in work-groups of {TSN/WPTN, 1}: a group is one
 * row of work-items that share the same WPTM rows of A. N = mm->opt.n, the tuning values from
 * clu_mm_define(mm, "TSN") etc. (the driver has checked that N is a multiple of TSN and WPTM;
 * the kernel's build checks the rest). If a group's TSN/WPTN work-items are more than
 * clu_device_max_group allows, enqueue nothing and return CL_INVALID_WORK_GROUP_SIZE (the driver
 * reports it). Otherwise hand back the launch's event in *done so the driver can time it, and
 * return the enqueue's status. */
static cl_int launch(struct clu_mm *mm, cl_event *done) {
    *done = NULL; /* stays NULL until the kernel is enqueued: the driver says "not launched" */
    /* TODO(student) begin */
    (void)mm; /* stub: nothing enqueued yet, so *done stays NULL */
    /* TODO(student) end */
    return CL_SUCCESS;
}

/* Whether the device of env lists cl_khr_subgroups among its extensions (a whole name of the
 * space-separated list, so that no longer name that starts with it counts). */
static int has_subgroups(const struct clu_env *env) {
    size_t size = 0;
    CLU_CHECK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
    char *list = calloc(size + 1, 1);
    if (!list) {
        fprintf(stderr, "out of host memory for the device's extensions\n");
        exit(2);
    }
    CLU_CHECK(clGetDeviceInfo(env->device, CL_DEVICE_EXTENSIONS, size, list, NULL));
    const char *name = "cl_khr_subgroups";
    size_t len = strlen(name);
    int found = 0;
    for (const char *p = strstr(list, name); p && !found; p = strstr(p + 1, name))
        found = (p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0');
    free(list);
    return found;
}

int main(int argc, char **argv) {
    /* the defaults, chosen by measurement (README: "What performance to expect") */
    static const struct clu_define tuning[] = {{"TSN", 128}, {"WPTM", 16}, {"WPTN", 8}, {NULL, 0}};
    static const char *const multiple_of[] = {"TSN", "WPTM", NULL}; /* N's steps */
    static const struct clu_mm_exercise exercise = {
        .title = "Sub-group broadcasts instead of local memory",
        .kernel_name = "mmul",
        .default_n = 1024,
        .tuning = tuning,
        .multiple_of = multiple_of,
        .set_args = set_args,
        .launch = launch,
    };
    /* The device check, before the driver builds the kernel: a device without sub-groups (an
     * NVIDIA GPU through NVIDIA's OpenCL, POCL before 4.0) cannot build it. The flags are read
     * here once for the device and again by the driver. */
    struct clu_options opt;
    clu_parse_options(&opt, argc, argv, exercise.default_n, exercise.title);
    if (!opt.list) {
        struct clu_env env;
        if (clu_env_open(&env, opt.device) != 0)
            return CLU_EXIT_OPENCL;
        int ok = has_subgroups(&env);
        if (!ok)
            printf("skipped: %s has no sub-groups (cl_khr_subgroups)\n", env.device_name);
        clu_env_close(&env);
        if (!ok)
            return 0;
    }
    return clu_mm_main(argc, argv, &exercise);
}
