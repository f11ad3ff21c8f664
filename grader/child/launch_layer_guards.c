/* launch_layer_guards.c - the grader's OpenCL layer's guard zones (launch_layer_driver.h): a
 * program's buffer as a sub-buffer of a larger one, the guards filled with the harness's
 * CLU_PAST_END_BITS, and read back. Nothing here touches the layer's tables
 * (launch_layer_state.h): launch_layer_buffers.c keeps which buffer has which guards. */
#include "child/launch_layer_driver.h"
#include "exercise/protocol.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const struct _cl_icd_dispatch *layer_dispatch(const void *object) {
    return object ? *(const struct _cl_icd_dispatch *const *)object : NULL;
}

/* n bytes of the guard's pattern, CLU_PAST_END_BITS from the first byte on. (Not clu.h's
 * clu_fill_past_end nor check.c's grader_input_guard_damage: the layer's module links libc
 * alone, and the guard after a buffer of an odd byte count starts off a float's alignment.) */
static void fill_guard(unsigned char *at, size_t n) {
    const uint32_t bits = CLU_PAST_END_BITS;
    for (size_t i = 0; i < n; i++)
        at[i] = ((const unsigned char *)&bits)[i % sizeof bits];
}

/* Floats of n bytes read back that are no longer the pattern (4-byte groups: a store). */
static size_t guard_changed(const unsigned char *got, size_t n) {
    const uint32_t bits = CLU_PAST_END_BITS;
    size_t changed = 0;
    for (size_t i = 0; i < n; i += sizeof bits) {
        size_t w = n - i < sizeof bits ? n - i : sizeof bits;
        changed += memcmp(got + i, &bits, w) != 0;
    }
    return changed;
}

/* The guard's bytes for a context: LAYER_GUARD_BYTES rounded up to the largest base address
 * alignment of its devices (a sub-buffer's origin must be aligned), 0 where it cannot be told. */
static size_t guard_bytes(cl_context context) {
    const struct _cl_icd_dispatch *d = layer_dispatch(context);
    cl_device_id devices[16];
    size_t got = 0, guard = LAYER_GUARD_BYTES;
    if (!d || !d->clGetContextInfo || !d->clGetDeviceInfo ||
        d->clGetContextInfo(context, CL_CONTEXT_DEVICES, sizeof devices, devices, &got) !=
            CL_SUCCESS)
        return 0;
    for (size_t i = 0; i < got / sizeof devices[0]; i++) {
        cl_uint bits = 0;
        if (d->clGetDeviceInfo(devices[i], CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits,
                               NULL) != CL_SUCCESS ||
            bits == 0)
            return 0;
        size_t align = bits / 8 ? bits / 8 : 1;
        guard = (guard + align - 1) / align * align;
    }
    return got ? guard : 0;
}

/* The program's buffer of bytes as a sub-buffer of a larger one of the layer's, the guards around
 * it filled (the whole made from one host copy: no queue is at hand here). NULL where the layer
 * cannot (the caller then makes the buffer as asked): its own host memory (CL_MEM_USE_HOST_PTR),
 * a call OpenCL fails anyway (a host pointer that does not fit the flags, host access flags that
 * exclude each other, which a driver's clCreateSubBuffer might not check), more than GUARDED_MAX
 * bytes (the copy doubles them for a moment), or the driver refuses. */
