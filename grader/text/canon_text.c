/* canon_text.c - the preprocessor's output checked and written out (canon_parts.h): the OpenCL
 * compiler preprocesses the text again on every device, with its own predefined macros, so
 * nothing in it may act differently there.
 *
 * Refused: a line that the second pass would join to the next (a trailing backslash) or read as a
 * trigraph; an identifier a device's compiler may predefine, or asm; a directive other than
 * #pragma (cpp consumed every real one, so it was built by a macro, or is #ident/#sccs, which cpp
 * passes on); and the pragmas that some compiler acts on beyond a loop or a floating-point mode:
 * files, macros, symbols and sections, the compiler's own diagnostics and debugging, and the
 * claims that a loop has no dependences (which make a compiler that trusts them build a racy loop
 * differently). Passed: #pragma OPENCL EXTENSION name : enable|disable, OPENCL FP_CONTRACT,
 * STDC FP_CONTRACT, [no]unroll [count], GCC unroll, clang loop (without assume_safety), and every
 * pragma no compiler knows, which each compiler ignores (CLBlast's promote_to_registers): the
 * same on every device.
 */
#include "text/canon_parts.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void canon_why(struct canon_emit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void canon_why(struct canon_emit *e, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(e->why, e->why_size, fmt, args);
    va_end(args);
}

/* ---------------------------------------------------------------- identifiers */

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

/* Check the identifiers of line[0..end) outside string and character literals: 0, or -1 with
 * why. '$' and '\' end a word, so no spelling that another compiler reads as part of an
 * identifier hides one. */
static int canon_check_identifiers(struct canon_emit *e, const char *line, const char *end,
                                   long line_no) {
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
            canon_why(e, "kernel.cl refused: line %ld uses %.*s: %s", line_no,
                      (int)(q - word > 40 ? 40 : q - word), word, problem);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- pragmas */

/* Pragmas some compiler (GCC, clang: POCL, oclgrind, AMD's and Intel's are clang; MSVC's names
 * too, which clang takes in some modes) acts on beyond a loop's unrolling or a floating-point
 * mode, by their first word, with why. */
static const struct {
    const char *name;
    const char *why;
} canon_pragmas_refused[] = {
    {"dependency", "it names a file"},
    {"include_alias", "it names a file"},
    {"include_instead", "it names a file"},
    {"hdrstop", "it names a file"},
    {"push_macro", "it saves and restores macros"},
    {"pop_macro", "it saves and restores macros"},
    {"poison", "it acts on identifiers"},
    {"deprecated", "it acts on macros"},
    {"restrict_expansion", "it acts on macros"},
    {"final", "it acts on macros"},
    {"system_header", "it acts on the compiler's diagnostics"},
    {"redefine_extname", "it renames symbols"},
    {"extern_prefix", "it renames symbols"},
    {"weak", "it changes how symbols bind"},
    {"visibility", "it changes how symbols bind"},
    {"comment", "it writes into the object file"},
    {"detect_mismatch", "it writes into the object file"},
    {"section", "it places code and data"},
    {"code_seg", "it places code and data"},
    {"data_seg", "it places code and data"},
    {"bss_seg", "it places code and data"},
    {"const_seg", "it places code and data"},
    {"alloc_text", "it places code and data"},
    {"init_seg", "it places code and data"},
    {"pack", "it changes the layout of structures"},
    {"align", "it changes the layout of structures"},
    {"ms_struct", "it changes the layout of structures"},
    {"options", "it changes the layout of structures"},
    {"scalar_storage_order", "it changes the layout of structures"},
    {"optimize", "it changes the compiler's settings"},
    {"float_control", "it changes the floating-point mode"},
    {"fenv_access", "it changes the floating-point mode"},
    {"fp_contract", "it changes the floating-point mode"},
    {"function", "it changes the compiler's settings"},
    {"intrinsic", "it changes the compiler's settings"},
    {"message", "it drives the compiler's diagnostics"},
    {"warning", "it drives the compiler's diagnostics"},
    {"error", "it drives the compiler's diagnostics"},
    {"execution_character_set", "it changes how strings are encoded"},
    {"ivdep", "it tells the compiler a loop has no dependences"},
    {"simd", "it tells the compiler a loop has no dependences"},
    {"vector", "it tells the compiler a loop has no dependences"},
    {"loop", "it tells the compiler a loop has no dependences"},
    {"omp", "OpenMP's pragmas tell the compiler a loop has no dependences"},
    {"acc", "OpenACC's pragmas tell the compiler a loop has no dependences"},
};

/* The words of a pragma's text: split at blanks and before and after each punctuation mark. */
#define CANON_PRAGMA_WORDS 16
struct canon_words {
    const char *at[CANON_PRAGMA_WORDS];
    size_t len[CANON_PRAGMA_WORDS];
    int count; /* -1: more than CANON_PRAGMA_WORDS */
};

static void canon_split(const char *p, const char *end, struct canon_words *w) {
    w->count = 0;
    while (p < end) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (w->count == CANON_PRAGMA_WORDS) {
            w->count = -1;
            return;
        }
        const char *start = p;
        if (canon_word_char(*p))
            while (p < end && canon_word_char(*p))
                p++;
        else
            p++;
        w->at[w->count] = start;
        w->len[w->count++] = (size_t)(p - start);
    }
}

