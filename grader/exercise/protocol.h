/* protocol.h - what the grader and the children it runs jailed agree on: the command lines of
 * `grader --harness` (the OpenCL kernel harness, child/harness.c) and `grader --cuda-harness` (the
 * CUDA twin's, child/cuda_harness.c), their exit statuses, the files they save, the words of the
 * serving harness, the guard zone after C and the CUDA kernel's launch. protocol.c holds the one
 * writer and the one reader of the CUDA harness's text files, and the parser of the children's
 * numbers. The children decide nothing; the grader reads their statuses and files with these
 * names and believes nothing in them that it has not checked.
 */
#ifndef GRADER_EXERCISE_PROTOCOL_H
#define GRADER_EXERCISE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- command lines */

/* The first argument of `grader` that makes it a child. */
#define HARNESS_COMMAND      "--harness"
#define CUDA_HARNESS_COMMAND "--cuda-harness"

/* Their flags, as the grader spells them (FLAG_NAME: as getopt_long names them). A number is
 * decimal digits and nothing else (grader_parse_number). */
#define FLAG_EX     "--ex"     /* ID: the exercise (--harness) */
#define FLAG_KERNEL "--kernel" /* FILE: the kernel.cl to build (--harness) */
#define FLAG_DEVICE "--device" /* SPEC: the OpenCL device, as clu_env_open takes it (--harness) */
#define FLAG_EXACT  "--exact"  /* no guard zone: oclgrind must see C's true end (--harness) */
#define FLAG_SERVE  "--serve"  /* timed launches on command, the SERVE_ words (--harness) */
#define FLAG_VENDORS                                                                               \
    "--vendors"               /* --serve also times the vendors' SGEMMs (the reference's only)     \
                               */
#define FLAG_CUBIN  "--cubin" /* FILE: the cubin, fatbin or PTX nvcc made (--cuda-harness) */
#define FLAG_PROBE  "--probe" /* only the device, into CUDA_DEVICE_FILE (--cuda-harness) */
#define FLAG_TIME   "--time"  /* timed launches, into CUDA_TIMING_FILE (--cuda-harness) */
#define FLAG_N      "--n"     /* N: the size of the matrices (rectangular: C's columns) */
#define FLAG_M      "--m"     /* M: rows of A and C (--harness, rectangular rows; default N) */
#define FLAG_K      "--k"     /* K: A's columns, B's rows (--harness, rectangular; default N) */
#define FLAG_CHECK  "--check-tuning" /* the row's oclgrind tuning values (--harness) */
#define FLAG_SEED   "--seed"         /* S: the seed of A and B */
#define FLAG_BLOCK  "--block"        /* B: BLOCK (--harness: 0 is the table row's) */
#define FLAG_DEFINE "--define" /* NAME=VALUE: a tuning value instead of the row's (--harness) */
#define FLAG_OUT    "--out"    /* DIR: where the child saves its files */
/* M,N,K,SEED: one more size run by the same harness after --n's (--harness, not --serve), its
 * files saved in DIR/RESULT_THEN (repeatable, GRADER_MAX_SIZES - 1 times at most) */
#define FLAG_THEN "--then"
/* the CUDA twin of a row with tuning values (--cuda-harness): its grid and thread block, which
 * the grader works out from the row's launch geometry */
#define FLAG_GROUPS_X  "--groups-x"  /* blocks of the grid along x (C's columns) */
#define FLAG_GROUPS_Y  "--groups-y"  /* ... and along y (C's rows) */
#define FLAG_THREADS_X "--threads-x" /* threads of a block along x */
#define FLAG_THREADS_Y "--threads-y" /* ... and along y */

#define FLAG_NAME(flag) ((flag) + 2) /* without its two dashes */

/* Exit statuses of `grader --harness`, the child that runs a kernel for the grader. */
#define HARNESS_OK          0
#define HARNESS_USAGE       2    /* bad flags, or files that could not be written */
#define HARNESS_OPENCL      3    /* an OpenCL call failed (message on stderr) */
#define HARNESS_BUILD       4    /* the kernel source did not build (build log on stderr) */
#define HARNESS_NO_KERNEL   5    /* no __kernel of the expected name */
#define HARNESS_BAD_DEVICE  6    /* no device, or the work-group does not fit it */
#define HARNESS_BAD_ARGS    7    /* the kernel's parameters do not take the row's arguments */
#define HARNESS_GROUP_LIMIT 8    /* the built kernel takes smaller work-groups than the launch's */
#define HARNESS_LOCAL_LIMIT 9    /* the built kernel needs more local memory than the device has */
#define HARNESS_GUARD       1024 /* floats of guard zone after C, filled with GUARD_VALUE */
#define HARNESS_GUARD_VALUE 1234567.0f

