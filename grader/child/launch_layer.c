/* launch_layer.c - the grader's OpenCL layer inside a student's host program: an LD_AUDIT module
 * (built on its own as build/grader/launch_layer.so, no part of the grader's binary) that records
 * what the program asks of OpenCL - the programs it creates from source and builds, the kernels
 * it creates from them, its launches - and sends each record to the grader (exercise/protocol.h
 * has the format). It decides nothing: grade/host_launches.c reads the records and judges.
 *
 * Why an audit module and not an LD_PRELOAD library or an ICD layer. The dynamic loader loads it
 * and calls la_version before it maps the program's libraries, runs a relocation or an IFUNC
 * resolver, or any constructor of the program (.preinit_array included): nothing of the
 * student's code has run when the layer takes the grader's nonce off its channel. It lives in a
 * link namespace of its own with its own libc, so a function that main.c defines (read, dlsym,
 * malloc) cannot stand in for one the layer calls, as it could inside a preloaded library. An ICD
 * layer (OPENCL_LAYERS) is loaded at the program's first OpenCL call, long after main. The loader
 * hands the program a wrapper (la_symbind64) in place of each OpenCL function below that it
 * imports; the wrapper calls the real function and records what it returned.
 *
 * What a record can be trusted for. The program shares this process, so:
 *   - it can write to the channel (fd LAYER_FD), but only records that start with the nonce
 *     count, and the nonce is nowhere the program can read it: the grader wrote it before the
 *     program started, the layer took it before the program's first instruction, and the layer's
 *     records go to the grader's end of a socket (the program's end reads nothing back, and
 *     /proc/self/fd cannot reopen a socket). Printing, or writing records in the documented
 *     format, counts for nothing;
 *   - it can go around the layer (call OpenCL through a pointer of its own, load a driver
 *     itself): what the layer does not see is not there, which only loses points;
 *   - a wrapper copies what it is handed (the source, the kernel's name, the sizes) and gives the
 *     real function its copy, so another thread cannot change the text between record and call;
 *   - what remains: code that finds the nonce in its own memory (the layer's pages are the
 *     process's) can write records that count. That is a forgery aimed at the grader, to be
 *     judged as one, not a host program. And a record proves that the program built its
 *     kernel.cl, created the kernel from it and enqueued it at a geometry; not that C came from
 *     that launch (a program that launches its kernel right and then writes C itself is not told
 *     apart).
 * Guard zones (launch_layer_guards.c): each buffer the program creates lies inside one of the
 * layer's; the guards a launch took are read back after it, a changed side a G record. A launch
 * behind a user event the program has not set yet is read once it has ended (struct pending):
 * asked at each wrapped call, the program's waits among them, and at its exit.
 * One static struct holds the layer's state: the loader and the program call in with no context
 * to hand it.
 */
#define _GNU_SOURCE /* link.h's audit interface */
#include "child/launch_layer_driver.h"
#include "exercise/protocol.h"

#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define EXPORT       __attribute__((visibility("default")))
#define MAX_PROGRAMS 64  /* created and not released, at once */
#define MAX_KERNELS  256 /* the same for kernels */
#define MAX_LAUNCHES 32  /* distinct launches recorded (the same launch again is not) */
#define MAX_RECORDS  256 /* records of the other kinds */
#define MAX_BUFFERS  128 /* buffers created and not released, at once, known by handle */
#define MAX_ARGS     8   /* a kernel's arguments recorded with its launches (every exercise's) */

#define EXIT_PATIENCE_MS 2000 /* at the program's exit, for launches still pending to end */

