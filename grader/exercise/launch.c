/* launch.c - the launch geometry of a table row: the NDRange, the local size and the kernel's
 * arguments, as the harness child and the benchmark launch every exercise. */
#include "exercise/exercise.h"

#include <stdio.h>
#include <string.h>

cl_int grader_enqueue(void *ctx, cl_command_queue queue, cl_event *done) {
    struct grader_launch *l = ctx;
    return clEnqueueNDRangeKernel(queue, l->kernel, l->dims, NULL, l->global,
                                  l->has_local ? l->local : NULL, 0, NULL, done);
}

/* SHAPE_C_TILES: C's tile per group and each work-item's share, from the variant's values. -1
 * with a message when they do not fit together (a share that does not divide its tile). */
static int c_tiles(const struct grader_exercise *ex, struct grader_size s,
                   const struct grader_variant *v, struct grader_launch *l) {
    size_t extent[2] = {(size_t)s.n, (size_t)s.m}; /* dimension 0 runs along a row of C */
    for (int d = 0; d < 2; d++) {
        int tile = grader_variant_value(v, ex->c_tile[d]);
        int share = ex->per_item[d] ? grader_variant_value(v, ex->per_item[d]) : 1;
        if (tile < 1 || share < 1 || tile % share != 0) {
            fprintf(stderr, "the tuning values do not fit: %s = %d is not a multiple of %s = %d\n",
                    ex->c_tile[d] ? ex->c_tile[d] : "?", tile,
                    ex->per_item[d] ? ex->per_item[d] : "1", share);
            return -1;
        }
        l->local[d] = (size_t)(tile / share);
        l->global[d] = clu_round_up(extent[d], (size_t)tile) / (size_t)share;
    }
    return 0;
}

size_t grader_rows_group(int n, size_t max_group) {
    /* at most half of N: two work-groups at least, so that a kernel right only in work-group 0
     * (a get_global_id where get_local_id belongs) is wrong at every size, the memory check's
     * too */
    size_t limit = max_group < GRADER_GROUP_LIMIT ? max_group : GRADER_GROUP_LIMIT;
    size_t half = n > 1 ? (size_t)n / 2 : 1;
    return clu_divisor_at_most(n > 0 ? (size_t)n : 1, limit < half ? limit : half);
}

int grader_plan_launch(const struct grader_exercise *ex, const struct clu_env *env,
                       struct grader_size s, const struct grader_variant *v,
                       struct grader_launch *l) {
    /* without a device (env NULL) only the geometry: no limit on the work-group */
    size_t max_group = env ? clu_device_max_group(env) : (size_t)-1, un = (size_t)s.n;
    int block = v->block;
    memset(l, 0, sizeof *l);
    l->dims = 1;
    l->global[0] = l->global[1] = un;
    switch (ex->shape) {
    case SHAPE_VECTOR:
    case SHAPE_ROWS:
        break;
    case SHAPE_ELEMENTS:
        l->dims = 2;
        break;
    case SHAPE_ROWS_GROUPED:
        l->has_local = 1;
        l->local[0] = grader_rows_group(s.n, max_group);
        break;
    case SHAPE_TILES:
        l->dims = 2;
        l->has_local = 1;
        l->local[0] = l->local[1] = (size_t)block;
        if ((size_t)block * (size_t)block > max_group) {
            fprintf(stderr, "the device takes work-groups of at most %zu, BLOCK %d needs %d\n",
                    max_group, block, block * block);
            return -1;
        }
        break;
    case SHAPE_C_TILES:
        l->dims = 2;
        l->has_local = 1;
        if (c_tiles(ex, s, v, l) != 0)
            return -1;
        if (l->local[0] * l->local[1] > max_group) {
            char values[200];
            grader_build_options(v, values, sizeof values);
            fprintf(stderr, "the device takes work-groups of at most %zu, %s needs %zu x %zu\n",
                    max_group, values, l->local[0], l->local[1]);
            return -1;
        }
        break;
    }
    return 0;
}

/* One parameter as the exercise's skeleton declares it (its names: the student's may differ). */
static const char *declaration(const struct grader_exercise *ex, int i) {
    switch (ex->args[i]) {
    case ARG_END:
        break;
    case ARG_N:
        return "const int N";
    case ARG_M:
        return "const int M";
    case ARG_K:
        return "const int K";
    case ARG_COUNT:
        return "const unsigned int count";
    case ARG_A:
        return ex->is_vector      ? "__global const float *a"
               : ex->const_inputs ? "const __global float *A"
                                  : "__global float *A";
    case ARG_B:
        return ex->is_vector      ? "__global const float *b"
               : ex->const_inputs ? "const __global float *B"
                                  : "__global float *B";
    case ARG_C:
        return ex->is_vector ? "__global float *c" : "__global float *C";
    case ARG_LOCAL_ROW:
        return "__local float *Bwrk";
    case ARG_LOCAL_TILE: /* the first tile is A's, the second B's */
        return i > 0 && ex->args[i - 1] == ARG_LOCAL_TILE ? "__local float *Bwrk"
                                                          : "__local float *Awrk";
    }
    return "";
}

