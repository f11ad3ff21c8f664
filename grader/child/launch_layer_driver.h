/* launch_layer_driver.h - what the grader's OpenCL layer (launch_layer.c) asks of the driver
 * itself, through its dispatch table: the guard zones around a host program's buffers
 * (launch_layer_guards.c) and a launch's local memory against the device's
 * (launch_layer_local.c). Within the layer's module only (its symbols are hidden). */
#ifndef CHILD_LAUNCH_LAYER_DRIVER_H
#define CHILD_LAUNCH_LAYER_DRIVER_H

#include "clu.h" /* CLU_PAST_END_BITS, and CL/cl.h at the lecture's level */

#include <CL/cl_icd.h>
#include <stddef.h>

/* A buffer of the program's that is a sub-buffer of the layer's, with guard zones of guard bytes
 * before and after its bytes (LAYER_GUARD_BYTES in protocol.h); sides already reported. */
struct guarded {
    cl_mem parent; /* NULL: no guard zones (its own host memory, or the layer could not) */
    size_t guard, bytes;
    cl_mem_flags host; /* the program's host access (CL_MEM_HOST_*), its buffer's alone */
    int reported[2];
};

typedef cl_mem(CL_API_CALL *create_buffer_fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);

/* The driver's dispatch table, which every ICD object begins with (the loader dispatches so):
 * the layer imports no OpenCL function of its own. NULL for NULL. */
const struct _cl_icd_dispatch *layer_dispatch(const void *object);

/* The program's buffer of bytes, made with real (the driver's clCreateBuffer), as a sub-buffer
 * of a larger one inside guard zones, its guards into *g; NULL where the layer cannot (the
 * caller then makes the buffer as asked). */
cl_mem layer_guarded_buffer(create_buffer_fn real, cl_context context, cl_mem_flags flags,
                            size_t bytes, void *host, struct guarded *g);

/* Whether a launch with this wait list can be waited for: none of its events is a user event
 * still unset (which only the program can set, later: a blocking read would hang it). What it
 * cannot see: a command the launch waits on some other way (one before it on an in-order queue,
 * or an event in the list) that itself waits on such a user event, set by the program only after
 * the launch; that program hangs in the layer's read. No exercise's host program uses user
 * events; a read that waits on the launch with a callback instead would close it. */
int layer_can_wait(cl_uint wait_count, const cl_event *wait);

/* Whether a launch's event done has ended, asked without waiting: 1 complete, -1 ended in an
 * error (or its state cannot be told: it cannot be waited on either), 0 not yet. A launch that
 * layer_can_wait refused is read back once this says it ended. */
int layer_event_ended(cl_event done);

/* A queue of the layer's own on context's device, for a launch's guards read back after it ended
 * (NULL where the driver refuses one): a read on the program's queue would wait behind whatever
 * the program enqueued since, which may wait on a user event the program has not set. */
cl_command_queue layer_queue_apart(cl_context context, cl_device_id device);

/* Floats of g's guard before (side 0) or after (1) its buffer that are no longer the pattern,
 * read back with a blocking read on queue after done (NULL: none); 0 where intact, or where it
 * cannot be read. */
size_t layer_guard_read(cl_command_queue queue, cl_event done, const struct guarded *g, int side);

/* The program's sub-buffer of g's buffer (flags, region in) as one of the layer's buffer around
 * it (*out_flags, *out): the host access the program's buffer has where flags name none; -1 where
 * OpenCL refuses it (CL_INVALID_VALUE): a region past the buffer's end, or host access the
 * buffer's excludes. */
int layer_sub_region(const struct guarded *g, cl_mem_flags flags, const cl_buffer_region *in,
                     cl_mem_flags *out_flags, cl_buffer_region *out);

/* Whether a launch of kernel on queue's device needs more local memory than the device has, on a
 * device that is no GPU (some GPU drivers run past the figure they report: the launch decides
 * there); into *needs and *has. POCL's CPU device asserts in such a launch (SIGABRT in
 * pthread_utils.c), which reads as a crash of anything but the kernel: the layer fails the launch
 * as OpenCL says it fails (CL_OUT_OF_RESOURCES) and tells the grader why. kernel is one the layer
 * saw created. */
int layer_local_over(cl_command_queue queue, cl_kernel kernel, cl_ulong *needs, cl_ulong *has);

#endif