/* The OpenCL functions the layer stands in for. */
enum wrapped {
    W_CREATE_PROGRAM,
    W_BUILD,
    W_RETAIN_PROGRAM,
    W_RELEASE_PROGRAM,
    W_CREATE_KERNEL,
    W_RETAIN_KERNEL,
    W_RELEASE_KERNEL,
    W_ENQUEUE,
    W_CREATE_BUFFER,
    W_RETAIN_MEM,
    W_RELEASE_MEM,
    W_SET_ARG,
    W_CREATE_SUB_BUFFER,
    W_FINISH,
    W_WAIT,
    W_READ,
    W_WRITE,
    W_MAP,
    W_RELEASE_QUEUE,
    W_COUNT
};
static const char *const wrapped_names[W_COUNT] = {"clCreateProgramWithSource",
                                                   "clBuildProgram",
                                                   "clRetainProgram",
                                                   "clReleaseProgram",
                                                   "clCreateKernel",
                                                   "clRetainKernel",
                                                   "clReleaseKernel",
                                                   "clEnqueueNDRangeKernel",
                                                   "clCreateBuffer",
                                                   "clRetainMemObject",
                                                   "clReleaseMemObject",
                                                   "clSetKernelArg",
                                                   "clCreateSubBuffer",
                                                   "clFinish",
                                                   "clWaitForEvents",
                                                   "clEnqueueReadBuffer",
                                                   "clEnqueueWriteBuffer",
                                                   "clEnqueueMapBuffer",
                                                   "clReleaseCommandQueue"};

/* A program or kernel the program holds: its handle, the layer's number for it, the program's
 * references to it (retain and release), and for a kernel its program's number. */
struct tracked {
    const void *handle; /* NULL: a free slot */
    int id, refs, program;
};

/* What a kernel's argument was last set to (clSetKernelArg that succeeded): a buffer the layer
 * saw created (its number and bytes), a 4-byte value (an int, as the exercises' sizes are), local
 * memory of some bytes (a NULL value), or something else of some size. */
struct arg {
    int kind;        /* 0 never set, 'm' buffer, 'i' 4 bytes, 'l' local, 'o' other */
    int buffer;      /* 'm': the buffer's number */
    long long value; /* 'i': the value; 'm', 'l', 'o': bytes */
};

struct launch {
    int kernel, has_local;
    cl_int status;
    cl_uint dims;
    size_t offset[3], global[3], local[3];
    struct arg args[MAX_ARGS]; /* the kernel's arguments at the launch */
};

/* A launch whose guards could not be read back at once (layer_can_wait refused its wait list:
 * the program sets a user event after it), read once its event says it ended. What it needs
 * then is retained, as the program may release its event, queue and buffers before. */
struct pending {
    cl_event done;
    cl_context context; /* and device: the layer's own queue for the read (layer_queue_apart) */
    cl_device_id device;
    int kernel, count;          /* the kernel's number; buffers below */
    int buffer[MAX_ARGS];       /* their numbers */
    struct guarded g[MAX_ARGS]; /* their guards, each parent retained */
};

static struct {
    int active;                             /* the channel and its nonce were there */
    char nonce[LAYER_NONCE_SIZE + 1];       /* the grader's, for this run */
    uintptr_t program_map;                  /* the program's link map (its cookie) */
    _Atomic uintptr_t real[W_COUNT];        /* the functions the wrappers stand in for */
    atomic_flag lock;                       /* the tables and counts below */
    struct tracked programs[MAX_PROGRAMS];  /* programs created from source */
    struct tracked kernels[MAX_KERNELS];    /* kernels created from any program */
    struct arg args[MAX_KERNELS][MAX_ARGS]; /* each kernel slot's arguments */
    struct tracked buffers[MAX_BUFFERS];    /* buffers created (program: their bytes) */
    struct guarded guards[MAX_BUFFERS];     /* each buffer slot's guard zones */
    int next_buffer;
    int next_program, next_kernel;        /* numbers, never reused */
    struct launch launches[MAX_LAUNCHES]; /* what was recorded */
    int launch_count, record_count;
    long buffers_created, buffers_retained, buffers_released; /* calls that succeeded */
    struct pending *pending; /* launches not yet read back (grown as needed: none is dropped) */
    int pending_count, pending_room;
} layer = {.lock = ATOMIC_FLAG_INIT};

