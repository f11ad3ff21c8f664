/* clu_error.c - OpenCL status names and the check idiom used by all host code. */
#include "clu.h"

#include <stdio.h>
#include <stdlib.h>

/* from cl_ext.h (cl_khr_icd); the ICD loader returns it when no platform is installed */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#define NAME(code)                                                                                 \
    case code:                                                                                     \
        return #code

const char *clu_error_name(cl_int err) {
    switch (err) {
        NAME(CL_SUCCESS);
        NAME(CL_DEVICE_NOT_FOUND);
        NAME(CL_DEVICE_NOT_AVAILABLE);
        NAME(CL_COMPILER_NOT_AVAILABLE);
        NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE);
        NAME(CL_OUT_OF_RESOURCES);
        NAME(CL_OUT_OF_HOST_MEMORY);
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE);
        NAME(CL_MEM_COPY_OVERLAP);
        NAME(CL_IMAGE_FORMAT_MISMATCH);
        NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED);
        NAME(CL_BUILD_PROGRAM_FAILURE);
        NAME(CL_MAP_FAILURE);
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET);
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        NAME(CL_COMPILE_PROGRAM_FAILURE);
        NAME(CL_LINKER_NOT_AVAILABLE);
        NAME(CL_LINK_PROGRAM_FAILURE);
        NAME(CL_DEVICE_PARTITION_FAILED);
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        NAME(CL_INVALID_VALUE);
        NAME(CL_INVALID_DEVICE_TYPE);
        NAME(CL_INVALID_PLATFORM);
        NAME(CL_INVALID_DEVICE);
        NAME(CL_INVALID_CONTEXT);
        NAME(CL_INVALID_QUEUE_PROPERTIES);
        NAME(CL_INVALID_COMMAND_QUEUE);
        NAME(CL_INVALID_HOST_PTR);
        NAME(CL_INVALID_MEM_OBJECT);
        NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        NAME(CL_INVALID_IMAGE_SIZE);
        NAME(CL_INVALID_SAMPLER);
        NAME(CL_INVALID_BINARY);
        NAME(CL_INVALID_BUILD_OPTIONS);
        NAME(CL_INVALID_PROGRAM);
        NAME(CL_INVALID_PROGRAM_EXECUTABLE);
        NAME(CL_INVALID_KERNEL_NAME);
        NAME(CL_INVALID_KERNEL_DEFINITION);
        NAME(CL_INVALID_KERNEL);
        NAME(CL_INVALID_ARG_INDEX);
        NAME(CL_INVALID_ARG_VALUE);
        NAME(CL_INVALID_ARG_SIZE);
        NAME(CL_INVALID_KERNEL_ARGS);
        NAME(CL_INVALID_WORK_DIMENSION);
        NAME(CL_INVALID_WORK_GROUP_SIZE);
        NAME(CL_INVALID_WORK_ITEM_SIZE);
        NAME(CL_INVALID_GLOBAL_OFFSET);
        NAME(CL_INVALID_EVENT_WAIT_LIST);
        NAME(CL_INVALID_EVENT);
        NAME(CL_INVALID_OPERATION);
        NAME(CL_INVALID_GL_OBJECT);
        NAME(CL_INVALID_BUFFER_SIZE);
        NAME(CL_INVALID_MIP_LEVEL);
        NAME(CL_INVALID_GLOBAL_WORK_SIZE);
        NAME(CL_INVALID_PROPERTY);
        NAME(CL_INVALID_IMAGE_DESCRIPTOR);
        NAME(CL_INVALID_COMPILER_OPTIONS);
        NAME(CL_INVALID_LINKER_OPTIONS);
        NAME(CL_INVALID_DEVICE_PARTITION_COUNT);
        NAME(CL_PLATFORM_NOT_FOUND_KHR);
    default:
        return "unknown";
    }
}

/* The mistakes students make most often, each with the first thing to look at. */
static const char *hint_for(cl_int err) {
    switch (err) {
    case CL_INVALID_WORK_GROUP_SIZE:
        return "the local size must divide the global size in every dimension, its product "
               "must not exceed the device's max work-group size (see --list / clinfo), and a "
               "kernel declared with reqd_work_group_size takes exactly that local size";
    case CL_INVALID_KERNEL_ARGS:
        return "an argument of the kernel was never set with clSetKernelArg";
    case CL_INVALID_ARG_SIZE:
        return "the size passed to clSetKernelArg does not match the kernel's parameter type";
    case CL_INVALID_ARG_INDEX:
        return "argument indices count from 0 in the order of the kernel's parameters";
    case CL_INVALID_KERNEL_NAME:
        return "no __kernel function of that name in kernel.cl";
    case CL_OUT_OF_RESOURCES:
        return "often an out-of-bounds access in the kernel, or too much local/private memory";
    case CL_PLATFORM_NOT_FOUND_KHR:
        return "no OpenCL platform: install pocl-opencl-icd (CPU) or your GPU's OpenCL driver, "
               "then check with clinfo";
    default:
        return NULL;
    }
}

cl_int clu_report_error(cl_int err, const char *operation, const char *file, int line) {
    if (file) /* NULL: the operation names the student's code itself, not a line of ours */
        fprintf(stderr, "OpenCL error %s (%d) in %s at %s:%d\n", clu_error_name(err), (int)err,
                operation, file, line);
    else
        fprintf(stderr, "OpenCL error %s (%d) in %s\n", clu_error_name(err), (int)err, operation);
    const char *hint = hint_for(err);
    if (hint)
        fprintf(stderr, "  hint: %s\n", hint);
    return err;
}

void clu_check_(cl_int err, const char *operation, const char *file, int line) {
    if (err == CL_SUCCESS)
        return;
    clu_report_error(err, operation, file, line);
    exit(CLU_EXIT_OPENCL);
}