#define GUARDED_MAX ((size_t)256 << 20)
#define HOST_ACCESS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
cl_mem layer_guarded_buffer(create_buffer_fn real, cl_context context, cl_mem_flags flags,
                            size_t bytes, void *host, struct guarded *g) {
    const struct _cl_icd_dispatch *d = layer_dispatch(context);
    int copy = (flags & CL_MEM_COPY_HOST_PTR) != 0;
    size_t guard = 0;
    if ((flags & CL_MEM_USE_HOST_PTR) || copy != (host != NULL) || bytes == 0 ||
        __builtin_popcountll(flags & HOST_ACCESS) > 1 || bytes > GUARDED_MAX || !d ||
        !d->clCreateSubBuffer || !d->clReleaseMemObject || (guard = guard_bytes(context)) == 0)
        return NULL;
    unsigned char *whole = malloc(guard + bytes + guard);
    if (!whole)
        return NULL;
    fill_guard(whole, guard);
    if (copy)
        memcpy(whole + guard, host, bytes);
    else
        memset(whole + guard, 0, bytes);
    fill_guard(whole + guard + bytes, guard);
    cl_int err = CL_SUCCESS;
    /* the program's host access on its sub-buffer alone: the layer reads the guards of its own,
     * whatever the program may */
    cl_mem parent = real(context, (flags & ~HOST_ACCESS) | CL_MEM_COPY_HOST_PTR,
                         guard + bytes + guard, whole, &err);
    free(whole);
    if (!parent)
        return NULL;
    /* the device's access (CL_MEM_READ_ONLY, ...) the parent's, which the sub-buffer takes where
     * its flags name none (the spec's inheritance) */
    cl_buffer_region region = {guard, bytes};
    cl_mem sub = d->clCreateSubBuffer(parent, flags & HOST_ACCESS, CL_BUFFER_CREATE_TYPE_REGION,
                                      &region, &err);
    if (!sub) {
        d->clReleaseMemObject(parent);
        return NULL;
    }
    *g = (struct guarded){
        .parent = parent, .guard = guard, .bytes = bytes, .host = flags & HOST_ACCESS};
    return sub;
}

int layer_can_wait(cl_uint wait_count, const cl_event *wait) {
    for (cl_uint i = 0; wait && i < wait_count; i++) {
        const struct _cl_icd_dispatch *d = layer_dispatch(wait[i]);
        cl_command_type type = 0;
        cl_int status = CL_COMPLETE;
        if (!d || !d->clGetEventInfo ||
            d->clGetEventInfo(wait[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL) !=
                CL_SUCCESS ||
            d->clGetEventInfo(wait[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                              NULL) != CL_SUCCESS ||
            (type == CL_COMMAND_USER && status > CL_COMPLETE))
            return 0;
    }
    return 1;
}

int layer_event_ended(cl_event done) {
    const struct _cl_icd_dispatch *d = layer_dispatch(done);
    cl_int status = CL_COMPLETE;
    if (!d || !d->clGetEventInfo ||
        d->clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) !=
            CL_SUCCESS)
        return -1;
    return status == CL_COMPLETE ? 1 : status < 0 ? -1 : 0;
}

cl_command_queue layer_queue_apart(cl_context context, cl_device_id device) {
    const struct _cl_icd_dispatch *d = layer_dispatch(context);
    cl_int err = CL_SUCCESS;
    /* (OpenCL 1.2's call, which every driver's table has; in order, no profiling) */
    return d && d->clCreateCommandQueue ? d->clCreateCommandQueue(context, device, 0, &err) : NULL;
}

size_t layer_guard_read(cl_command_queue queue, cl_event done, const struct guarded *g, int side) {
    const struct _cl_icd_dispatch *d = layer_dispatch(queue);
    unsigned char *got = d && d->clEnqueueReadBuffer ? malloc(g->guard) : NULL;
    size_t at = side ? g->guard + g->bytes : 0, changed = 0;
    if (got && d->clEnqueueReadBuffer(queue, g->parent, CL_TRUE, at, g->guard, got, done ? 1 : 0,
                                      done ? &done : NULL, NULL) == CL_SUCCESS)
        changed = guard_changed(got, g->guard);
    free(got);
    return changed;
}

int layer_sub_region(const struct guarded *g, cl_mem_flags flags, const cl_buffer_region *in,
                     cl_mem_flags *out_flags, cl_buffer_region *out) {
    cl_mem_flags asked = flags & HOST_ACCESS;
    if (in->origin > g->bytes || in->size > g->bytes - in->origin ||
        (g->host == CL_MEM_HOST_WRITE_ONLY && (asked & CL_MEM_HOST_READ_ONLY)) ||
        (g->host == CL_MEM_HOST_READ_ONLY && (asked & CL_MEM_HOST_WRITE_ONLY)) ||
        (g->host == CL_MEM_HOST_NO_ACCESS &&
         (asked & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
        return -1;
    *out_flags = asked ? flags : flags | g->host;
    *out = (cl_buffer_region){in->origin + g->guard, in->size};
    return 0;
}
