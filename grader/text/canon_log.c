/* canon_log.c - what the preprocessor said, read without quoting it (canon_parts.h): whether it
 * reached for another file, and on which lines of kernel.cl its errors are.
 *
 * Its messages quote what it read: the tokens of a macro's arguments, an #error's text, a
 * `#pragma GCC error` made by _Pragma from a stringised argument, and the file and line of an
 * error inside an included file. A macro call left open before an #include collects that file's
 * text, and such a pragma prints it. So a refusal names the student's own line and a label from
 * the fixed list below, and an include is found from what only the preprocessor writes: -H's
 * header lines, its "In file included from", a fatal error, the dependency file.
 */
#include "text/canon_parts.h"
#include "text/canon.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line number of a message that begins "kernel.cl:N:", or 0. */
static long canon_cited_line(const char *line, size_t len) {
    size_t name = strlen(CANON_NAME);
    if (len <= name + 1 || strncmp(line, CANON_NAME, name) != 0 || line[name] != ':' ||
        !isdigit((unsigned char)line[name + 1]))
        return 0;
    return strtol(line + name + 1, NULL, 10);
}

static int canon_starts(const char *line, size_t len, const char *prefix) {
    size_t n = strlen(prefix);
    return len >= n && strncmp(line, prefix, n) == 0;
}

static const char *canon_find(const char *line, size_t len, const char *what) {
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= len; i++)
        if (!strncmp(line + i, what, n))
            return line + i;
    return NULL;
}

int canon_log_includes(const char *log, const char *deps, long *line) {
    int found = 0;
    *line = 0;
    for (const char *p = log; *p;) {
        size_t len = strcspn(p, "\n");
        const char *from = "In file included from ";
        if (p[0] == '.' && len > 1) { /* -H: one dot per level of inclusion, a blank, the name */
            size_t dots = strspn(p, ".");
            found |= dots < len && p[dots] == ' ';
        } else if (canon_starts(p, len, from)) {
            found = 1;
            if (!*line)
                *line = canon_cited_line(p + strlen(from), len - strlen(from));
        } else if (canon_starts(p, len, "Multiple include guards")) {
            found = 1;
        } else if (canon_find(p, len, "fatal error:")) {
            /* the preprocessor's fatal errors are all about a file it cannot open */
            found = 1;
            if (!*line)
                *line = canon_cited_line(p, len);
        }
        p += len + (p[len] == '\n');
    }
    /* "canon: kernel.cl other.h ...": a second name after the target's colon */
    const char *colon = deps ? strchr(deps, ':') : NULL;
    if (colon) {
        int names = 0;
        for (const char *p = colon + 1; *p;) {
            if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
                (p[0] == '\\' && (p[1] == '\n' || p[1] == '\r'))) {
                p += p[0] == '\\' ? 2 : 1;
                continue;
            }
            names++;
            while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
                p += (p[0] == '\\' && p[1] == ' ') ? 2 : 1;
        }
        found |= names > 1;
    }
    return found;
}

/* What an error is, by the first words of the preprocessor's message (GCC's libcpp, in the C
 * locale the grader sets), in words of the grader's own. */
static const struct {
    const char *stem;
    const char *what;
} canon_labels[] = {
    {"#error", "#error"},
    {"unterminated argument list", "a macro call never closed"},
    {"unterminated comment", "a comment never closed"},
    {"unterminated #", "a #if without its #endif"},
    {"missing terminating", "a quote never closed"},
    {"#else without", "#else without #if"},
    {"#elif without", "#elif without #if"},
    {"#endif without", "#endif without #if"},
    {"#else after #else", "#else after #else"},
    {"#elif after #else", "#elif after #else"},
    {"#if with no expression", "#if with no expression"},
    {"#elif with no expression", "#elif with no expression"},
    {"missing binary operator", "an expression #if cannot read"},
    {"missing expression", "an expression #if cannot read"},
    {"missing ')' in expression", "an expression #if cannot read"},
    {"missing '(' in expression", "an expression #if cannot read"},
    {"token \"", "an expression #if cannot read"},
    {"floating constant in preprocessor", "an expression #if cannot read"},
    {"operator '", "an expression #if cannot read"},
    {"division by zero in #if", "division by zero in #if"},
    {"invalid preprocessing directive", "an unknown directive"},
    {"macro names must be identifiers", "a macro name that is no identifier"},
    {"no macro name given", "a directive without its macro name"},
    {"macro \"", "a macro called with the wrong number of arguments"},
    {"'##' cannot appear", "## at either end of a macro"},
    {"'#' is not followed", "# not followed by a parameter"},
    {"pasting", "## that makes no valid token"},
    {"attempt to use poisoned", "a poisoned name"},
    {"_Pragma takes", "_Pragma without a string"},
    {"#include expects", "a malformed #include"},
    {"#include nested", "a malformed #include"},
    {"missing ')' in macro parameter list", "a malformed macro definition"},
    {"expected", "a malformed directive"},
    {"duplicate macro parameter", "a malformed macro definition"},
    {"__VA_ARGS__ can only appear", "__VA_ARGS__ outside a variadic macro"},
};

void canon_log_errors(const char *log, const struct canon_source *src, char *buf, size_t size) {
    size_t used = 0;
    int cited = 0;
    buf[0] = '\0';
    for (const char *p = log; *p && cited < CANON_MAX_ERRORS && used < size;) {
        size_t len = strcspn(p, "\n");
        long n = canon_cited_line(p, len);
        const char *error = canon_find(p, len, " error: ");
        if (n > 0 && error) {
            const char *message = error + strlen(" error: ");
            size_t left = len - (size_t)(message - p);
            const char *what = "an error";
            for (size_t i = 0; i < sizeof canon_labels / sizeof canon_labels[0]; i++)
                if (canon_starts(message, left, canon_labels[i].stem)) {
                    what = canon_labels[i].what;
                    break;
                }
            char quote[120];
            canon_quote_line(src, n, quote, sizeof quote);
            /* an #error's line says what it is: the rule's own words, as the student wrote them */
            if (!strcmp(what, "#error") && canon_line_is_directive(src, n))
                used += (size_t)snprintf(buf + used, size - used, "%s%s", cited ? "; " : "", quote);
            else
                used += (size_t)snprintf(buf + used, size - used, "%s%s (%s)", cited ? "; " : "",
                                         quote, what);
            cited++;
        }
        p += len + (p[len] == '\n');
    }
}
