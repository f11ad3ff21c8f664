/* canon_parts.h - what the three files of the canonical text share, and nobody else includes:
 * canon.c runs the preprocessor in its jail, canon_log.c reads what it said, canon_text.c checks
 * and writes what it expanded. The wing's interface is canon.h.
 *
 * What a refusal may quote: lines of the student's own kernel.cl (as the grader copied it, by line
 * number) and text the preprocessor expanded from it alone. Never the preprocessor's own messages,
 * which quote whatever it read: a run that opened or tried to open another file is refused with a
 * fixed message before anything it printed or wrote is looked at.
 */
#ifndef GRADER_CANON_PARTS_H
#define GRADER_CANON_PARTS_H

#include <stddef.h>
#include <stdio.h>

/* The name kernel.cl has in the preprocessor's folder, which its messages cite. */
#define CANON_NAME "kernel.cl"

/* The student's kernel.cl as the grader copied it. */
struct canon_source {
    char *text; /* its bytes, NUL-terminated */
    long lines; /* its lines */
};

/* "line N: \"text\"": line n of the source (from 1), blanks trimmed, control characters as '?',
 * cut at 60 characters; "line N" alone when it has no such line. */
void canon_quote_line(const struct canon_source *src, long n, char *buf, size_t size);
/* Whether line n of the source begins with a directive (#, %: or ??=, after blanks). */
int canon_line_is_directive(const struct canon_source *src, long n);

/* ---------------------------------------------------------------- the log (canon_log.c) */

/* Whether the preprocessor opened or tried to open a file besides kernel.cl: a header line of
 * -H (". name"), "In file included from", a fatal error (only a file it cannot open makes
 * one), or a dependency file (deps, may be NULL) naming a second file. *line gets the line of
 * kernel.cl that included it where the log tells (else 0). */
int canon_log_includes(const char *log, const char *deps, long *line);
/* The first CANON_MAX_ERRORS errors the log places in kernel.cl, each as "line N (what): \"the
 * line\"", what from a fixed list of the preprocessor's messages (never its words), into buf
 * ("" when none). */
void canon_log_errors(const char *log, const struct canon_source *src, char *buf, size_t size);

/* ---------------------------------------------------------------- the expanded text (canon_text.c)
 */

struct canon_emit {
    char *why;
    size_t why_size;
    FILE *out;
    long lines_out;                 /* lines written to out */
    const struct canon_source *src; /* kernel.cl: no line marker may pad past its lines */
};

/* Check the preprocessor's output text and write it to e->out at the source's line numbers: 0,
 * or -1 with why. */
int canon_emit(struct canon_emit *e, const char *text);

#endif