static void lock(void) {
    while (atomic_flag_test_and_set_explicit(&layer.lock, memory_order_acquire))
        sched_yield();
}
static void unlock(void) {
    atomic_flag_clear_explicit(&layer.lock, memory_order_release);
}

/* One record to the grader, the nonce first; never blocks (a full channel drops it). */
static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...) {
    char record[LAYER_RECORD_MAX];
    int used = snprintf(record, sizeof record, "%s ", layer.nonce);
    va_list ap;
    va_start(ap, fmt);
    int more = vsnprintf(record + used, sizeof record - (size_t)used, fmt, ap);
    va_end(ap);
    if (more < 0 || (size_t)(used + more) >= sizeof record)
        return;
    ssize_t sent = send(LAYER_FD, record, (size_t)(used + more), MSG_DONTWAIT | MSG_NOSIGNAL);
    (void)sent; /* a record that cannot go costs only the program that filled the channel */
}

static struct tracked *find(struct tracked *table, int size, const void *handle) {
    for (int i = 0; handle && i < size; i++)
        if (table[i].handle == handle)
            return &table[i];
    return NULL;
}

/* A new entry for handle: its number, or -1 when the table is full (then it is not tracked). */
static int track(struct tracked *table, int size, const void *handle, int *next, int program) {
    struct tracked *slot = NULL;
    for (int i = 0; !slot && i < size; i++)
        if (!table[i].handle)
            slot = &table[i];
    if (!slot)
        return -1;
    *slot = (struct tracked){handle, (*next)++, 1, program};
    return slot->id;
}

static void retained(struct tracked *table, int size, const void *handle) {
    lock();
    struct tracked *t = find(table, size, handle);
    if (t)
        t->refs++;
    unlock();
}

/* Before the real release: the entry goes with the program's last reference, so that a new
 * object at the same address is never taken for the old one; so do its guard zones (guards, the
 * table's; NULL: none) into *gone. */
static void releasing(struct tracked *table, int size, const void *handle, struct guarded *guards,
                      struct guarded *gone) {
    lock();
    struct tracked *t = find(table, size, handle);
    if (t && --t->refs <= 0) {
        t->handle = NULL;
        if (guards) {
            *gone = guards[t - table];
            guards[t - table] = (struct guarded){0};
        }
    }
    unlock();
}

#define REAL(w, type) ((type)atomic_load(&layer.real[w]))

typedef cl_program(CL_API_CALL *create_program_fn)(cl_context, cl_uint, const char **,
                                                   const size_t *, cl_int *);
typedef cl_int(CL_API_CALL *build_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                                      void(CL_CALLBACK *)(cl_program, void *), void *);
typedef cl_int(CL_API_CALL *program_fn)(cl_program);
typedef cl_kernel(CL_API_CALL *create_kernel_fn)(cl_program, const char *, cl_int *);
typedef cl_int(CL_API_CALL *kernel_fn)(cl_kernel);
typedef cl_int(CL_API_CALL *enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                        const size_t *, const size_t *, cl_uint, const cl_event *,
                                        cl_event *);

typedef cl_int(CL_API_CALL *mem_fn)(cl_mem);
typedef cl_mem(CL_API_CALL *create_sub_fn)(cl_mem, cl_mem_flags, cl_buffer_create_type,
                                           const void *, cl_int *);

static uint64_t fnv1a(const char *text, size_t length) {
    uint64_t h = 0xcbf29ce484222325ull; /* grader_fnv1a's */
    for (size_t i = 0; i < length; i++)
        h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
    return h;
}