static int canon_is(const struct canon_words *w, int i, const char *text) {
    return i < w->count && w->len[i] == strlen(text) && !strncmp(w->at[i], text, w->len[i]);
}

/* Whether words [from, count) are a count: nothing, a number, or a number in parentheses. */
static int canon_count_form(const struct canon_words *w, int from) {
    int n = w->count - from;
    const char *number = n == 1 ? w->at[from] : n == 3 ? w->at[from + 1] : NULL;
    size_t len = n == 1 ? w->len[from] : n == 3 ? w->len[from + 1] : 0;
    if (n == 0)
        return 1;
    if (n == 3 && !(canon_is(w, from, "(") && canon_is(w, from + 2, ")")))
        return 0;
    if (!number)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)number[i]))
            return 0;
    return len > 0;
}

/* Check a #pragma line (p: its text after "pragma", up to end): 0, or -1 with why. */
static int canon_check_pragma(struct canon_emit *e, const char *p, const char *end, long line_no) {
    struct canon_words w;
    canon_split(p, end, &w);
    if (w.count < 0) {
        canon_why(e, "kernel.cl refused: line %ld: a #pragma of more than %d words", line_no,
                  CANON_PRAGMA_WORDS);
        return -1;
    }
    if (w.count == 0)
        return 0; /* an empty pragma: ignored everywhere */
    /* its name for the reason: the first word, and the second of a namespace's */
    char name[48];
    int named = canon_is(&w, 0, "OPENCL") || canon_is(&w, 0, "STDC") || canon_is(&w, 0, "GCC") ||
                canon_is(&w, 0, "clang");
    snprintf(name, sizeof name, "%.*s%s%.*s", (int)(w.len[0] > 20 ? 20 : w.len[0]), w.at[0],
             named && w.count > 1 ? " " : "",
             named && w.count > 1 ? (int)(w.len[1] > 20 ? 20 : w.len[1]) : 0,
             named && w.count > 1 ? w.at[1] : "");
    const char *refused = NULL;
    if (canon_is(&w, 0, "OPENCL")) {
        /* OPENCL EXTENSION name : enable|disable (a cl_ name, which the identifier rules would
         * refuse), OPENCL FP_CONTRACT ON|OFF|DEFAULT */
        if (w.count == 5 && canon_is(&w, 1, "EXTENSION") && canon_is(&w, 3, ":") &&
            (canon_is(&w, 4, "enable") || canon_is(&w, 4, "disable")) &&
            (canon_is(&w, 2, "all") || (w.len[2] > 3 && !strncmp(w.at[2], "cl_", 3))))
            return 0;
        if (w.count == 3 && canon_is(&w, 1, "FP_CONTRACT") &&
            (canon_is(&w, 2, "ON") || canon_is(&w, 2, "OFF") || canon_is(&w, 2, "DEFAULT")))
            return 0;
        refused = "OPENCL takes EXTENSION cl_name : enable|disable or FP_CONTRACT ON|OFF|DEFAULT";
    } else if (canon_is(&w, 0, "STDC")) {
        if (!(w.count == 3 && canon_is(&w, 1, "FP_CONTRACT") &&
              (canon_is(&w, 2, "ON") || canon_is(&w, 2, "OFF") || canon_is(&w, 2, "DEFAULT"))))
            refused = "of STDC only FP_CONTRACT passes (other floating-point modes differ by "
                      "device)";
    } else if (canon_is(&w, 0, "unroll") || canon_is(&w, 0, "nounroll")) {
        if (!canon_count_form(&w, 1) || (canon_is(&w, 0, "nounroll") && w.count > 1))
            refused = "unroll takes a number or nothing, nounroll nothing";
    } else if (canon_is(&w, 0, "GCC") || canon_is(&w, 0, "clang")) {
        int loop = canon_is(&w, 0, "GCC")
                       ? canon_is(&w, 1, "unroll") && w.count > 2 && canon_count_form(&w, 2)
                       : canon_is(&w, 1, "loop");
        for (int i = 2; i < w.count && loop; i++)
            loop = !canon_is(&w, i, "assume_safety");
        if (!loop)
            refused = "it acts on the compiler (of GCC's and clang's only GCC unroll N and clang "
                      "loop without assume_safety pass)";
    } else {
        for (size_t i = 0; i < sizeof canon_pragmas_refused / sizeof canon_pragmas_refused[0]; i++)
            if (canon_is(&w, 0, canon_pragmas_refused[i].name))
                refused = canon_pragmas_refused[i].why;
        /* else no compiler knows it, and each ignores it */
    }
    if (!refused) /* its words may still be read (a loop's count): the identifier rules hold */
        return canon_check_identifiers(e, p, end, line_no);
    canon_why(e,
              "kernel.cl refused: line %ld: #pragma %s: %s; a pragma no compiler knows passes "
              "(each ignores it), as do OPENCL, [no]unroll and STDC FP_CONTRACT",
              line_no, name, refused);
    return -1;
}

