/* cuda_driver.c - the CUDA driver opened with dlopen (cuda_driver.h): its calls found by name, the
 * names of its errors, and the first device made current. */
#define _GNU_SOURCE /* dlfcn.h in full under -std=c11 */
#include "child/cuda_driver.h"
#include "exercise/protocol.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct cuda_driver cu;

/* The driver's symbol `name`, else `older` (NULL: none); NULL if neither is there. */
static void *symbol(void *lib, const char *name, const char *older) {
    void *p = dlsym(lib, name);
    return p || !older ? p : dlsym(lib, older);
}

/* Open libcuda and find every call; -1 with the reason on stderr when the driver is missing. */
static int load_driver(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "no CUDA driver: %s\n", dlerror());
        return -1;
    }
#define FIND(field, name, older) (cu.field = (__typeof__(cu.field))symbol(lib, name, older))
    FIND(init, "cuInit", NULL);
    FIND(driver_version, "cuDriverGetVersion", NULL);
    FIND(device_count, "cuDeviceGetCount", NULL);
    FIND(device_get, "cuDeviceGet", NULL);
    FIND(device_name, "cuDeviceGetName", NULL);
    FIND(device_attribute, "cuDeviceGetAttribute", NULL);
    FIND(primary_retain, "cuDevicePrimaryCtxRetain", NULL);
    FIND(set_current, "cuCtxSetCurrent", NULL);
    FIND(ctx_create, "cuCtxCreate_v2", "cuCtxCreate");
    FIND(module_load_data, "cuModuleLoadData", NULL);
    FIND(module_function, "cuModuleGetFunction", NULL);
    FIND(mem_alloc, "cuMemAlloc_v2", NULL);
    FIND(copy_to_device, "cuMemcpyHtoD_v2", NULL);
    FIND(copy_to_host, "cuMemcpyDtoH_v2", NULL);
    FIND(memset_32, "cuMemsetD32_v2", NULL);
    FIND(launch, "cuLaunchKernel", NULL);
    FIND(synchronize, "cuCtxSynchronize", NULL);
    FIND(event_create, "cuEventCreate", NULL);
    FIND(event_record, "cuEventRecord", NULL);
    FIND(event_synchronize, "cuEventSynchronize", NULL);
    FIND(event_elapsed, "cuEventElapsedTime_v2", "cuEventElapsedTime");
    FIND(error_name, "cuGetErrorName", NULL);
#undef FIND
    int have_context = (cu.primary_retain && cu.set_current) || cu.ctx_create;
    if (!cu.init || !cu.driver_version || !cu.device_count || !cu.device_get || !cu.device_name ||
        !cu.device_attribute || !have_context || !cu.module_load_data || !cu.module_function ||
        !cu.mem_alloc || !cu.copy_to_device || !cu.copy_to_host || !cu.memset_32 || !cu.launch ||
        !cu.synchronize || !cu.event_create || !cu.event_record || !cu.event_synchronize ||
        !cu.event_elapsed || !cu.error_name) {
        fprintf(stderr, "no usable CUDA driver: libcuda lacks calls the grader needs (a driver "
                        "older than CUDA 8?)\n");
        return -1;
    }
    return 0;
}

static const char *error_name(cu_result err) {
    const char *name = NULL;
    if (cu.error_name(err, &name) != 0 || !name)
        name = "an unknown CUDA error";
    return name;
}

void cuda_check(cu_result err, const char *operation, int status) {
    if (err == 0)
        return;
    fprintf(stderr, "CUDA error %s (%d) in %s\n", error_name(err), err, operation);
    if (err == CU_ERROR_ILLEGAL_ADDRESS || err == CU_ERROR_INVALID_ADDRESS_SPACE ||
        err == CU_ERROR_LAUNCH_FAILED)
        fprintf(stderr, "hint: a thread read or wrote outside A, B or C (or outside its "
                        "__shared__ tiles): check the indices\n");
    else if (err == CU_ERROR_LAUNCH_OUT_OF_RES)
        fprintf(stderr, "hint: the kernel needs more registers or shared memory than one block "
                        "of threads can have\n");
    exit(status);
}

cu_device cuda_open_device(void) {
    if (load_driver() != 0)
        exit(CUDA_HARNESS_NO_DEVICE);
    cuda_check(cu.init(0), "cuInit (no NVIDIA GPU, or its driver is not working)",
               CUDA_HARNESS_NO_DEVICE);
    int count = 0;
    cuda_check(cu.device_count(&count), "cuDeviceGetCount", CUDA_HARNESS_NO_DEVICE);
    if (count < 1) {
        fprintf(stderr, "the CUDA driver sees no device\n");
        exit(CUDA_HARNESS_NO_DEVICE);
    }
    cu_device device;
    cu_handle context;
    cuda_check(cu.device_get(&device, 0), "cuDeviceGet", CUDA_HARNESS_NO_DEVICE);
    if (cu.primary_retain && cu.set_current) { /* the context the runtime API would use */
        cuda_check(cu.primary_retain(&context, device), "cuDevicePrimaryCtxRetain",
                   CUDA_HARNESS_NO_DEVICE);
        cuda_check(cu.set_current(context), "cuCtxSetCurrent", CUDA_HARNESS_NO_DEVICE);
    } else {
        cuda_check(cu.ctx_create(&context, 0, device), "cuCtxCreate", CUDA_HARNESS_NO_DEVICE);
    }
    return device;
}
