/* launch_layer_pending.c - the grader's OpenCL layer reads back the guards a launch took
 * (launch_layer_state.h): at once after the launch, or, for a launch behind a user event the
 * program has not set yet, once it has ended (struct pending), asked before each launch, at a
 * buffer's release and after the calls where the program waits, wrapped here. */
#include "child/launch_layer_state.h"

#include <stdlib.h>

/* The guards of the guarded buffers launch l took into g, their numbers into buffer (a buffer
 * taken by two arguments once), each parent retained (a release in another thread, or the
 * program's own before a pending launch is read, leaves it to the layer). How many. */
static int taken_guards(const struct launch *l, struct guarded g[MAX_ARGS], int buffer[MAX_ARGS]) {
    int n = 0;
    layer_lock();
    for (int a = 0; a < MAX_ARGS; a++) {
        if (l->args[a].kind != 'm')
            continue;
        int seen_before = 0;
        for (int b = 0; b < a; b++)
            seen_before |= l->args[b].kind == 'm' && l->args[b].buffer == l->args[a].buffer;
        for (int i = 0; !seen_before && i < MAX_BUFFERS; i++) {
            const struct _cl_icd_dispatch *d = layer_dispatch(layer.guards[i].parent);
            if (layer.buffers[i].handle && layer.buffers[i].id == l->args[a].buffer && d &&
                d->clRetainMemObject && d->clReleaseMemObject &&
                d->clRetainMemObject(layer.guards[i].parent) == CL_SUCCESS) {
                g[n] = layer.guards[i];
                buffer[n++] = l->args[a].buffer;
                break;
            }
        }
    }
    layer_unlock();
    return n;
}

/* Whether side of parent's guards is reported now for the first time, marked reported in the
 * table's buffers and the pending launches that have it (the caller's copy is unreported: it
 * reads only those). With the lock held. */
static int first_report(cl_mem parent, int side) {
    int already = 0;
    for (int i = 0; i < MAX_BUFFERS; i++)
        if (layer.guards[i].parent == parent && layer.buffers[i].handle) {
            already |= layer.guards[i].reported[side];
            layer.guards[i].reported[side] = 1;
        }
    for (int p = 0; p < layer.pending_count; p++)
        for (int a = 0; a < layer.pending[p].count; a++)
            if (layer.pending[p].g[a].parent == parent) {
                already |= layer.pending[p].g[a].reported[side];
                layer.pending[p].g[a].reported[side] = 1;
            }
    return !already;
}

/* The guards g of n buffers (numbers in buffer) after a launch of kernel, read back on queue
 * after done (NULL: no wait; queue NULL: none read), each side found changed reported once (a
 * G record); their parents released. */
static void read_guards(cl_command_queue queue, cl_event done, int kernel, int n, struct guarded *g,
                        const int *buffer) {
    for (int a = 0; a < n; a++) {
        for (int side = 0; side < 2; side++) {
            size_t changed =
                queue && !g[a].reported[side] ? layer_guard_read(queue, done, &g[a], side) : 0;
            if (!changed)
                continue;
            layer_lock();
            if (first_report(g[a].parent, side) && layer.record_count++ < MAX_RECORDS)
                layer_emit("G %d %d %zu %d", buffer[a], side, changed, kernel);
            layer_unlock();
        }
        layer_dispatch(g[a].parent)->clReleaseMemObject(g[a].parent);
    }
}

/* After launch l on queue (done: its event): the guards of every guarded buffer it took, read
 * back once it has run (a blocking read on its queue, waiting on done). */
void layer_check_guards(cl_command_queue queue, cl_event done, const struct launch *l) {
    struct guarded g[MAX_ARGS];
    int buffer[MAX_ARGS];
    int n = taken_guards(l, g, buffer);
    read_guards(queue, done, l->kernel, n, g, buffer);
}

/* Launch l on queue (done: its event), which waits on a user event not yet set, kept to be read
 * once it ended (layer_settle). Where it cannot be kept (no memory), it goes unread. */