void grader_arg_name(const struct grader_exercise *ex, int i, char *buf, size_t size) {
    const char *d = i >= 0 && i < GRADER_MAX_ARGS ? declaration(ex, i) : "";
    const char *name = d + strlen(d);
    while (name > d && name[-1] != ' ' && name[-1] != '*')
        name--;
    snprintf(buf, size, "%s", name);
}

static int arg_count(const struct grader_exercise *ex) {
    int count = 0;
    while (count < GRADER_MAX_ARGS && ex->args[count] != ARG_END)
        count++;
    return count;
}

void grader_signature(const struct grader_exercise *ex, char *buf, size_t size) {
    int used = snprintf(buf, size, "__kernel void %s(", ex->kernel ? ex->kernel : "?");
    for (int i = 0; i < arg_count(ex) && used > 0 && (size_t)used < size; i++)
        used +=
            snprintf(buf + used, size - (size_t)used, "%s%s", i ? ", " : "", declaration(ex, i));
    if (used > 0 && (size_t)used < size)
        snprintf(buf + used, size - (size_t)used, ")");
}

/* The student's parameter list against the row's, on stderr: what is wrong (what), then the
 * signature to copy. One message for a parameter too many, too few or of the wrong kind,
 * whichever OpenCL call would have noticed it. */
static void report_parameters(const struct grader_exercise *ex, const char *what) {
    char signature[400];
    grader_signature(ex, signature, sizeof signature);
    fprintf(stderr, "%s; its parameters must be exactly these, in this order:\n  %s\n", what,
            signature);
}

cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, struct grader_size s,
                       const struct grader_variant *v, cl_mem *abc) {
    int n = s.n, block = v->block;
    /* a count that differs is said as one: OpenCL would name a wrong size at the first
     * parameter that shifted (one too few), or an unset one only at the launch (one too many) */
    cl_uint declared = 0;
    cl_int err = clGetKernelInfo(kernel, CL_KERNEL_NUM_ARGS, sizeof declared, &declared, NULL);
    if (err == CL_SUCCESS && declared != (cl_uint)arg_count(ex)) {
        char what[200];
        int passed = arg_count(ex);
        snprintf(what, sizeof what,
                 "the kernel %s declares %u parameter%s, but this exercise passes it %d "
                 "argument%s",
                 ex->kernel, declared, declared == 1 ? "" : "s", passed, passed == 1 ? "" : "s");
        report_parameters(ex, what);
        return CL_INVALID_KERNEL_ARGS;
    }
    for (cl_uint i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++) {
        cl_int as_int = n;
        cl_uint as_uint = (cl_uint)n;
        size_t tile = sizeof(float) * (size_t)block * (size_t)block;
        err = CL_SUCCESS;
        switch (ex->args[i]) {
        case ARG_END:
            break;
        case ARG_N:
            err = clSetKernelArg(kernel, i, sizeof as_int, &as_int);
            break;
        case ARG_M:
            err = clSetKernelArg(kernel, i, sizeof s.m, &s.m);
            break;
        case ARG_K:
            err = clSetKernelArg(kernel, i, sizeof s.k, &s.k);
            break;
        case ARG_COUNT:
            err = clSetKernelArg(kernel, i, sizeof as_uint, &as_uint);
            break;
        case ARG_A:
        case ARG_B:
        case ARG_C:
            err = clSetKernelArg(kernel, i, sizeof(cl_mem), &abc[ex->args[i] - ARG_A]);
            break;
        case ARG_LOCAL_ROW:
            err = clSetKernelArg(kernel, i, sizeof(float) * (size_t)n, NULL);
            break;
        case ARG_LOCAL_TILE:
            err = clSetKernelArg(kernel, i, tile, NULL);
            break;
        }
        if (err != CL_SUCCESS) {
            char what[200];
            snprintf(what, sizeof what,
                     "the kernel %s's parameter %u (counting from 1) does not take what this "
                     "exercise passes there, %s (clSetKernelArg: %s)",
                     ex->kernel, i + 1, declaration(ex, (int)i), clu_error_name(err));
            report_parameters(ex, what);
            return err;
        }
    }
    return CL_SUCCESS;
}

int grader_has_extension(const char *extensions, const char *name) {
    size_t length = strlen(name);
    for (const char *p = extensions; p && (p = strstr(p, name)) != NULL; p += length)
        if ((p == extensions || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0'))
            return 1;
    return 0;
}