/* The source, joined into one copy of the layer's own: what is hashed is what is built. */
static cl_program CL_API_CALL wrap_create_program(cl_context context, cl_uint count,
                                                  const char **strings, const size_t *lengths,
                                                  cl_int *err) {
    create_program_fn real = REAL(W_CREATE_PROGRAM, create_program_fn);
    size_t total = 0;
    int whole = count > 0 && strings;
    for (cl_uint i = 0; whole && i < count; i++) {
        size_t length = !strings[i] ? 0 : lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        whole = strings[i] && total + length >= total;
        total += length;
    }
    char *text = whole ? malloc(total + 1) : NULL;
    if (!text) /* an invalid call (OpenCL says why) or no memory: not a program of the record */
        return real(context, count, strings, lengths, err);
    for (size_t i = 0, at = 0; i < count; i++) {
        size_t length = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(text + at, strings[i], length);
        at += length;
    }
    text[total] = '\0';
    const char *one = text;
    cl_program program = real(context, 1, &one, &total, err);
    uint64_t hash = fnv1a(text, total);
    free(text);
    if (program) {
        lock();
        int id = track(layer.programs, MAX_PROGRAMS, program, &layer.next_program, -1);
        if (id >= 0 && layer.record_count++ < MAX_RECORDS)
            emit("P %d %zu %016llx", id, total, (unsigned long long)hash);
        unlock();
    }
    return program;
}

static cl_int CL_API_CALL wrap_build(cl_program program, cl_uint device_count,
                                     const cl_device_id *devices, const char *options,
                                     void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    /* no lock across the call: a build's callback may call OpenCL (and so a wrapper) */
    cl_int status = REAL(W_BUILD, build_fn)(program, device_count, devices, options, notify, data);
    lock();
    struct tracked *t = find(layer.programs, MAX_PROGRAMS, program);
    if (t && layer.record_count++ < MAX_RECORDS)
        emit("B %d %d", t->id, (int)status);
    unlock();
    return status;
}

static cl_int CL_API_CALL wrap_retain_program(cl_program program) {
    cl_int status = REAL(W_RETAIN_PROGRAM, program_fn)(program);
    if (status == CL_SUCCESS)
        retained(layer.programs, MAX_PROGRAMS, program);
    return status;
}

static cl_int CL_API_CALL wrap_release_program(cl_program program) {
    releasing(layer.programs, MAX_PROGRAMS, program, NULL, NULL);
    return REAL(W_RELEASE_PROGRAM, program_fn)(program);
}

static cl_kernel CL_API_CALL wrap_create_kernel(cl_program program, const char *name, cl_int *err) {
    create_kernel_fn real = REAL(W_CREATE_KERNEL, create_kernel_fn);
    char copy[LAYER_NAME_MAX + 1];
    if (!name || strnlen(name, sizeof copy) == sizeof copy)
        return real(program, name, err); /* no name, or one no exercise has: not recorded */
    snprintf(copy, sizeof copy, "%s", name);
    cl_kernel kernel = real(program, copy, err);
    if (kernel) {
        lock();
        struct tracked *from = find(layer.programs, MAX_PROGRAMS, program);
        int of = from ? from->id : -1;
        int id = track(layer.kernels, MAX_KERNELS, kernel, &layer.next_kernel, of);
        struct tracked *slot = find(layer.kernels, MAX_KERNELS, kernel);
        if (slot) /* a new kernel (at a slot an old one left) has no arguments yet */
            memset(layer.args[slot - layer.kernels], 0, sizeof layer.args[0]);
        if (id >= 0 && layer.record_count++ < MAX_RECORDS)
            emit("K %d %d %s", id, of, copy);
        unlock();
    }
    return kernel;
}

static cl_int CL_API_CALL wrap_retain_kernel(cl_kernel kernel) {
    cl_int status = REAL(W_RETAIN_KERNEL, kernel_fn)(kernel);
    if (status == CL_SUCCESS)
        retained(layer.kernels, MAX_KERNELS, kernel);
    return status;
}

static cl_int CL_API_CALL wrap_release_kernel(cl_kernel kernel) {
    releasing(layer.kernels, MAX_KERNELS, kernel, NULL, NULL);
    return REAL(W_RELEASE_KERNEL, kernel_fn)(kernel);
}

/* The guards of the guarded buffers launch l took into g, their numbers into buffer (a buffer
 * taken by two arguments once), each parent retained (a release in another thread, or the
 * program's own before a pending launch is read, leaves it to the layer). How many. */
