/* canon.c - the canonical text of a kernel (canon.h): the system C preprocessor expands the
 * student's kernel.cl once, and the result is checked so that the OpenCL compiler's own
 * preprocessor, which runs again on every device, finds nothing in it to act on differently.
 *
 * The preprocessor: `cpp` (or `cc -E`) -x c -std=c99 (OpenCL C is C99's syntax; ISO mode turns
 * trigraphs and digraphs on, -trigraphs says so again) -undef -nostdinc -w, under `ulimit -v`,
 * with a wall-clock limit (grader_run). Includes are detected from what the preprocessor reports,
 * never from the source text: its dependency file (-MD -MF) and the line markers that enter
 * another file (flag 1). __has_include and __has_include_next are redefined to an undefined
 * function-like name, so testing one is a preprocessing error that names them ("in definition of
 * macro '__has_include'") rather than a probe of the file system.
 *
 * The fixed predefined macros (the same for every device, so `#if` cannot tell them apart):
 *   __OPENCL_VERSION__ 120, __OPENCL_C_VERSION__ 120, CL_VERSION_1_0 100, CL_VERSION_1_1 110,
 *   CL_VERSION_1_2 120: the workbook targets OpenCL C 1.2 (oclgrind's version);
 *   __ENDIAN_LITTLE__ 1: every device the grader runs on (x86 POCL, GPUs, oclgrind) is;
 *   __kernel_exec(X, typen) and kernel_exec(X, typen): OpenCL C 1.2's own macros;
 *   BLOCK block, when block > 0 (the table's tile edge, which the harness passes as -DBLOCK), or
 *   from 07 on each tuning value of the variant (-DTS=32 ...): one text per variant;
 *   and those gcc keeps under -undef (__STDC__, __STDC_VERSION__, __STDC_HOSTED__, __FILE__,
 *   __LINE__, __COUNTER__, ...), the same for every build since the text is made once.
 * Left undefined on purpose: __SPIR__, __x86_64__ and every target macro, __IMAGE_SUPPORT__ and
 * __EMBEDDED_PROFILE__ (device properties), __FAST_RELAXED_MATH__ (the harness never asks for
 * it), FP_FAST_FMA and FP_FAST_FMAF (device speed), the cl_khr_* extension macros (device
 * capabilities): `#ifdef` of any of them is false on every device.
 *
 * Line structure: no -P; the line markers are read and dropped, and blank lines put every line
 * back at its line number in kernel.cl, so a build log's "kernel.cl:42" is the student's line 42.
 */
#define _GNU_SOURCE /* memmem */
#include "grade/canon.h"
#include "jail/jail.h"
#include "clu.h"

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What one canonicalisation carries: where to say why, and where the text goes. */
struct canon_state {
    char *why;
    size_t why_size;
    FILE *out;
    long lines_out;    /* lines written to out */
    long source_lines; /* lines of kernel.cl: no line marker may pad past them */
};

