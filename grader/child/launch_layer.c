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
 * layer's (launch_layer_buffers.c); the guards a launch took are read back after it, a changed
 * side a G record. A launch behind a user event the program has not set yet is read once it has
 * ended (struct pending, launch_layer_pending.c): asked after the program's waits, at a
 * buffer's release, before each launch and at its exit.
 * One struct holds the layer's state (launch_layer_state.h, defined here): the loader and the
 * program call in with no context to hand it. This file keeps the audit entry points, the
 * wrapped names, the programs and kernels tracked, their arguments and the launches.
 */
#define _GNU_SOURCE /* link.h's audit interface */
#include "child/launch_layer_state.h"

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

#define EXPORT __attribute__((visibility("default")))

#define EXIT_PATIENCE_MS 2000 /* at the program's exit, for launches still pending to end */

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

struct layer_state layer = {.lock = ATOMIC_FLAG_INIT};

void layer_lock(void) {
    while (atomic_flag_test_and_set_explicit(&layer.lock, memory_order_acquire))
        sched_yield();
}
void layer_unlock(void) {
    atomic_flag_clear_explicit(&layer.lock, memory_order_release);
}

/* One record to the grader, the nonce first; never blocks (a full channel drops it). */
void layer_emit(const char *fmt, ...) {
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

struct tracked *layer_find(struct tracked *table, int size, const void *handle) {
    for (int i = 0; handle && i < size; i++)
        if (table[i].handle == handle)
            return &table[i];
    return NULL;
}

/* A new entry for handle: its number, or -1 when the table is full (then it is not tracked). */
int layer_track(struct tracked *table, int size, const void *handle, int *next, int program) {
    struct tracked *slot = NULL;
    for (int i = 0; !slot && i < size; i++)
        if (!table[i].handle)
            slot = &table[i];
    if (!slot)
        return -1;
    *slot = (struct tracked){handle, (*next)++, 1, program};
    return slot->id;
}

void layer_retained(struct tracked *table, int size, const void *handle) {
    layer_lock();
    struct tracked *t = layer_find(table, size, handle);
    if (t)
        t->refs++;
    layer_unlock();
}

/* Before the real release: the entry goes with the program's last reference, so that a new
 * object at the same address is never taken for the old one; so do its guard zones (guards, the
 * table's; NULL: none) into *gone. */
void layer_releasing(struct tracked *table, int size, const void *handle, struct guarded *guards,
                     struct guarded *gone) {
    layer_lock();
    struct tracked *t = layer_find(table, size, handle);
    if (t && --t->refs <= 0) {
        t->handle = NULL;
        if (guards) {
            *gone = guards[t - table];
            guards[t - table] = (struct guarded){0};
        }
    }
    layer_unlock();
}

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
        layer_lock();
        int id = layer_track(layer.programs, MAX_PROGRAMS, program, &layer.next_program, -1);
        if (id >= 0 && layer.record_count++ < MAX_RECORDS)
            layer_emit("P %d %zu %016llx", id, total, (unsigned long long)hash);
        layer_unlock();
    }
    return program;
}

static cl_int CL_API_CALL wrap_build(cl_program program, cl_uint device_count,
                                     const cl_device_id *devices, const char *options,
                                     void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    /* no lock across the call: a build's callback may call OpenCL (and so a wrapper) */
    cl_int status = REAL(W_BUILD, build_fn)(program, device_count, devices, options, notify, data);
    layer_lock();
    struct tracked *t = layer_find(layer.programs, MAX_PROGRAMS, program);
    if (t && layer.record_count++ < MAX_RECORDS)
        layer_emit("B %d %d", t->id, (int)status);
    layer_unlock();
    return status;
}

static cl_int CL_API_CALL wrap_retain_program(cl_program program) {
    cl_int status = REAL(W_RETAIN_PROGRAM, program_fn)(program);
    if (status == CL_SUCCESS)
        layer_retained(layer.programs, MAX_PROGRAMS, program);
    return status;
}

static cl_int CL_API_CALL wrap_release_program(cl_program program) {
    layer_releasing(layer.programs, MAX_PROGRAMS, program, NULL, NULL);
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
        layer_lock();
        struct tracked *from = layer_find(layer.programs, MAX_PROGRAMS, program);
        int of = from ? from->id : -1;
        int id = layer_track(layer.kernels, MAX_KERNELS, kernel, &layer.next_kernel, of);
        struct tracked *slot = layer_find(layer.kernels, MAX_KERNELS, kernel);
        if (slot) /* a new kernel (at a slot an old one left) has no arguments yet */
            memset(layer.args[slot - layer.kernels], 0, sizeof layer.args[0]);
        if (id >= 0 && layer.record_count++ < MAX_RECORDS)
            layer_emit("K %d %d %s", id, of, copy);
        layer_unlock();
    }
    return kernel;
}

static cl_int CL_API_CALL wrap_retain_kernel(cl_kernel kernel) {
    cl_int status = REAL(W_RETAIN_KERNEL, kernel_fn)(kernel);
    if (status == CL_SUCCESS)
        layer_retained(layer.kernels, MAX_KERNELS, kernel);
    return status;
}