/* Exit statuses of `grader --cuda-harness` */
#define CUDA_HARNESS_OK        0
#define CUDA_HARNESS_USAGE     2  /* bad flags, or files that could not be written */
#define CUDA_HARNESS_NO_DEVICE 10 /* no driver or GPU, or one that cannot load nvcc's code */
#define CUDA_HARNESS_MODULE    11 /* the module lacks the kernel function or does not load */
#define CUDA_HARNESS_FAILED    12 /* a CUDA call failed running the kernel (message on stderr) */

/* ---------------------------------------------------------------- the launch layer */

/* The grader's OpenCL layer (child/launch_layer.c), loaded with LD_AUDIT into the student's host
 * program, tells the grader (grade/host_launches.c) which programs the host program created and
 * built, which kernels it created from them and how it enqueued them. One message a record on a
 * SOCK_SEQPACKET socket that the program gets as fd LAYER_FD (the jail's GRADER_CHANNEL_FD);
 * the grader first writes LAYER_NONCE_SIZE characters on it, which the layer reads before any
 * of the student's code runs, and every record starts with them. A record is text:
 *   NONCE H                              the layer is in the program
 *   NONCE P ID BYTES HASH                program ID created from BYTES bytes of source whose
 *                                        FNV-1a 64 (grader_fnv1a) is HASH (16 hex digits)
 *   NONCE B ID STATUS                    clBuildProgram of program ID returned STATUS
 *   NONCE K ID PROGRAM NAME              kernel ID named NAME created from program PROGRAM
 *                                        (-1: one the layer did not see created)
 *   NONCE E KERNEL STATUS DIMS LOCAL O0 O1 O2 G0 G1 G2 L0 L1 L2
 *                                        clEnqueueNDRangeKernel of kernel KERNEL (-1: unseen)
 *                                        returned STATUS; LOCAL 1 when a local size was given;
 *                                        offsets, global and local sizes, 0 past DIMS
 *   NONCE A INDEX KIND BUFFER VALUE      after an E: its kernel's argument INDEX (under 8) at
 *                                        that launch, as clSetKernelArg last set it: KIND m a
 *                                        buffer the layer saw created (number BUFFER, VALUE
 *                                        bytes), i a 4-byte value VALUE, l local memory of VALUE
 *                                        bytes, o another value of VALUE bytes
 *   NONCE L KERNEL NEEDS HAS             a launch of kernel KERNEL needed NEEDS bytes of local
 *                                        memory, the device (no GPU) has HAS: the layer failed
 *                                        it with CL_OUT_OF_RESOURCES, the device never saw it
 *   NONCE G BUFFER SIDE FLOATS KERNEL    after a launch of kernel KERNEL: FLOATS floats of the
 *                                        guard zone the layer put before (SIDE 0) or after
 *                                        (SIDE 1) buffer number BUFFER were changed: a write
 *                                        past that end (once a buffer and side)
 *   NONCE X HELD CREATED PROGRAMS KERNELS
 *                                        at the program's normal exit: buffers it still held
 *                                        (HELD of the CREATED clCreateBuffer made), programs and
 *                                        kernels (of those the layer saw) it never released */
#define LAYER_FILE       "launch_layer.so" /* in build/grader/, and its copy in the jail folder */
#define LAYER_FD         3
#define LAYER_NONCE_SIZE 32  /* hex digits */
#define LAYER_RECORD_MAX 400 /* bytes of one record, its nonce included */
#define LAYER_NAME_MAX   128 /* a kernel name longer than this is not recorded */
/* The layer's guard zones: each buffer the program creates (but one on its own host memory,
 * CL_MEM_USE_HOST_PTR) is a sub-buffer of a larger one, with LAYER_GUARD_BYTES (rounded up to the
 * device's alignment) on either side filled with CLU_PAST_END_BITS: a read past an end poisons C
 * as the harness's guard after A and B does, and a write past one is seen after the launch. */
#define LAYER_GUARD_BYTES 65536

/* ---------------------------------------------------------------- files in the child's DIR */

#define RESULT_C     "c.bin"    /* C and its guard zone, in clu_save_result's format */
#define RESULT_A     "a.bin"    /* A as the kernel left it */
#define RESULT_B     "b.bin"    /* B as the kernel left it */
#define RESULT_THEN  "then-%d"  /* printf format: the folder of --then's size I (from 1) */
#define RESULT_DONE  "done"     /* with --then: a size's C, A and B are all saved (an empty file) */
#define RESULT_ROUND "c-%d.bin" /* printf format: C and its guard after timed launch R (from 0) */
#define RESULT_LAUNCH                                                                              \
    "c-%d-%d.bin" /* printf format: C and its guard of launch set K of timed round R (--serve) */