static void canon_why(struct canon_state *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void canon_why(struct canon_state *s, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(s->why, s->why_size, fmt, args);
    va_end(args);
}

/* ---------------------------------------------------------------- running the preprocessor */

/* The preprocessor's command line, wrapped in `sh -c 'ulimit -v KB; exec "$@"'` so that reading
 * a device file or an endless expansion runs out of memory instead of filling it. */
static int canon_command(struct grader_argv *v, const char *source_path, const char *raw_path,
                         const char *dep_path, const struct grader_variant *variant) {
    char program[PATH_MAX];
    int plain_cc = 0;
    if (grader_find_program("cpp", program, sizeof program) != 0) {
        if (grader_find_program("cc", program, sizeof program) != 0)
            return -1;
        plain_cc = 1;
    }
    grader_argv_push(v, "/bin/sh");
    grader_argv_push(v, "-c");
    grader_argv_pushf(v, "ulimit -v %d && exec \"$@\"", CANON_MEMORY_KB);
    grader_argv_push(v, "sh");
    grader_argv_push(v, program);
    if (plain_cc)
        grader_argv_push(v, "-E");
    static const char *const fixed[] = {
        "-undef",
        "-nostdinc",
        "-std=c99",
        "-trigraphs",
        "-w",
        "-D__has_include(x)=__has_include_refused__(x)",
        "-D__has_include_next(x)=__has_include_next_refused__(x)",
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
        NULL};
    grader_argv_push_all(v, fixed);
    for (int t = 0; variant->tuning && t < CLU_MAX_DEFINES && variant->tuning[t].name; t++)
        grader_argv_pushf(v, "-D%s=%d", variant->tuning[t].name, variant->tuning[t].value);
    if (!variant->tuning && variant->block > 0)
        grader_argv_pushf(v, "-DBLOCK=%d", variant->block);
    grader_argv_push(v, "-MF");
    grader_argv_push(v, dep_path);
    grader_argv_push(v, "-o");
    grader_argv_push(v, raw_path);
    grader_argv_push(v, "-x");
    grader_argv_push(v, "c");
    grader_argv_push(v, source_path);
    return 0;
}

/* A preprocessor error line of the log, with the source's path shortened to its base name. */
static void canon_error_lines(const char *log, const char *source_path, char *buf, size_t size) {
    const char *base = strrchr(source_path, '/');
    base = base ? base + 1 : source_path;
    size_t used = 0;
    int quoted = 0;
    buf[0] = '\0';
    for (const char *line = log; *line && quoted < CANON_MAX_ERRORS;) {
        size_t len = strcspn(line, "\n");
        if (memmem(line, len, "error:", 6) || memmem(line, len, "out of memory", 13) ||
            memmem(line, len, "memory exhausted", 16)) {
            const char *from = line;
            size_t path_len = strlen(source_path);
            if (len > path_len && !strncmp(line, source_path, path_len)) {
                used += (size_t)snprintf(buf + used, size - used, "%s%s", quoted ? "; " : "", base);
                from += path_len;
            } else if (quoted) {
                used += (size_t)snprintf(buf + used, size - used, "; ");
            }
            if (used < size)
                used += (size_t)snprintf(buf + used, size - used, "%.*s",
                                         (int)(len - (size_t)(from - line)), from);
            if (used >= size)
                return;
            quoted++;
        }
        line += len + (line[len] == '\n');
    }
}

/* Why the preprocessor failed, in one line, with a hint where the log shows a known cause. */
static void canon_failed(struct canon_state *s, const struct grader_run_result *run,
                         const char *log_path, const char *source_path) {
    if (run->how == RUN_TIMEOUT) {
        canon_why(s,
                  "kernel.cl refused: the preprocessor did not finish in %.0f s (an #include of a "
                  "device file, or a macro that expands without end?)",
                  CANON_TIMEOUT);
        return;
    }
    char *log = grader_read_capped(log_path, 64u << 10);
    char errors[512];
    canon_error_lines(log ? log : "", source_path, errors, sizeof errors);
    const char *hint = "";
    if (log && strstr(log, "__has_include")) {
        free(log);
        canon_why(s, "kernel.cl refused: it tests __has_include, which looks for files: the "
                     "grader builds kernel.cl alone");
        return;
    }
    if ((log && (strstr(log, "out of memory") || strstr(log, "memory exhausted"))) ||
        (run->how == RUN_SIGNALED && run->code == SIGXFSZ))
        hint = " (an #include of a device file such as /dev/zero, or a macro that expands without "
               "end?)";
    else if (log && (strstr(log, "No such file") || strstr(log, "include")))
        hint = " (an #include is refused: the grader builds kernel.cl alone)";
    free(log);
    if (errors[0]) {
        canon_why(s, "kernel.cl does not preprocess: %s%s", errors, hint);
    } else {
        char how[160];
        grader_describe_run(run, how, sizeof how);
        canon_why(s, "kernel.cl does not preprocess: the preprocessor %s%s", how, hint);
    }
}

/* The first file the dependency file names after the source itself, into name; 0 if none. A
 * dependency file reads "canon: source included1 included2 \\\n more", spaces escaped. */
static int canon_included_file(const char *dep_text, char *name, size_t size) {
    const char *p = strchr(dep_text, ':');
    if (!p)
        return 0;
    p++;
    int index = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
               (p[0] == '\\' && (p[1] == '\n' || p[1] == '\r')))
            p += p[0] == '\\' ? 2 : 1;
        if (!*p)
            return 0;
        size_t used = 0;
        for (; *p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'; p++) {
            if (p[0] == '\\' && p[1] == ' ')
                p++;
            if (used + 1 < size)
                name[used++] = *p;
        }
        name[used] = '\0';
        if (index++ > 0)
            return 1;
    }
}