void layer_defer(cl_command_queue queue, cl_event done, const struct launch *l) {
    const struct _cl_icd_dispatch *d = layer_dispatch(queue);
    struct pending p = {.done = done, .kernel = l->kernel};
    if (!d || !d->clGetCommandQueueInfo || !d->clRetainEvent || !d->clReleaseEvent ||
        !d->clRetainContext || !d->clReleaseContext ||
        d->clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof p.context, &p.context, NULL) !=
            CL_SUCCESS ||
        d->clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof p.device, &p.device, NULL) !=
            CL_SUCCESS ||
        (p.count = taken_guards(l, p.g, p.buffer)) == 0)
        return;
    d->clRetainEvent(done);
    d->clRetainContext(p.context);
    layer_lock();
    int room = layer.pending_room ? 2 * layer.pending_room : 8;
    struct pending *more = layer.pending_count < layer.pending_room
                               ? layer.pending
                               : realloc(layer.pending, (size_t)room * sizeof *more);
    if (more && more != layer.pending) {
        layer.pending = more;
        layer.pending_room = room;
    }
    if (more)
        layer.pending[layer.pending_count++] = p;
    layer_unlock();
    if (!more) {
        read_guards(NULL, NULL, p.kernel, p.count, p.g, p.buffer); /* (releases the parents) */
        d->clReleaseEvent(done);
        d->clReleaseContext(p.context);
    }
}

/* The pending launches that have ended, read back (on a queue of the layer's: see
 * layer_queue_apart); asked of each without waiting, so never a hang. After the program's waits,
 * at a buffer's release, before a launch (an earlier launch's finding is its own) and at the
 * program's exit. */
void layer_settle(void) {
    for (;;) {
        struct pending p = {0};
        int ended = 0;
        layer_lock();
        for (int i = 0; !ended && i < layer.pending_count; i++)
            if ((ended = layer_event_ended(layer.pending[i].done)) != 0) {
                p = layer.pending[i];
                layer.pending[i] = layer.pending[--layer.pending_count];
            }
        layer_unlock();
        if (!ended)
            return;
        const struct _cl_icd_dispatch *d = layer_dispatch(p.context);
        cl_command_queue queue = layer_queue_apart(p.context, p.device);
        /* (an event ended in an error cannot be waited on: what the launch left is read as is) */
        read_guards(queue, ended > 0 ? p.done : NULL, p.kernel, p.count, p.g, p.buffer);
        if (queue && d->clReleaseCommandQueue)
            d->clReleaseCommandQueue(queue);
        d->clReleaseEvent(p.done);
        d->clReleaseContext(p.context);
    }
}

/* The program's waits (and a release of its queue, which flushes it): pending launches they saw
 * end are read back after them. */
typedef cl_int(CL_API_CALL *queue_fn)(cl_command_queue);
typedef cl_int(CL_API_CALL *wait_fn)(cl_uint, const cl_event *);
typedef cl_int(CL_API_CALL *read_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                     cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *write_fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                      const void *, cl_uint, const cl_event *, cl_event *);
typedef void *(CL_API_CALL *map_fn)(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t,
                                    cl_uint, const cl_event *, cl_event *, cl_int *);

cl_int CL_API_CALL layer_wrap_finish(cl_command_queue queue) {
    cl_int status = REAL(W_FINISH, queue_fn)(queue);
    layer_settle();
    return status;
}

cl_int CL_API_CALL layer_wrap_wait(cl_uint count, const cl_event *events) {
    cl_int status = REAL(W_WAIT, wait_fn)(count, events);
    layer_settle();
    return status;
}

cl_int CL_API_CALL layer_wrap_read(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                   size_t offset, size_t size, void *ptr, cl_uint wait_count,
                                   const cl_event *wait, cl_event *event) {
    cl_int status =
        REAL(W_READ, read_fn)(queue, buffer, blocking, offset, size, ptr, wait_count, wait, event);
    layer_settle();
    return status;
}

cl_int CL_API_CALL layer_wrap_write(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                    size_t offset, size_t size, const void *ptr, cl_uint wait_count,
                                    const cl_event *wait, cl_event *event) {
    cl_int status = REAL(W_WRITE, write_fn)(queue, buffer, blocking, offset, size, ptr, wait_count,
                                            wait, event);
    layer_settle();
    return status;
}

void *CL_API_CALL layer_wrap_map(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                 cl_map_flags flags, size_t offset, size_t size, cl_uint wait_count,
                                 const cl_event *wait, cl_event *event, cl_int *err) {
    void *mapped = REAL(W_MAP, map_fn)(queue, buffer, blocking, flags, offset, size, wait_count,
                                       wait, event, err);
    layer_settle();
    return mapped;
}

cl_int CL_API_CALL layer_wrap_release_queue(cl_command_queue queue) {
    cl_int status = REAL(W_RELEASE_QUEUE, queue_fn)(queue);
    layer_settle();
    return status;
}