static int taken_guards(const struct launch *l, struct guarded g[MAX_ARGS], int buffer[MAX_ARGS]) {
    int n = 0;
    lock();
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
    unlock();
    return n;
}

/* Whether side of parent's guards is reported now for the first time (already: so by the
 * caller's copy), marked reported in the table's buffers and the pending launches that have
 * it. With the lock held. */
static int first_report(cl_mem parent, int side, int already) {
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
            lock();
            if (first_report(g[a].parent, side, g[a].reported[side]) &&
                layer.record_count++ < MAX_RECORDS)
                emit("G %d %d %zu %d", buffer[a], side, changed, kernel);
            unlock();
        }
        layer_dispatch(g[a].parent)->clReleaseMemObject(g[a].parent);
    }
}

/* After launch l on queue (done: its event): the guards of every guarded buffer it took, read
 * back once it has run (a blocking read on its queue, waiting on done). */
static void check_guards(cl_command_queue queue, cl_event done, const struct launch *l) {
    struct guarded g[MAX_ARGS];
    int buffer[MAX_ARGS];
    int n = taken_guards(l, g, buffer);
    read_guards(queue, done, l->kernel, n, g, buffer);
}

/* Launch l on queue (done: its event), which waits on a user event not yet set, kept to be read
 * once it ended (settle). Where it cannot be kept (no memory), it goes unread. */
static void defer(cl_command_queue queue, cl_event done, const struct launch *l) {
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
    lock();
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
    unlock();
    if (!more) {
        read_guards(NULL, NULL, p.kernel, p.count, p.g, p.buffer); /* (releases the parents) */
        d->clReleaseEvent(done);
        d->clReleaseContext(p.context);
    }
}

/* The pending launches that have ended, read back (on a queue of the layer's: see
 * layer_queue_apart); asked of each without waiting, so never a hang. At each wrapped call
 * (after the program's waits, before a launch: an earlier launch's finding is its own) and at
 * the program's exit. */
