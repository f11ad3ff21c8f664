/* canon.c - the canonical text of a kernel (canon.h): the system C preprocessor expands the
 * student's kernel.cl once, jailed like every run of student code, and the result is checked so
 * that the OpenCL compiler's own preprocessor, which runs again on every device, finds nothing in
 * it to act on differently (canon_text.c).
 *
 * The run: a jail folder (/tmp/clmm-host-XXXXXX/w) holding only a copy of kernel.cl, the
 * preprocessor started there under the jail's uid, rlimits and control groups, inside the
 * bubblewrap sandbox where it works (the reference solutions, the submissions and the work
 * folders hidden; its cwd is that folder, so /proc/self/cwd/... finds nothing). Where there is no
 * sandbox its uid reads what any student program of the same jail may read, and no more: the
 * grader is never the one that reads. Whatever it read, nothing it printed is quoted: a run that
 * opened or tried to open another file is refused with a fixed message (canon_log.c), and errors
 * are cited by the student's own lines.
 *
 * The preprocessor: `cpp` (or `cc -E`) -x c -std=c99 (OpenCL C is C99's syntax; ISO mode turns
 * trigraphs and digraphs on, -trigraphs says so again) -undef -nostdinc -w -H, with a wall-clock
 * limit. Includes are detected from what the preprocessor reports, never from the source text:
 * -H's header lines, its messages, its dependency file (-MD -MF) and the line markers that enter
 * another file (flag 1). __has_include and __has_include_next are redefined to an undefined
 * function-like name, so testing one is a preprocessing error that names them ("in definition of
 * macro '__has_include'") rather than a probe of the file system.
 *
 * The fixed predefined macros (the same for every device and every build, so neither `#if` nor
 * the kernel's code can tell them apart):
 *   __OPENCL_VERSION__ 120, __OPENCL_C_VERSION__ 120, CL_VERSION_1_0 100, CL_VERSION_1_1 110,
 *   CL_VERSION_1_2 120: the workbook targets OpenCL C 1.2 (oclgrind's version);
 *   __ENDIAN_LITTLE__ 1: every device the grader runs on (x86 POCL, GPUs, oclgrind) is;
 *   __kernel_exec(X, typen) and kernel_exec(X, typen): OpenCL C 1.2's own macros;
 *   BLOCK block, when block > 0 (the table's tile edge, which the harness passes as -DBLOCK), or
 *   from 07 on each tuning value of the variant (-DTS=32 ...): one text per variant;
 *   __FILE__ and __BASE_FILE__ "kernel.cl" (the file's name in its folder), __DATE__, __TIME__
 *   and __TIMESTAMP__ fixed: two variants made a second apart, or in folders of other names,
 *   spell them the same;
 *   and those gcc keeps under -undef (__STDC__, __STDC_VERSION__, __STDC_HOSTED__, __LINE__,
 *   __COUNTER__, ...), the same for every build since the text is made once.
 * Left undefined on purpose: __SPIR__, __x86_64__ and every target macro, __IMAGE_SUPPORT__ and
 * __EMBEDDED_PROFILE__ (device properties), __FAST_RELAXED_MATH__ (the harness never asks for
 * it), FP_FAST_FMA and FP_FAST_FMAF (device speed), the cl_khr_* extension macros (device
 * capabilities): `#ifdef` of any of them is false on every device.
 *
 * Line structure: no -P; the line markers are read and dropped, and blank lines put every line
 * back at its line number in kernel.cl, so a build log's "kernel.cl:42" is the student's line 42.
 */
#define _GNU_SOURCE /* O_NOFOLLOW, O_CLOEXEC, lstat */
#include "text/canon.h"
#include "text/canon_parts.h"
#include "jail/jail.h"
#include "clu.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CANON_OUT  "kernel.i" /* the expanded text, in the jail folder */
#define CANON_DEPS "kernel.d" /* the dependency file */

