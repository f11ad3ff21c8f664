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

int grader_plan_launch(const struct grader_exercise *ex, const struct clu_env *env, int n,
                       int block, struct grader_launch *l) {
    size_t max_group = clu_device_max_group(env), un = (size_t)n;
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
        l->local[0] = clu_divisor_at_most(un, max_group < GRADER_GROUP_LIMIT ? max_group
                                                                             : GRADER_GROUP_LIMIT);
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
    }
    return 0;
}

cl_int grader_set_args(const struct grader_exercise *ex, cl_kernel kernel, int n, int block,
                       cl_mem *abc) {
    for (cl_uint i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++) {
        cl_int err = CL_SUCCESS, as_int = n;
        cl_uint as_uint = (cl_uint)n;
        size_t tile = sizeof(float) * (size_t)block * (size_t)block;
        switch (ex->args[i]) {
        case ARG_END:
            break;
        case ARG_N:
            err = clSetKernelArg(kernel, i, sizeof as_int, &as_int);
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
            char what[64];
            snprintf(what, sizeof what, "clSetKernelArg(argument %u)", i);
            clu_report_error(err, what, __FILE__, __LINE__);
            fprintf(stderr, "  the kernel's parameters must be exactly the ones the exercise "
                            "states, in that order\n");
            return err;
        }
    }
    return CL_SUCCESS;
}