static void settle(void) {
    for (;;) {
        struct pending p = {0};
        int ended = 0;
        lock();
        for (int i = 0; !ended && i < layer.pending_count; i++)
            if ((ended = layer_event_ended(layer.pending[i].done)) != 0) {
                p = layer.pending[i];
                layer.pending[i] = layer.pending[--layer.pending_count];
            }
        unlock();
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

static cl_int CL_API_CALL wrap_enqueue(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                       const size_t *offset, const size_t *global,
                                       const size_t *local, cl_uint wait_count,
                                       const cl_event *wait, cl_event *event) {
    settle();
    struct launch l = {.dims = dims, .has_local = local != NULL};
    int copied = dims >= 1 && dims <= 3;
    for (cl_uint d = 0; copied && d < dims; d++) {
        l.offset[d] = offset ? offset[d] : 0;
        l.global[d] = global ? global[d] : 0;
        l.local[d] = local ? local[d] : 0;
    }
    lock();
    struct tracked *t = find(layer.kernels, MAX_KERNELS, kernel);
    l.kernel = t ? t->id : -1;
    if (t)
        memcpy(l.args, layer.args[t - layer.kernels], sizeof l.args);
    unlock();
    cl_ulong needs = 0, has = 0;
    if (l.kernel >= 0 && layer_local_over(queue, kernel, &needs, &has)) {
        l.status = CL_OUT_OF_RESOURCES;
        lock();
        if (layer.record_count++ < MAX_RECORDS)
            emit("L %d %llu %llu", l.kernel, (unsigned long long)needs, (unsigned long long)has);
        unlock();
    } else { /* the real launch gets the copies that are recorded (where there are any) */
        cl_event own = NULL, *done = event ? event : &own; /* (the layer's, where none is asked) */
        l.status =
            REAL(W_ENQUEUE, enqueue_fn)(queue, kernel, dims, copied && offset ? l.offset : offset,
                                        copied && global ? l.global : global,
                                        copied && local ? l.local : local, wait_count, wait, done);
        if (l.kernel >= 0 && l.status == CL_SUCCESS && layer_can_wait(wait_count, wait))
            check_guards(queue, *done, &l);
        else if (l.kernel >= 0 && l.status == CL_SUCCESS) /* (a read now would hang) */
            defer(queue, *done, &l);
        if (own && layer_dispatch(own)->clReleaseEvent)
            layer_dispatch(own)->clReleaseEvent(own);
    }
    lock();
    int known = 0;
    for (int i = 0; i < layer.launch_count && !known; i++)
        known = memcmp(&layer.launches[i], &l, sizeof l) == 0;
    if (!known && layer.launch_count < MAX_LAUNCHES) {
        layer.launches[layer.launch_count++] = l;
        emit("E %d %d %u %d %zu %zu %zu %zu %zu %zu %zu %zu %zu", l.kernel, (int)l.status, l.dims,
             l.has_local, l.offset[0], l.offset[1], l.offset[2], l.global[0], l.global[1],
             l.global[2], l.local[0], l.local[1], l.local[2]);
        for (int a = 0; a < MAX_ARGS; a++) /* its arguments, after it */
            if (l.args[a].kind)
                emit("A %d %c %d %lld", a, l.args[a].kind, l.args[a].buffer, l.args[a].value);
    }
    unlock();
    return l.status;
}

/* Buffers are counted: what the program still holds at its exit is the difference (a sub-buffer
 * or an image it releases makes it smaller, never larger: no false report of a leak). A call
 * counts where it succeeded. */
static void count(long *counter, int succeeded) {
    if (!succeeded)
        return;
    lock();
    (*counter)++;
    unlock();
}

/* buffer known by handle, so that an argument can be told a buffer, its bytes and its guards g;
 * 0 where the table is full. */
static int follow(cl_mem buffer, size_t size, struct guarded g) {
    lock();
    int id = track(layer.buffers, MAX_BUFFERS, buffer, &layer.next_buffer,
                   size > (size_t)INT_MAX ? INT_MAX : (int)size);
    struct tracked *slot = id >= 0 ? find(layer.buffers, MAX_BUFFERS, buffer) : NULL;
    if (slot)
        layer.guards[slot - layer.buffers] = g;
    unlock();
    return slot != NULL;
}

/* The buffer inside guard zones where the layer can follow it (layer_guarded_buffer), as asked
 * where not. */
static cl_mem CL_API_CALL wrap_create_buffer(cl_context context, cl_mem_flags flags, size_t size,
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

static cl_int CL_API_CALL wrap_retain_mem(cl_mem buffer) {
    cl_int status = REAL(W_RETAIN_MEM, mem_fn)(buffer);
    count(&layer.buffers_retained, status == CL_SUCCESS);
    if (status == CL_SUCCESS)
        retained(layer.buffers, MAX_BUFFERS, buffer);
    return status;
}

/* With the program's last reference, the layer's buffer around it goes too (after it: a
 * sub-buffer holds its parent). */
static cl_int CL_API_CALL wrap_release_mem(cl_mem buffer) {
    struct guarded gone = {0};
    releasing(layer.buffers, MAX_BUFFERS, buffer, layer.guards, &gone);
    cl_int status = REAL(W_RELEASE_MEM, mem_fn)(buffer);
    count(&layer.buffers_released, status == CL_SUCCESS);
    if (gone.parent)
        layer_dispatch(gone.parent)->clReleaseMemObject(gone.parent);
    settle();
    return status;
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

static cl_int CL_API_CALL wrap_finish(cl_command_queue queue) {
    cl_int status = REAL(W_FINISH, queue_fn)(queue);
    settle();
    return status;
}

static cl_int CL_API_CALL wrap_wait(cl_uint count, const cl_event *events) {
    cl_int status = REAL(W_WAIT, wait_fn)(count, events);
    settle();
    return status;
}

static cl_int CL_API_CALL wrap_read(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                    size_t offset, size_t size, void *ptr, cl_uint wait_count,
                                    const cl_event *wait, cl_event *event) {
    cl_int status =
        REAL(W_READ, read_fn)(queue, buffer, blocking, offset, size, ptr, wait_count, wait, event);
    settle();
    return status;
}

static cl_int CL_API_CALL wrap_write(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                     size_t offset, size_t size, const void *ptr,
                                     cl_uint wait_count, const cl_event *wait, cl_event *event) {
    cl_int status = REAL(W_WRITE, write_fn)(queue, buffer, blocking, offset, size, ptr, wait_count,
                                            wait, event);
    settle();
    return status;
}

static void *CL_API_CALL wrap_map(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                  cl_map_flags flags, size_t offset, size_t size,
                                  cl_uint wait_count, const cl_event *wait, cl_event *event,
                                  cl_int *err) {
    void *mapped = REAL(W_MAP, map_fn)(queue, buffer, blocking, flags, offset, size, wait_count,
                                       wait, event, err);
    settle();
    return mapped;
}

static cl_int CL_API_CALL wrap_release_queue(cl_command_queue queue) {
    cl_int status = REAL(W_RELEASE_QUEUE, queue_fn)(queue);
    settle();
    return status;
}

/* A sub-buffer of a guarded buffer is made from the layer's buffer around it, at the same place
 * (a sub-buffer of a sub-buffer is invalid in OpenCL); of any other, as asked. */
static cl_mem CL_API_CALL wrap_create_sub_buffer(cl_mem buffer, cl_mem_flags flags,
                                                 cl_buffer_create_type type, const void *info,
                                                 cl_int *err) {
    struct guarded g = {0};
    lock();
    struct tracked *t = find(layer.buffers, MAX_BUFFERS, buffer);
    if (t)
        g = layer.guards[t - layer.buffers];
    unlock();
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

typedef cl_int(CL_API_CALL *set_arg_fn)(cl_kernel, cl_uint, size_t, const void *);

/* The argument as it was set, read only after the driver took it (so its bytes are readable):
 * a value of a cl_mem's size that is a buffer the layer saw created is that buffer; nothing is
 * read through a handle the layer did not see. */
static cl_int CL_API_CALL wrap_set_arg(cl_kernel kernel, cl_uint index, size_t size,
                                       const void *value) {
    cl_int status = REAL(W_SET_ARG, set_arg_fn)(kernel, index, size, value);
    if (status != CL_SUCCESS || index >= MAX_ARGS)
        return status;
    struct arg a = {.kind = 'o', .value = size > (size_t)LLONG_MAX ? LLONG_MAX : (long long)size};
    cl_mem handle = NULL;
    int32_t scalar = 0;
    if (!value) {
        a.kind = 'l';
    } else if (size == sizeof handle) {
        memcpy(&handle, value, sizeof handle);
    } else if (size == sizeof scalar) {
        memcpy(&scalar, value, sizeof scalar);
        a = (struct arg){.kind = 'i', .value = scalar};
    }
    lock();
    struct tracked *k = find(layer.kernels, MAX_KERNELS, kernel),
                   *b = handle ? find(layer.buffers, MAX_BUFFERS, handle) : NULL;
    if (b)
        a = (struct arg){.kind = 'm', .buffer = b->id, .value = b->program};
    if (k)
        layer.args[k - layer.kernels][index] = a;
    unlock();
    return status;
}

static const uintptr_t wrappers[W_COUNT] = {(uintptr_t)wrap_create_program,
                                            (uintptr_t)wrap_build,
                                            (uintptr_t)wrap_retain_program,
                                            (uintptr_t)wrap_release_program,
                                            (uintptr_t)wrap_create_kernel,
                                            (uintptr_t)wrap_retain_kernel,
                                            (uintptr_t)wrap_release_kernel,
                                            (uintptr_t)wrap_enqueue,
                                            (uintptr_t)wrap_create_buffer,
                                            (uintptr_t)wrap_retain_mem,
                                            (uintptr_t)wrap_release_mem,
                                            (uintptr_t)wrap_set_arg,
                                            (uintptr_t)wrap_create_sub_buffer,
                                            (uintptr_t)wrap_finish,
                                            (uintptr_t)wrap_wait,
                                            (uintptr_t)wrap_read,
                                            (uintptr_t)wrap_write,
                                            (uintptr_t)wrap_map,
                                            (uintptr_t)wrap_release_queue};

/* The loader's first call, before anything of the program is loaded or run: the layer is on
 * only where fd LAYER_FD is a SEQPACKET Unix socket holding a nonce (the grader's channel);
 * anything else (a process the program starts, which inherits LD_AUDIT) is left alone. */
EXPORT unsigned int la_version(unsigned int version) {
    (void)version;
    int type = 0, domain = 0;
    socklen_t size = sizeof type;
    if (getsockopt(LAYER_FD, SOL_SOCKET, SO_TYPE, &type, &size) != 0 || type != SOCK_SEQPACKET)
        return 0; /* 0: the loader drops the module */
    size = sizeof domain;
    if (getsockopt(LAYER_FD, SOL_SOCKET, SO_DOMAIN, &domain, &size) != 0 || domain != AF_UNIX)
        return 0;
    ssize_t got = recv(LAYER_FD, layer.nonce, LAYER_NONCE_SIZE, MSG_DONTWAIT);
    if (got != LAYER_NONCE_SIZE || strspn(layer.nonce, "0123456789abcdef") != LAYER_NONCE_SIZE)
        return 0;
    fcntl(LAYER_FD, F_SETFD, FD_CLOEXEC); /* a program it starts gets neither channel nor layer */
    layer.active = 1;
    emit("H");
    return LAV_CURRENT;
}

/* The program is the first object of the base namespace: its bindings are the ones wrapped. */
EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
    if (!layer.program_map && lmid == LM_ID_BASE) {
        layer.program_map = *cookie = (uintptr_t)map;
        return LA_FLG_BINDFROM | LA_FLG_BINDTO;
    }
    return LA_FLG_BINDTO;
}

EXPORT uintptr_t la_symbind64(Elf64_Sym *sym, unsigned int index, uintptr_t *refcook,
                              uintptr_t *defcook, unsigned int *flags, const char *name) {
    (void)index, (void)defcook;
    uintptr_t to = sym->st_value;
    if (!layer.active || *refcook != layer.program_map || strncmp(name, "cl", 2) != 0)
        return to;
    for (int w = 0; w < W_COUNT; w++)
        if (strcmp(name, wrapped_names[w]) == 0) {
            uintptr_t none = 0;
            /* the first definition found is the one wrapped; another of the same name (a driver
             * the program loaded itself) is handed over as it is, unrecorded */
            if (!atomic_compare_exchange_strong(&layer.real[w], &none, to) && none != to)
                return to;
            *flags |= LA_SYMB_NOPLTENTER | LA_SYMB_NOPLTEXIT;
            return wrappers[w];
        }
    return to;
}

/* The program's objects unloaded: at its normal exit (exit() or main's return, after its atexit
 * handlers; _exit and a crash give nothing). The launches still pending read back (the driver's
 * own objects are unloaded after the program's), then what it still holds, one record past the
 * cap. */
EXPORT unsigned int la_objclose(uintptr_t *cookie) {
    if (!layer.active || *cookie != layer.program_map)
        return 0;
    /* the launches still pending, read once they end, waited for a while (one whose user event
     * the program never set never runs: nothing to read there) */
    for (int waited = 0; waited < EXIT_PATIENCE_MS / 10; waited++) {
        settle();
        lock();
        int left = layer.pending_count;
        unlock();
        if (!left)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    lock();
    int programs = 0, kernels = 0;
    for (int i = 0; i < MAX_PROGRAMS; i++)
        programs += layer.programs[i].handle != NULL;
    for (int i = 0; i < MAX_KERNELS; i++)
        kernels += layer.kernels[i].handle != NULL;
    long held = layer.buffers_created + layer.buffers_retained - layer.buffers_released;
    emit("X %ld %ld %d %d", held > 0 ? held : 0, layer.buffers_created, programs, kernels);
    unlock();
    return 0;
}