static void canon_why(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void canon_why(char *why, size_t size, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(why, size, fmt, args);
    va_end(args);
}

/* ---------------------------------------------------------------- the student's lines */

/* Line n of the source (from 1) and its length, or NULL. */
static const char *canon_line(const struct canon_source *src, long n, size_t *len) {
    if (n < 1 || n > src->lines)
        return NULL;
    const char *p = src->text;
    for (long i = 1; i < n; i++) {
        p = strchr(p, '\n');
        if (!p)
            return NULL;
        p++;
    }
    *len = strcspn(p, "\n");
    return p;
}

void canon_quote_line(const struct canon_source *src, long n, char *buf, size_t size) {
    size_t len = 0;
    const char *line = canon_line(src, n, &len);
    int used = snprintf(buf, size, "line %ld", n);
    if (!line || used < 0 || (size_t)used + 8 >= size)
        return;
    while (len && isspace((unsigned char)*line))
        line++, len--;
    while (len && isspace((unsigned char)line[len - 1]))
        len--;
    size_t room = size - (size_t)used - 8, cut = len > 60 ? 60 : len;
    if (cut > room)
        cut = room;
    char *out = buf + used;
    out += sprintf(out, ": \"");
    for (size_t i = 0; i < cut; i++)
        *out++ = isprint((unsigned char)line[i]) ? line[i] : '?';
    sprintf(out, "%s\"", cut < len ? "..." : "");
}

int canon_line_is_directive(const struct canon_source *src, long n) {
    size_t len = 0;
    const char *line = canon_line(src, n, &len);
    if (!line)
        return 0;
    while (len && (*line == ' ' || *line == '\t' || *line == '\f' || *line == '\v'))
        line++, len--;
    return (len >= 1 && line[0] == '#') || (len >= 2 && line[0] == '%' && line[1] == ':') ||
           (len >= 3 && line[0] == '?' && line[1] == '?' && line[2] == '=');
}

/* ---------------------------------------------------------------- running the preprocessor */

/* A file the jailed run wrote in its folder: a plain file (no link) of at most max bytes, read
 * whole; NULL otherwise. */
static char *canon_read_jailed(const char *path, size_t max) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        close(fd);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    close(fd);
    if (got != st.st_size) {
        free(text);
        return NULL;
    }
    text[got] = '\0';
    return text;
}

/* The preprocessor's command line, run in dir (the jail folder) under the sandbox's prefix. */
static int canon_command(const struct grader_sandbox *sandbox,
                         const struct grader_jail_settings *js, const char *dir,
                         const struct grader_variant *variant, struct grader_argv *v) {
    char program[PATH_MAX];
    int plain_cc = 0;
    if (grader_find_program("cpp", program, sizeof program) != 0) {
        if (grader_find_program("cc", program, sizeof program) != 0)
            return -1;
        plain_cc = 1;
    }
    if (grader_sandbox_push(js, sandbox, dir, v)) /* its cwd: the folder, as without it */
        grader_argv_push_all(v, (const char *const[]){"--chdir", dir, NULL});
    grader_argv_push(v, program);
    if (plain_cc)
        grader_argv_push(v, "-E");
    static const char *const fixed[] = {
        "-undef",
        "-nostdinc",
        "-std=c99",
        "-trigraphs",
        "-w",
        "-H", /* each file it opens, named on stderr as it opens it */
        "-D__has_include(x)=__has_include_refused__(x)",
        "-D__has_include_next(x)=__has_include_next_refused__(x)",
        "-D__FILE__=\"" CANON_NAME "\"",
        "-D__BASE_FILE__=\"" CANON_NAME "\"",
        "-D__DATE__=\"Jan  1 2000\"",
        "-D__TIME__=\"00:00:00\"",
        "-D__TIMESTAMP__=\"Sat Jan  1 00:00:00 2000\"",
        "-D__OPENCL_VERSION__=120",
        "-D__OPENCL_C_VERSION__=120",
        "-DCL_VERSION_1_0=100",
        "-DCL_VERSION_1_1=110",
        "-DCL_VERSION_1_2=120",
        "-D__ENDIAN_LITTLE__=1",
        "-D__kernel_exec(X,typen)=__kernel __attribute__((work_group_size_hint(X,1,1))) "
        "__attribute__((vec_type_hint(typen)))",
        "-Dkernel_exec(X,typen)=__kernel __attribute__((work_group_size_hint(X,1,1))) "
        "__attribute__((vec_type_hint(typen)))",
        "-MD",
        "-MT",
        "canon",
        "-MF",
        CANON_DEPS,
        "-o",
        CANON_OUT,
        NULL};
    grader_argv_push_all(v, fixed);
    for (int t = 0; variant->tuning && t < CLU_MAX_DEFINES && variant->tuning[t].name; t++)
        grader_argv_pushf(v, "-D%s=%d", variant->tuning[t].name, variant->tuning[t].value);
    if (!variant->tuning && variant->block > 0)
        grader_argv_pushf(v, "-DBLOCK=%d", variant->block);
    grader_argv_push_all(v, (const char *const[]){"-x", "c", CANON_NAME, NULL});
    return 0;
}

