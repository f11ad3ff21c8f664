/* cuda_driver.h - the CUDA driver (libcuda.so.1) as the CUDA harness uses it, opened with dlopen:
 * the grader is built with a C compiler on machines without CUDA, so nothing needs CUDA's headers
 * or libraries at build time. Only the few calls the harness makes are declared, with the types
 * and error codes of cuda.h (CUDA 13, stable since CUDA 8).
 */
#ifndef GRADER_CHILD_CUDA_DRIVER_H
#define GRADER_CHILD_CUDA_DRIVER_H

#include <stddef.h>

typedef int cu_result;             /* CUresult: 0 is CUDA_SUCCESS */
typedef int cu_device;             /* CUdevice: an ordinal */
typedef unsigned long long cu_ptr; /* CUdeviceptr on a 64-bit host */
typedef void *cu_handle;           /* CUcontext, CUmodule, CUfunction, CUevent, CUstream */

/* CUresult values the harness tells apart */
#define CU_ERROR_INVALID_IMAGE          200
#define CU_ERROR_NO_BINARY_FOR_GPU      209
#define CU_ERROR_JIT_COMPILER_NOT_FOUND 221
#define CU_ERROR_UNSUPPORTED_PTX        222
#define CU_ERROR_JIT_DISABLED           223
#define CU_ERROR_NOT_FOUND              500
#define CU_ERROR_ILLEGAL_ADDRESS        700
#define CU_ERROR_LAUNCH_OUT_OF_RES      701
#define CU_ERROR_INVALID_ADDRESS_SPACE  717
#define CU_ERROR_LAUNCH_FAILED          719
#define CU_ATTR_CAPABILITY_MAJOR        75
#define CU_ATTR_CAPABILITY_MINOR        76

/* The driver's calls, all found by cuda_open_device, but for the context's (one way or the other,
 * which it alone uses). */
struct cuda_driver {
    cu_result (*init)(unsigned int flags);
    cu_result (*driver_version)(int *version);
    cu_result (*device_count)(int *count);
    cu_result (*device_get)(cu_device *device, int ordinal);
    cu_result (*device_name)(char *name, int length, cu_device device);
    cu_result (*device_attribute)(int *value, int attribute, cu_device device);
    cu_result (*primary_retain)(cu_handle *context, cu_device device); /* optional */
    cu_result (*set_current)(cu_handle context);                       /* optional */
    cu_result (*ctx_create)(cu_handle *context, unsigned int flags, cu_device device); /* else */
    cu_result (*module_load_data)(cu_handle *module, const void *image);
    cu_result (*module_function)(cu_handle *function, cu_handle module, const char *name);
    cu_result (*mem_alloc)(cu_ptr *pointer, size_t bytes);
    cu_result (*copy_to_device)(cu_ptr to, const void *from, size_t bytes);
    cu_result (*copy_to_host)(void *to, cu_ptr from, size_t bytes);
    cu_result (*memset_32)(cu_ptr to, unsigned int value, size_t count);
    cu_result (*launch)(cu_handle function, unsigned int grid_x, unsigned int grid_y,
                        unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                        unsigned int block_z, unsigned int shared_bytes, cu_handle stream,
                        void **params, void **extra);
    cu_result (*synchronize)(void);
    cu_result (*event_create)(cu_handle *event, unsigned int flags);
    cu_result (*event_record)(cu_handle event, cu_handle stream);
    cu_result (*event_synchronize)(cu_handle event);
    cu_result (*event_elapsed)(float *ms, cu_handle start, cu_handle end);
    cu_result (*error_name)(cu_result error, const char **name);
};

extern struct cuda_driver cu; /* one driver per process: cu.launch(...) reads like cuLaunch */

/* The idiom of the workbook: on failure one line with the error's name and the operation, a hint
 * for the errors a kernel causes, and exit with status. */
void cuda_check(cu_result err, const char *operation, int status);

/* Open the driver, cuInit and make the first device's context current in this thread; exits
 * CUDA_HARNESS_NO_DEVICE with the reason on stderr where there is no driver or device. */
cu_device cuda_open_device(void);

#endif
