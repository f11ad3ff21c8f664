/* launch_layer_state.h - the grader's OpenCL layer's own state (launch_layer.c), shared by the
 * layer's files within its module only (its symbols are hidden; nothing outside the layer includes
 * this): the OpenCL functions it wraps, the programs, kernels, buffers and launches it tracks, the
 * one struct that holds them with its lock and record writer, and what each file gives the
 * others: launch_layer_buffers.c the wrappers of the buffer calls, launch_layer_pending.c a
 * launch's guards read back (at once, or once it ended) and the wrappers of the calls where the
 * program waits. What the layer asks of the driver is launch_layer_driver.h's. */
#ifndef CHILD_LAUNCH_LAYER_STATE_H
#define CHILD_LAUNCH_LAYER_STATE_H

#include "child/launch_layer_driver.h"
#include "exercise/protocol.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PROGRAMS 64  /* created and not released, at once */
#define MAX_KERNELS  256 /* the same for kernels */
#define MAX_LAUNCHES 32  /* distinct launches recorded (the same launch again is not) */
#define MAX_RECORDS  256 /* records of the other kinds */
#define MAX_BUFFERS  128 /* buffers created and not released, at once, known by handle */
#define MAX_ARGS     8   /* a kernel's arguments recorded with its launches (every exercise's) */

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

/* The layer's state, in one struct (launch_layer.c defines it): the loader and the program call in
 * with no context to hand it. */
struct layer_state {
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
};
extern struct layer_state layer;

/* The lock of the tables and counts, a record to the grader, and the tables' entries
 * (launch_layer.c says each). */
void layer_lock(void);
void layer_unlock(void);
void layer_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct tracked *layer_find(struct tracked *table, int size, const void *handle);
int layer_track(struct tracked *table, int size, const void *handle, int *next, int program);
void layer_retained(struct tracked *table, int size, const void *handle);
void layer_releasing(struct tracked *table, int size, const void *handle, struct guarded *guards,
                     struct guarded *gone);

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

/* A launch's guards read back, at once or once it ended (launch_layer_pending.c says each). */
void layer_check_guards(cl_command_queue queue, cl_event done, const struct launch *l);
void layer_defer(cl_command_queue queue, cl_event done, const struct launch *l);
void layer_settle(void);

/* The wrappers that la_symbind64 hands the program: of the buffer calls
 * (launch_layer_buffers.c)... */
cl_mem CL_API_CALL layer_wrap_create_buffer(cl_context context, cl_mem_flags flags, size_t size,
                                            void *host, cl_int *err);
cl_int CL_API_CALL layer_wrap_retain_mem(cl_mem buffer);
cl_int CL_API_CALL layer_wrap_release_mem(cl_mem buffer);
cl_mem CL_API_CALL layer_wrap_create_sub_buffer(cl_mem buffer, cl_mem_flags flags,
                                                cl_buffer_create_type type, const void *info,
                                                cl_int *err);
/* ...and of the calls where the program waits (launch_layer_pending.c) */
cl_int CL_API_CALL layer_wrap_finish(cl_command_queue queue);
cl_int CL_API_CALL layer_wrap_wait(cl_uint count, const cl_event *events);
cl_int CL_API_CALL layer_wrap_read(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                   size_t offset, size_t size, void *ptr, cl_uint wait_count,
                                   const cl_event *wait, cl_event *event);
cl_int CL_API_CALL layer_wrap_write(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                    size_t offset, size_t size, const void *ptr, cl_uint wait_count,
                                    const cl_event *wait, cl_event *event);
void *CL_API_CALL layer_wrap_map(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                                 cl_map_flags flags, size_t offset, size_t size, cl_uint wait_count,
                                 const cl_event *wait, cl_event *event, cl_int *err);
cl_int CL_API_CALL layer_wrap_release_queue(cl_command_queue queue);

#endif