/* Why the preprocessor failed, in one line (no include: canon_log_includes said so). */
static int canon_failed(const struct grader_run_result *run, const char *log,
                        const struct canon_source *src, char *why, size_t size) {
    const char *bomb = "an #include of a device file such as /dev/zero, or a macro that expands "
                       "without end?";
    if (run->how == RUN_TOO_BUSY) {
        canon_why(why, size,
                  "the machine was too busy to preprocess kernel.cl (the grader's "
                  "trouble: grade again when it is quieter)");
        return CANON_BUSY;
    }
    if (run->how == RUN_NO_START) {
        canon_why(why, size, "the grader could not start the preprocessor (%s)",
                  strerror(run->code));
        return CANON_REFUSED;
    }
    /* the driver (cpp, cc) outlives cc1 and names the signal that ended it */
    if (run->how == RUN_TIMEOUT || strstr(log, "CPU time limit exceeded") ||
        (run->how == RUN_SIGNALED && run->code == SIGXCPU)) {
        canon_why(why, size, "kernel.cl refused: the preprocessor did not finish in %.0f s (%s)",
                  CANON_TIMEOUT, bomb);
        return CANON_REFUSED;
    }
    if ((run->how == RUN_OVER_LIMIT && (run->code == LIMIT_DISK || run->code == LIMIT_OUTPUT)) ||
        (run->how == RUN_SIGNALED && run->code == SIGXFSZ) ||
        strstr(log, "File size limit exceeded")) {
        canon_why(why, size, "kernel.cl refused: it expands to more than %u MiB",
                  CANON_MAX_BYTES >> 20);
        return CANON_REFUSED;
    }
    if ((run->how == RUN_OVER_LIMIT && run->code == LIMIT_MEMORY) ||
        (run->how == RUN_SIGNALED && run->code == SIGKILL) || strstr(log, "out of memory") ||
        strstr(log, "memory exhausted") || strstr(log, "Killed signal")) {
        canon_why(why, size, "kernel.cl refused: the preprocessor ran out of memory (%s)", bomb);
        return CANON_REFUSED;
    }
    if (strstr(log, "__has_include")) {
        canon_why(why, size,
                  "kernel.cl refused: it tests __has_include, which looks for files: "
                  "the grader builds kernel.cl alone");
        return CANON_REFUSED;
    }
    char errors[400];
    canon_log_errors(log, src, errors, sizeof errors);
    if (errors[0]) {
        canon_why(why, size, "kernel.cl does not preprocess: %s", errors);
    } else {
        char how[160];
        grader_describe_run(run, how, sizeof how);
        canon_why(why, size, "kernel.cl does not preprocess: the preprocessor %s", how);
    }
    return CANON_REFUSED;
}

/* ---------------------------------------------------------------- the whole */