#define CUDA_DEVICE_FILE "device.txt" /* --probe: grader_cuda_device_write's lines */
#define CUDA_TIMING_FILE "timing.txt" /* --time: grader_cuda_timing_write's lines */

/* ---------------------------------------------------------------- --serve (child/harness.c)
 * Commands on stdin, one reply line each on fd 3 (R the round, NONCE the grader's):
 *   (at start)                -> SERVE_READY
 *   inputs R SEED SETS NONCE  -> inputs R NONCE (SETS launch sets, from grader_launch_seed)
 *   launch R COUNT NONCE      -> launched R NONCE SECONDS (COUNT launches, back to back, on the
 *                                sets in turn; a set used again has its C filled first)
 *   fill R COUNT NONCE        -> filled R NONCE (those fills alone, timed to be taken out)
 *   save R K NONCE            -> saved R NONCE (set K's C in RESULT_LAUNCH)
 *   vendor R KEY NONCE        -> vendor R NONCE SECONDS (the last COUNT's), or vendor-skipped R
 *                                NONCE REASON (with FLAG_VENDORS: KEY is clu_vendor_key's, on the
 *                                harness's first inputs)
 * A command of COUNT launches lasts long enough for the grader's clock to time it well (its
 * overhead per command, a fraction of a millisecond on a GPU, spread over them), and every launch
 * has inputs and a C of its own, or where the sets would not fit the device (a vector add's
 * hundreds of launches), a C filled anew, so none can take its answer from the one before. */
#define SERVE_READY        "ready"
#define SERVE_INPUTS       "inputs" /* the command and its reply */
#define SERVE_LAUNCH       "launch"
#define SERVE_LAUNCHED     "launched"
#define SERVE_SAVE         "save"
#define SERVE_SAVED        "saved"
#define SERVE_VENDOR       "vendor" /* the command and its reply when timed */
#define SERVE_SKIPPED      "vendor-skipped"
#define SERVE_FILL         "fill"
#define SERVE_FILLED       "filled"
#define SERVE_MAX_SETS     64   /* launch sets of one round at most */
#define SERVE_MAX_LAUNCHES 4096 /* launches of one command at most */

/* ---------------------------------------------------------------- the CUDA twin */

#define CUDA_KERNEL      "mmul_blocked" /* kernel.cu's function where the row has no kernel */
#define CUDA_BLOCK       16             /* BLOCK when the table row gives none */
#define CUDA_TIME_ROUNDS 8              /* --time: timed launches, each one's C saved and checked */
#define CUDA_NAME_MAX    256            /* bytes of a device's name, with its NUL */

/* The inputs of the CUDA harness's timed launch r: both sides compute them from the run's seed
 * (the child never writes a seed back for the grader to believe). */
static inline uint64_t cuda_round_seed(uint64_t seed, int r) {
    return (seed ^ (0xc2b2ae3d27d4eb4full * (uint64_t)(r + 1))) & 0x7fffffffffffffffull;
}

/* CUDA_DEVICE_FILE: "capability C", "name NAME", "driver V", one line each. */
struct grader_cuda_device {
    int capability;           /* 10 * major + minor: 90 for sm_90 */
    char name[CUDA_NAME_MAX]; /* cuDeviceGetName's */
    int driver;               /* cuDriverGetVersion's: 13000 for CUDA 13.0 */
};

/* CUDA_TIMING_FILE: "cuda MIN MEDIAN MAX RUNS" (seconds), then "device NAME". */
struct grader_cuda_timing {
    double seconds[3];          /* min, median and max of the timed launches */
    int runs;                   /* timed launches behind them */
    char device[CUDA_NAME_MAX]; /* the GPU's name */
};

/* The child's writers, into DIR: 0, or -1 (a message on stderr). */
int grader_cuda_device_write(const char *dir, const struct grader_cuda_device *d);
int grader_cuda_timing_write(const char *dir, const struct grader_cuda_timing *t);

/* The grader's readers, from DIR: 0, or -1 with *d or *t zeroed. Strict, for the file was written
 * by the student's process: a plain file of at most a few lines in exactly the writer's form,
 * printable ASCII, the numbers in range and finite. */
int grader_cuda_device_read(const char *dir, struct grader_cuda_device *d);
int grader_cuda_timing_read(const char *dir, struct grader_cuda_timing *t);

/* A child's number: decimal digits only (no sign, space or suffix), at most max. 0, or -1. */
int grader_parse_number(const char *text, unsigned long long max, unsigned long long *value);

#endif