/* ---------------------------------------------------------------- checking the expanded text */

/* Identifiers beginning with __ that OpenCL C 1.2 spells that way: its address space and access
 * qualifiers, __kernel, __attribute__ and the attribute names it allows in it, __func__. */
static const char *const canon_allowed[] = {"__kernel",
                                            "__global",
                                            "__local",
                                            "__constant",
                                            "__private",
                                            "__read_only",
                                            "__write_only",
                                            "__attribute__",
                                            "__func__",
                                            "__aligned__",
                                            "__packed__",
                                            "__endian__",
                                            "__reqd_work_group_size__",
                                            "__work_group_size_hint__",
                                            "__vec_type_hint__",
                                            NULL};

/* Target macros that compilers predefine without a leading underscore. */
static const char *const canon_target_macros[] = {"linux", "unix",   "i386", "i486", "i586",
                                                  "i686",  "sparc",  "sun",  "mips", "vax",
                                                  "hppa",  "hp9000", NULL};

static int canon_listed(const char *const *list, const char *word, size_t len) {
    for (; *list; list++)
        if (strlen(*list) == len && !strncmp(*list, word, len))
            return 1;
    return 0;
}

/* Why the identifier word[0..len) may not reach the second preprocessing pass, or NULL. */
static const char *canon_identifier_problem(const char *word, size_t len) {
    if ((len == 3 && !strncmp(word, "asm", 3)) || (len == 5 && !strncmp(word, "__asm", 5)) ||
        (len == 7 && !strncmp(word, "__asm__", 7)))
        return "inline assembly (asm) is refused in a kernel";
    if (len >= 2 && word[0] == '_' && (word[1] == '_' || isupper((unsigned char)word[1])))
        return canon_listed(canon_allowed, word, len)
                   ? NULL
                   : "names beginning with __ or _ and a capital are the compiler's: each "
                     "device's compiler defines its own (__SPIR__, __x86_64__, ...), so the "
                     "kernel would not be the same on every device";
    if ((len >= 3 && !strncmp(word, "cl_", 3)) || (len >= 11 && !strncmp(word, "CL_VERSION_", 11)))
        return "cl_... and CL_VERSION_... are macros that a device defines or not (its extensions "
               "and OpenCL versions): rename it, or test it with #ifdef (false on every device)";
    if (len >= 11 && !strncmp(word, "FP_FAST_FMA", 11))
        return "FP_FAST_FMA... depends on the device";
    if (canon_listed(canon_target_macros, word, len))
        return "a target's predefined macro (it differs from one device's compiler to another)";
    return NULL;
}

static int canon_word_char(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether a directive line (text after its introducer) is one of the pragmas the OpenCL
 * compiler may see: OPENCL EXTENSION name : enable|disable, OPENCL FP_CONTRACT ON|OFF|DEFAULT,
 * unroll [decimal], nounroll. Split at blanks and ':'. */
static int canon_pragma_allowed(const char *p, const char *end) {
    const char *words[8];
    size_t lens[8];
    int count = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
            p++;
        if (p == end)
            break;
        const char *start = p;
        if (*p == ':') {
            p++;
        } else {
            while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != ':')
                p++;
        }
        if (count == 8)
            return 0;
        words[count] = start;
        lens[count++] = (size_t)(p - start);
    }