static cl_int CL_API_CALL wrap_release_kernel(cl_kernel kernel) {
    layer_releasing(layer.kernels, MAX_KERNELS, kernel, NULL, NULL);
    return REAL(W_RELEASE_KERNEL, kernel_fn)(kernel);
}
static cl_int CL_API_CALL wrap_enqueue(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                                       const size_t *offset, const size_t *global,
                                       const size_t *local, cl_uint wait_count,
                                       const cl_event *wait, cl_event *event) {
    layer_settle();
    struct launch l = {.dims = dims, .has_local = local != NULL};
    int copied = dims >= 1 && dims <= 3;
    for (cl_uint d = 0; copied && d < dims; d++) {
        l.offset[d] = offset ? offset[d] : 0;
        l.global[d] = global ? global[d] : 0;
        l.local[d] = local ? local[d] : 0;
    }
    layer_lock();
    struct tracked *t = layer_find(layer.kernels, MAX_KERNELS, kernel);
    l.kernel = t ? t->id : -1;
    if (t)
        memcpy(l.args, layer.args[t - layer.kernels], sizeof l.args);
    layer_unlock();
    cl_ulong needs = 0, has = 0;
    if (l.kernel >= 0 && layer_local_over(queue, kernel, &needs, &has)) {
        l.status = CL_OUT_OF_RESOURCES;
        layer_lock();
        if (layer.record_count++ < MAX_RECORDS)
            layer_emit("L %d %llu %llu", l.kernel, (unsigned long long)needs,
                       (unsigned long long)has);
        layer_unlock();
    } else { /* the real launch gets the copies that are recorded (where there are any) */
        cl_event own = NULL, *done = event ? event : &own; /* (the layer's, where none is asked) */
        l.status =
            REAL(W_ENQUEUE, enqueue_fn)(queue, kernel, dims, copied && offset ? l.offset : offset,
                                        copied && global ? l.global : global,
                                        copied && local ? l.local : local, wait_count, wait, done);
        if (l.kernel >= 0 && l.status == CL_SUCCESS && layer_can_wait(wait_count, wait))
            layer_check_guards(queue, *done, &l);
        else if (l.kernel >= 0 && l.status == CL_SUCCESS) /* (a read now would hang) */
            layer_defer(queue, *done, &l);
        if (own && layer_dispatch(own)->clReleaseEvent)
            layer_dispatch(own)->clReleaseEvent(own);
    }
    layer_lock();
    int known = 0;
    for (int i = 0; i < layer.launch_count && !known; i++)
        known = memcmp(&layer.launches[i], &l, sizeof l) == 0;
    if (!known && layer.launch_count < MAX_LAUNCHES) {
        layer.launches[layer.launch_count++] = l;
        layer_emit("E %d %d %u %d %zu %zu %zu %zu %zu %zu %zu %zu %zu", l.kernel, (int)l.status,
                   l.dims, l.has_local, l.offset[0], l.offset[1], l.offset[2], l.global[0],
                   l.global[1], l.global[2], l.local[0], l.local[1], l.local[2]);
        for (int a = 0; a < MAX_ARGS; a++) /* its arguments, after it */
            if (l.args[a].kind)
                layer_emit("A %d %c %d %lld", a, l.args[a].kind, l.args[a].buffer, l.args[a].value);
    }
    layer_unlock();
    return l.status;
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
    layer_lock();
    struct tracked *k = layer_find(layer.kernels, MAX_KERNELS, kernel),
                   *b = handle ? layer_find(layer.buffers, MAX_BUFFERS, handle) : NULL;
    if (b)
        a = (struct arg){.kind = 'm', .buffer = b->id, .value = b->program};
    if (k)
        layer.args[k - layer.kernels][index] = a;
    layer_unlock();
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
                                            (uintptr_t)layer_wrap_create_buffer,
                                            (uintptr_t)layer_wrap_retain_mem,
                                            (uintptr_t)layer_wrap_release_mem,
                                            (uintptr_t)wrap_set_arg,
                                            (uintptr_t)layer_wrap_create_sub_buffer,
                                            (uintptr_t)layer_wrap_finish,
                                            (uintptr_t)layer_wrap_wait,
                                            (uintptr_t)layer_wrap_read,
                                            (uintptr_t)layer_wrap_write,
                                            (uintptr_t)layer_wrap_map,
                                            (uintptr_t)layer_wrap_release_queue};

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
    layer_emit("H");
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
        layer_settle();
        layer_lock();
        int left = layer.pending_count;
        layer_unlock();
        if (!left)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    layer_lock();
    int programs = 0, kernels = 0;
    for (int i = 0; i < MAX_PROGRAMS; i++)
        programs += layer.programs[i].handle != NULL;
    for (int i = 0; i < MAX_KERNELS; i++)
        kernels += layer.kernels[i].handle != NULL;
    long held = layer.buffers_created + layer.buffers_retained - layer.buffers_released;
    layer_emit("X %ld %ld %d %d", held > 0 ? held : 0, layer.buffers_created, programs, kernels);
    layer_unlock();
    return 0;
}