/* ---------------------------------------------------------------- one line */

/* Check one line of the expanded text (line_no: its line in kernel.cl). 0, or -1 with why. */
static int canon_check_line(struct canon_emit *e, const char *line, const char *end, long line_no) {
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v' || *p == '\r'))
        p++;
    const char *last = end;
    while (last > line && (last[-1] == ' ' || last[-1] == '\t' || last[-1] == '\r'))
        last--;
    if (last > line && last[-1] == '\\') { /* the second pass would join it to the next line */
        canon_why(e, "kernel.cl refused: line %ld ends in a backslash after preprocessing",
                  line_no);
        return -1;
    }
    for (const char *q = line; q + 2 < end; q++)
        if (q[0] == '?' && q[1] == '?' && strchr("=(/)'<!>-", q[2]) && q[2]) {
            canon_why(e, "kernel.cl refused: line %ld holds the trigraph ??%c after preprocessing",
                      line_no, q[2]);
            return -1;
        }
    size_t intro = *p == '#' ? 1 : (p + 1 < end && p[0] == '%' && p[1] == ':') ? 2 : 0;
    if (!intro)
        return canon_check_identifiers(e, line, end, line_no);
    const char *word = p + intro;
    while (word < end && (*word == ' ' || *word == '\t'))
        word++;
    const char *word_end = word;
    while (word_end < end && canon_word_char(*word_end))
        word_end++;
    if (word_end - word == 6 && !strncmp(word, "pragma", 6))
        return canon_check_pragma(e, word_end, end, line_no);
    /* cpp consumed every directive of kernel.cl but #ident and #sccs: any other was made by a
     * macro, for the second pass to act on */
    canon_why(e,
              "kernel.cl refused: line %ld is a directive after preprocessing (\"%.*s\"): only "
              "#pragma may reach the OpenCL compiler%s",
              line_no, (int)(end - p > 60 ? 60 : end - p), p,
              canon_line_is_directive(e->src, line_no)
                  ? ""
                  : " (a macro that expands to # or %: builds a directive for its second "
                    "preprocessing pass)");
    return -1;
}

/* ---------------------------------------------------------------- the whole text */

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

/* Blank lines and line markers only move kernel.cl's line of the next text line; padding is
 * written when a text line needs it. A pragma that _Pragma made takes a line of its own, so the
 * text after it runs one line late until the next blank line, which is dropped to catch up. */
int canon_emit(struct canon_emit *e, const char *text) {
    long next_line = 1; /* kernel.cl's line of the next text line */
    for (const char *line = text; *line;) {
        const char *end = line + strcspn(line, "\n");
        long marked;
        int enters;
        const char *p = line;
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (canon_marker(line, end, &marked, &enters)) {
            if (enters) { /* (the log showed it already; said the same way, naming nothing) */
                canon_why(e, "kernel.cl refused: it includes a file: the grader builds kernel.cl "
                             "alone (copy what you need into it)");
                return -1;
            }
            next_line = marked < 1 ? 1 : marked > e->src->lines + 1 ? e->src->lines + 1 : marked;
        } else if (p == end) {
            next_line++;
        } else {
            for (; e->lines_out + 1 < next_line; e->lines_out++)
                fputc('\n', e->out);
            if (canon_check_line(e, line, end, next_line))
                return -1;
            fwrite(line, 1, (size_t)(end - line), e->out);
            fputc('\n', e->out);
            e->lines_out++;
            next_line++;
        }
        line = *end ? end + 1 : end;
    }
    return 0;
}