#define CANON_IS(i, text) (lens[i] == strlen(text) && !strncmp(words[i], text, lens[i]))
    if (count < 2 || !CANON_IS(0, "pragma"))
        return 0;
    if (count == 6 && CANON_IS(1, "OPENCL") && CANON_IS(2, "EXTENSION") && CANON_IS(4, ":") &&
        (CANON_IS(5, "enable") || CANON_IS(5, "disable"))) {
        if (CANON_IS(3, "all"))
            return 1;
        if (lens[3] < 4 || strncmp(words[3], "cl_", 3))
            return 0;
        for (size_t i = 0; i < lens[3]; i++)
            if (!canon_word_char(words[3][i]))
                return 0;
        return 1;
    }
    if (count == 4 && CANON_IS(1, "OPENCL") && CANON_IS(2, "FP_CONTRACT"))
        return CANON_IS(3, "ON") || CANON_IS(3, "OFF") || CANON_IS(3, "DEFAULT");
    if (count == 2 && (CANON_IS(1, "unroll") || CANON_IS(1, "nounroll")))
        return 1;
    if (count == 3 && CANON_IS(1, "unroll")) {
        for (size_t i = 0; i < lens[2]; i++)
            if (!isdigit((unsigned char)words[2][i]))
                return 0;
        return 1;
    }
#undef CANON_IS
    return 0;
}

