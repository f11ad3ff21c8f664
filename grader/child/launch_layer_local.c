/* launch_layer_local.c - the grader's OpenCL layer asks the driver whether a launch needs more
 * local memory than the device has (launch_layer_driver.h). */
#include "child/launch_layer_driver.h"

int layer_local_over(cl_command_queue queue, cl_kernel kernel, cl_ulong *needs, cl_ulong *has) {
    const struct _cl_icd_dispatch *d = layer_dispatch(kernel);
    cl_device_id device = NULL;
    cl_device_type type = 0;
    *needs = *has = 0;
    return queue && d && d->clGetCommandQueueInfo && d->clGetDeviceInfo &&
           d->clGetKernelWorkGroupInfo &&
           d->clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof device, &device, NULL) ==
               CL_SUCCESS &&
           d->clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
           !(type & CL_DEVICE_TYPE_GPU) &&
           d->clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof *has, has, NULL) ==
               CL_SUCCESS &&
           d->clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof *needs,
                                       needs, NULL) == CL_SUCCESS &&
           *has > 0 && *needs > *has;
}
