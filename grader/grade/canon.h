/* canon.h - one canonical text of a student's kernel.cl, preprocessed once by the grader, that
 * every build compiles (the device, oclgrind's memory check and traffic count, the timing runs,
 * the student's host program): a kernel cannot tell one build from another by its predefined
 * macros, and cannot reach another file by an #include in any spelling. */
#ifndef GRADER_CANON_H
#define GRADER_CANON_H

#include "exercise/exercise.h"

#include <stddef.h>

#define CANON_TIMEOUT    10.0        /* seconds the preprocessor may run */
#define CANON_MEMORY_KB  (256 << 10) /* its address space (ulimit -v): /dev/zero fails fast */
#define CANON_MAX_BYTES  (8u << 20)  /* largest preprocessed text accepted */
#define CANON_MAX_ERRORS 3           /* preprocessor error lines quoted in a refusal */

/* Preprocess the OpenCL C file source_path with the system C preprocessor (cpp, or cc -E) into
 * out_path, under a fixed set of predefined macros (canon.c lists them; BLOCK=block when
 * block > 0, or the variant's tuning values), with comments removed and each line kept at its line
 * number in the source (build logs cite the student's lines). 0 on success. -1 with one line for
 * the student in why when the kernel is refused: it does not preprocess (the first errors are
 * quoted), it includes a file (any spelling: digraph, trigraph, a comment before the name, a
 * macro-built name), it tests
 * __has_include, it uses asm, the preprocessed text holds a directive other than
 * `#pragma OPENCL EXTENSION|FP_CONTRACT` or `#pragma [no]unroll [N]` (the OpenCL compiler
 * preprocesses it again), or it names a macro that a device's compiler may predefine
 * differently (identifiers beginning with __ not on the OpenCL C allow-list, _ and a capital,
 * cl_..., CL_VERSION_..., FP_FAST_FMA..., linux, unix, i386, ...). The preprocessor runs with a
 * wall-clock limit and a memory limit, its output capped, so `#include "/dev/zero"` or a macro
 * bomb is refused rather than hanging the grader. out_path may be written on failure too. */
int grader_canonicalise(const char *source_path, const char *out_path,
                        const struct grader_variant *variant, char *why, size_t why_size);

#endif