/* Check one line of the expanded text (line_no: its line in kernel.cl). 0, or -1 with why. */
static int canon_check_line(struct canon_state *s, const char *line, const char *end,
                            long line_no) {
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v' || *p == '\r'))
        p++;
    const char *last = end;
    while (last > line && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r'))
        last--;
    if (last > line && last[-1] == '\\') { /* the second pass would join it to the next line */
        canon_why(s, "kernel.cl refused: line %ld ends in a backslash after preprocessing",
                  line_no);
        return -1;
    }
    for (const char *q = line; q + 2 < end; q++)
        if (q[0] == '?' && q[1] == '?' && strchr("=(/)'<!>-", q[2]) && q[2]) {
            canon_why(s, "kernel.cl refused: line %ld holds the trigraph ??%c after preprocessing",
                      line_no, q[2]);
            return -1;
        }
    size_t intro = *p == '#' ? 1 : (p + 1 < end && p[0] == '%' && p[1] == ':') ? 2 : 0;
    if (intro) {
        if (canon_pragma_allowed(p + intro, end))
            return 0;
        canon_why(s,
                  "kernel.cl refused: line %ld is a directive after preprocessing (\"%.*s\"): "
                  "only #pragma OPENCL EXTENSION|FP_CONTRACT and #pragma [no]unroll [number] "
                  "may reach the OpenCL compiler (a macro that expands to # or %%: builds a "
                  "directive for its second preprocessing pass)",
                  line_no, (int)(end - p > 60 ? 60 : end - p), p);
        return -1;
    }
    /* identifiers outside string and character literals; '$' and '\' end a word, so no
     * spelling that another compiler reads as part of an identifier hides one */
    for (const char *q = line; q < end;) {
        if (*q == '"' || *q == '\'') {
            char quote = *q++;
            while (q < end && *q != quote)
                q += (*q == '\\' && q + 1 < end) ? 2 : 1;
            q += q < end;
            continue;
        }
        if (!canon_word_char(*q)) {
            q++;
            continue;
        }
        const char *word = q;
        while (q < end && canon_word_char(*q))
            q++;
        if (isdigit((unsigned char)*word))
            continue; /* a number: the second pass reads the whole run as one pp-number */
        const char *problem = canon_identifier_problem(word, (size_t)(q - word));
        if (problem) {
            canon_why(s, "kernel.cl refused: line %ld uses %.*s: %s", line_no,
                      (int)(q - word > 40 ? 40 : q - word), word, problem);
            return -1;
        }
    }
    return 0;
}

/* A gcc line marker: `# N "file" flags`. *line_no gets N, *enters 1 when flag 1 (entering an
 * included file) is among the flags. */
static int canon_marker(const char *line, const char *end, long *line_no, int *enters) {
    if (end - line < 4 || line[0] != '#' || line[1] != ' ' || !isdigit((unsigned char)line[2]))
        return 0;
    char *after;
    long n = strtol(line + 2, &after, 10);
    if (after >= end || *after != ' ' || after[1] != '"')
        return 0;
    const char *close = after + 2;
    while (close < end && *close != '"')
        close += (*close == '\\' && close + 1 < end) ? 2 : 1;
    if (close >= end)
        return 0;
    *line_no = n;
    *enters = 0;
    for (const char *f = close + 1; f < end; f++)
        if (*f == '1' && f[-1] == ' ' && (f + 1 == end || f[1] == ' '))
            *enters = 1;
    return 1;
}

/* Check the expanded text and write it out at the source's line numbers. 0, or -1 with why. */
static int canon_emit(struct canon_state *s, const char *text) {
    long next_line = 1; /* kernel.cl's line of the next text line */
    for (const char *line = text; *line;) {
        const char *end = line + strcspn(line, "\n");
        long marked;
        int enters;
        if (canon_marker(line, end, &marked, &enters)) {
            if (enters) {
                canon_why(s,
                          "kernel.cl refused: it includes a file (%.*s): the grader builds "
                          "kernel.cl alone (copy what you need into it)",
                          (int)(end - line > 80 ? 80 : end - line), line);
                return -1;
            }
            if (marked > s->source_lines + 1)
                marked = s->source_lines + 1;
            next_line = marked;
            for (; s->lines_out + 1 < next_line; s->lines_out++)
                fputc('\n', s->out);
        } else {
            if (canon_check_line(s, line, end,
                                 next_line > s->lines_out ? next_line : s->lines_out + 1))
                return -1;
            fwrite(line, 1, (size_t)(end - line), s->out);
            fputc('\n', s->out);
            s->lines_out++;
            next_line++;
        }
        line = *end ? end + 1 : end;
    }
    return 0;
}

static long canon_count_lines(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    long lines = 1;
    for (int c; (c = fgetc(f)) != EOF;)
        lines += c == '\n';
    fclose(f);
    return lines;
}

/* ---------------------------------------------------------------- the whole */

int grader_canonicalise(const char *source_path, const char *out_path,
                        const struct grader_variant *variant, char *why, size_t why_size) {
    struct canon_state s = {why, why_size, NULL, 0, canon_count_lines(source_path)};
    why[0] = '\0';
    char raw[PATH_MAX], dep[PATH_MAX], log[PATH_MAX];
    snprintf(raw, sizeof raw, "%s.cpp", out_path);
    snprintf(dep, sizeof dep, "%s.d", out_path);
    snprintf(log, sizeof log, "%s.cpp-log", out_path);
    unlink(dep);
    struct grader_argv argv = GRADER_ARGV_INIT;
    if (canon_command(&argv, source_path, raw, dep, variant) != 0) {
        canon_why(&s, "no C preprocessor (cpp or cc) on the grading machine");
        return -1;
    }
    struct grader_run_result run;
    grader_run(argv.argv, log, CANON_TIMEOUT, &run);
    grader_argv_clear(&argv);
    int status = -1;
    char *text = NULL, *deps = NULL;
    struct stat st;
    if (run.how != RUN_EXITED || run.code != 0) {
        canon_failed(&s, &run, log, source_path);
        goto done;
    }
    char included[PATH_MAX];
    deps = clu_read_file(dep, NULL);
    if (!deps) {
        canon_why(&s, "the preprocessor wrote no dependency file: cannot tell whether kernel.cl "
                      "includes a file");
        goto done;
    }
    if (canon_included_file(deps, included, sizeof included)) {
        canon_why(&s,
                  "kernel.cl refused: it includes %s: the grader builds kernel.cl alone (copy "
                  "what you need into it)",
                  included);
        goto done;
    }
    if (stat(raw, &st) != 0 || st.st_size > (off_t)CANON_MAX_BYTES) {
        canon_why(&s, "kernel.cl refused: it expands to more than %u MiB", CANON_MAX_BYTES >> 20);
        goto done;
    }
    text = clu_read_file(raw, NULL);
    s.out = fopen(out_path, "w");
    if (!text || !s.out) {
        canon_why(&s, "cannot read the preprocessed kernel or write %s", out_path);
        goto done;
    }
    status = canon_emit(&s, text);
done:
    if (s.out && fclose(s.out) != 0 && status == 0) {
        canon_why(&s, "cannot write %s", out_path);
        status = -1;
    }
    free(text);
    free(deps);
    unlink(raw);
    unlink(dep);
    unlink(log);
    return status;
}