int grader_canonicalise(const struct grader_jail_settings *jail,
                        const struct grader_sandbox *sandbox, const char *source_path,
                        const char *out_path, const struct grader_variant *variant, char *why,
                        size_t why_size) {
    why[0] = '\0';
    char dir[PATH_MAX], copy[PATH_MAX + 16], log[PATH_MAX + 16], path[PATH_MAX + 16];
    if (grader_jail_dir_make(dir, sizeof dir) != 0) {
        canon_why(why, why_size, "the grader cannot prepare its folder in /tmp (%s)",
                  strerror(errno));
        return CANON_REFUSED;
    }
    struct canon_source src = {NULL, 0};
    char copied[100] = "";
    snprintf(copy, sizeof copy, "%s/" CANON_NAME, dir);
    if (grader_copy_source(source_path, copy, copied, sizeof copied) != 0 ||
        !(src.text = clu_read_file(copy, NULL))) {
        canon_why(why, why_size, "kernel.cl: %s", copied[0] ? copied : "cannot be read");
        grader_jail_dir_remove(dir);
        return CANON_REFUSED;
    }
    src.lines = 1;
    for (const char *c = src.text; *c; c++)
        src.lines += *c == '\n';
    /* its own limits: the preprocessor needs little, and a text it makes is capped */
    struct grader_jail_settings js = *jail;
    js.kernel_cache = NULL;
    js.limits.cpu_seconds = CANON_TIMEOUT;
    js.limits.memory_bytes = CANON_MEMORY;
    js.limits.disk_bytes = CANON_MAX_BYTES + (1 << 20);
    if (js.limits.processes > 32)
        js.limits.processes = 32;
    struct grader_argv argv = GRADER_ARGV_INIT;
    int status = CANON_REFUSED;
    char *text = NULL, *deps = NULL, *said = NULL;
    FILE *out = NULL;
    if (canon_command(sandbox, &js, dir, variant, &argv) != 0) {
        canon_why(why, why_size, "no C preprocessor (cpp or cc) on the grading machine");
        goto done;
    }
    /* its log in the grader's folder (opened before the jail), the rest in the jail folder */
    snprintf(log, sizeof log, "%s.cpp-log", out_path);
    struct grader_run_result run;
    grader_run_jailed(&js, argv.argv, dir, log, CANON_TIMEOUT, &run);
    said = grader_read_capped(log, 64u << 10);
    snprintf(path, sizeof path, "%s/" CANON_DEPS, dir);
    deps = canon_read_jailed(path, 64u << 10);
    long line = 0;
    if (run.how != RUN_NO_START && run.how != RUN_TOO_BUSY &&
        canon_log_includes(said, deps, &line)) {
        char where[120] = "";
        if (line > 0)
            canon_quote_line(&src, line, where, sizeof where);
        canon_why(why, why_size,
                  "kernel.cl refused: it includes a file%s%s: the grader builds kernel.cl alone "
                  "(copy what you need into it)",
                  where[0] ? ", " : "", where);
        goto done;
    }
    if (run.how != RUN_EXITED || run.code != 0) {
        status = canon_failed(&run, said, &src, why, why_size);
        goto done;
    }
    snprintf(path, sizeof path, "%s/" CANON_OUT, dir);
    text = canon_read_jailed(path, CANON_MAX_BYTES);
    if (!text) {
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)CANON_MAX_BYTES)
            canon_why(why, why_size, "kernel.cl refused: it expands to more than %u MiB",
                      CANON_MAX_BYTES >> 20);
        else
            canon_why(why, why_size, "the preprocessor wrote no text");
        goto done;
    }
    out = fopen(out_path, "w");
    if (!out) {
        canon_why(why, why_size, "cannot write %s", out_path);
        goto done;
    }
    struct canon_emit e = {why, why_size, out, 0, &src};
    status = canon_emit(&e, text) == 0 ? 0 : CANON_REFUSED;
done:
    if (out && fclose(out) != 0 && status == 0) {
        canon_why(why, why_size, "cannot write %s", out_path);
        status = CANON_REFUSED;
    }
    grader_argv_clear(&argv);
    free(text);
    free(deps);
    free(said);
    free(src.text);
    unlink(log);
    grader_jail_dir_remove(dir);
    return status;
}
