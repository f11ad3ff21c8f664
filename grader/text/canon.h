/* canon.h - one canonical text of a student's kernel.cl, preprocessed once by the grader, that
 * every build compiles (the device, oclgrind's memory check and traffic count, the timing runs,
 * the student's host program): a kernel cannot tell one build from another by its predefined
 * macros, and cannot reach another file by an #include in any spelling. */
#ifndef GRADER_CANON_H
#define GRADER_CANON_H

#include "exercise/exercise.h"
#include "jail/jail.h"

#include <stddef.h>

#define CANON_TIMEOUT    10.0        /* seconds the preprocessor may run */
#define CANON_MEMORY     (256 << 20) /* bytes it may allocate (RLIMIT_DATA): /dev/zero fails fast */
#define CANON_MAX_BYTES  (8u << 20)  /* largest preprocessed text accepted */
#define CANON_MAX_ERRORS 3           /* preprocessor errors cited in a refusal */

#define CANON_REFUSED (-1) /* the kernel is refused (why says why: the student's to fix) */
#define CANON_BUSY    (-2) /* the preprocessor was starved twice by a busy machine: no verdict */

/* Preprocess the OpenCL C file source_path with the system C preprocessor (cpp, or cc -E) into
 * out_path, under a fixed set of predefined macros (canon.c lists them; BLOCK=block when
 * block > 0, or the variant's tuning values), with comments removed and each line kept at its line
 * number in the source (build logs cite the student's lines).
 *
 * The preprocessor is student code's first run and runs like every other (jail, with sandbox's
 * policy): its own uid and limits, in a folder holding nothing but a copy of kernel.cl,
 * where the sandbox hides the reference solutions, the submissions and the work folders.
 *
 * 0 on success. CANON_REFUSED with one line for the student in why when the kernel is refused: it
 * does not preprocess (the lines of kernel.cl the errors are on are quoted, never the
 * preprocessor's words), it includes or probes a file (any spelling: digraph, trigraph, a comment
 * before the name, a macro-built name, __has_include: one fixed message, whatever the file held),
 * it uses asm, the preprocessed text holds a directive other than #pragma (the OpenCL compiler
 * preprocesses it again) or a pragma that acts on files, macros, symbols, the compiler or a loop's
 * dependences (canon_text.c; pragmas no compiler knows pass, and every compiler ignores them), or
 * it names a macro that a device's compiler may predefine differently (identifiers beginning with
 * __ not on the OpenCL C allow-list, _ and a capital, cl_..., CL_VERSION_..., FP_FAST_FMA...,
 * linux, unix, i386, ...). The preprocessor runs with a wall-clock limit and a memory limit, its
 * output capped, so `#include "/dev/zero"` or a macro bomb is refused rather than hanging the
 * grader. CANON_BUSY when the machine starved it (the grader's trouble, said in why). out_path may
 * be written on failure too. */
int grader_canonicalise(const struct grader_jail_settings *jail,
                        const struct grader_sandbox *sandbox, const char *source_path,
                        const char *out_path, const struct grader_variant *variant, char *why,
                        size_t why_size);

#endif
