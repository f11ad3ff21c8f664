/* launch_layer_buffers.c - the grader's OpenCL layer's wrappers of the program's buffer calls
 * (launch_layer_state.h): each buffer made inside guard zones where it can be
 * (launch_layer_guards.c), known by handle with its guards, its sub-buffers made from the layer's
 * buffer around it, and counted. */
#include "child/launch_layer_state.h"

#include <limits.h>

/* Buffers are counted: what the program still holds at its exit is the difference (a sub-buffer
 * or an image it releases makes it smaller, never larger: no false report of a leak). A call
 * counts where it succeeded. */
static void count(long *counter, int succeeded) {
    if (!succeeded)
        return;
    layer_lock();
    (*counter)++;
    layer_unlock();
}

/* buffer known by handle, so that an argument can be told a buffer, its bytes and its guards g;
 * 0 where the table is full. */
static int follow(cl_mem buffer, size_t size, struct guarded g) {
    layer_lock();
    int id = layer_track(layer.buffers, MAX_BUFFERS, buffer, &layer.next_buffer,
                         size > (size_t)INT_MAX ? INT_MAX : (int)size);
    struct tracked *slot = id >= 0 ? layer_find(layer.buffers, MAX_BUFFERS, buffer) : NULL;
    if (slot)
        layer.guards[slot - layer.buffers] = g;
    layer_unlock();
    return slot != NULL;
}

/* The buffer inside guard zones where the layer can follow it (layer_guarded_buffer), as asked
 * where not. */
cl_mem CL_API_CALL layer_wrap_create_buffer(cl_context context, cl_mem_flags flags, size_t size,
                                            void *host, cl_int *err) {
    struct guarded g = {0};
    cl_mem buffer = layer_guarded_buffer(REAL(W_CREATE_BUFFER, create_buffer_fn), context, flags,
                                         size, host, &g);
    if (buffer && !follow(buffer, size, g)) {
        layer_dispatch(buffer)->clReleaseMemObject(buffer);
        layer_dispatch(g.parent)->clReleaseMemObject(g.parent);
        buffer = NULL;
    } else if (buffer && err) {
        *err = CL_SUCCESS;
    }
    if (!buffer &&
        (buffer = REAL(W_CREATE_BUFFER, create_buffer_fn)(context, flags, size, host, err)) != NULL)
        follow(buffer, size, (struct guarded){0});
    count(&layer.buffers_created, buffer != NULL);
    return buffer;
}

cl_int CL_API_CALL layer_wrap_retain_mem(cl_mem buffer) {
    cl_int status = REAL(W_RETAIN_MEM, mem_fn)(buffer);
    count(&layer.buffers_retained, status == CL_SUCCESS);
    if (status == CL_SUCCESS)
        layer_retained(layer.buffers, MAX_BUFFERS, buffer);
    return status;
}

/* With the program's last reference, the layer's buffer around it goes too (after it: a
 * sub-buffer holds its parent). */
cl_int CL_API_CALL layer_wrap_release_mem(cl_mem buffer) {
    struct guarded gone = {0};
    layer_releasing(layer.buffers, MAX_BUFFERS, buffer, layer.guards, &gone);
    cl_int status = REAL(W_RELEASE_MEM, mem_fn)(buffer);
    count(&layer.buffers_released, status == CL_SUCCESS);
    if (gone.parent)
        layer_dispatch(gone.parent)->clReleaseMemObject(gone.parent);
    layer_settle();
    return status;
}

/* A sub-buffer of a guarded buffer is made from the layer's buffer around it, at the same place
 * (a sub-buffer of a sub-buffer is invalid in OpenCL); of any other, as asked. */
cl_mem CL_API_CALL layer_wrap_create_sub_buffer(cl_mem buffer, cl_mem_flags flags,
                                                cl_buffer_create_type type, const void *info,
                                                cl_int *err) {
    struct guarded g = {0};
    layer_lock();
    struct tracked *t = layer_find(layer.buffers, MAX_BUFFERS, buffer);
    if (t)
        g = layer.guards[t - layer.buffers];
    layer_unlock();
    create_sub_fn real = REAL(W_CREATE_SUB_BUFFER, create_sub_fn);
    cl_buffer_region region;
    cl_mem_flags sub_flags;
    if (!g.parent)
        return real(buffer, flags, type, info, err);
    if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) /* (the driver's to refuse) */
        return real(g.parent, flags, type, info, err);
    if (layer_sub_region(&g, flags, info, &sub_flags, &region) != 0) {
        if (err)
            *err = CL_INVALID_VALUE;
        return NULL;
    }
    return real(g.parent, sub_flags, type, &region, err);
}
