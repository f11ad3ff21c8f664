/* barrier_loop.c - a kernel with a barrier and a loop outside every if (barrier_loop.h): a scan
 * of the text's blocks, each with what encloses it; a single statement after if, for or while (no
 * braces) takes its head's kind until its `;`. Only a kernel function's loops count: a helper's
 * are inlined where it is called (10's reference calls its tile loads inside its if), and
 * following the calls is more than an advisory hint needs (a helper's loop called outside every
 * if goes unnamed). */
#include "grade/barrier_loop.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256        /* blocks deeper than this are scanned as the deepest */
#define MAX_BYTES (1u << 20) /* of a file read */

/* what encloses a place: a kernel function's body, an if (or else) somewhere, a loop that no if
 * encloses */
struct scope {
    int in_kernel;
    int in_if;
    int loop_free;
};

static struct scope enter(struct scope s, int loop) {
    if (loop)
        s.loop_free = s.loop_free || !s.in_if;
    else
        s.in_if = 1;
    return s;
}

/* i past the parenthesised group that starts at or after i (its closing parenthesis) */
static size_t skip_parens(const char *t, size_t len, size_t i) {
    while (i < len && t[i] != '(' && t[i] != ';' && t[i] != '{')
        i++;
    if (i >= len || t[i] != '(')
        return i;
    int depth = 0;
    for (; i < len; i++) {
        if (t[i] == '(')
            depth++;
        else if (t[i] == ')' && --depth == 0)
            return i + 1;
    }
    return len;
}

char *grade_plain_text(const char *text, size_t len) {
    char *t = malloc(len + 1);
    if (!t)
        return NULL;
    memcpy(t, text, len);
    t[len] = '\0';
    int line_start = 1;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        size_t end = i;
        if (c == '/' && i + 1 < len && t[i + 1] == '/') {
            while (end < len && t[end] != '\n')
                end++;
        } else if (c == '/' && i + 1 < len && t[i + 1] == '*') {
            end = i + 2;
            while (end + 1 < len && !(t[end] == '*' && t[end + 1] == '/'))
                end++;
            end = end + 2 < len ? end + 2 : len;
        } else if (c == '"' || c == '\'') {
            end = i + 1;
            while (end < len && t[end] != c && t[end] != '\n')
                end += t[end] == '\\' ? 2 : 1;
            end = end + 1 < len ? end + 1 : len;
        } else if (c == '#' && line_start) {
            while (end < len && t[end] != '\n')
                end += t[end] == '\\' ? 2 : 1;
        }
        if (end > i) {
            for (size_t k = i; k < end && k < len; k++)
                if (t[k] != '\n')
                    t[k] = ' ';
            i = (end < len ? end : len) - 1;
            continue;
        }
        if (c == '\n')
            line_start = 1;
        else if (!isspace((unsigned char)c))
            line_start = 0;
    }
    return t;
}

int grade_barrier_loop_unwrapped(const char *text, size_t len) {
    char *t = grade_plain_text(text, len);
    if (!t)
        return 0;
    struct scope stack[MAX_DEPTH] = {{0, 0, 0}};
    int depth = 0, barrier = 0, loop_free = 0;
    int kernel_declared = 0; /* `kernel` or `__kernel` since the last top-level `;` or `}` */
    struct scope statement = stack[0]; /* the statement being read: its block's, and its heads' */
    for (size_t i = 0; i < len && !(barrier && loop_free);) {
        char c = t[i];
        if (isalpha((unsigned char)c) || c == '_') {
            size_t start = i;
            while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_'))
                i++;
            size_t n = i - start;
            const char *w = t + start;
            if ((n == 2 && !memcmp(w, "if", 2)) || (n == 3 && !memcmp(w, "for", 3)) ||
                (n == 5 && !memcmp(w, "while", 5))) {
                statement = enter(statement, w[0] != 'i');
                loop_free |= statement.loop_free && statement.in_kernel;
                i = skip_parens(t, len, i);
            } else if (n == 4 && !memcmp(w, "else", 4)) {
                statement = enter(statement, 0);
            } else if (n == 2 && !memcmp(w, "do", 2)) {
                statement = enter(statement, 1);
                loop_free |= statement.loop_free && statement.in_kernel;
            } else if ((n == 7 && !memcmp(w, "barrier", 7)) ||
                       (n == 18 && !memcmp(w, "work_group_barrier", 18))) {
                barrier = 1;
            } else if ((n == 6 && !memcmp(w, "kernel", 6)) ||
                       (n == 8 && !memcmp(w, "__kernel", 8))) {
                kernel_declared |= depth == 0;
            }
            continue;
        }
        if (c == '{') {
            if (depth == 0)
                statement.in_kernel = kernel_declared;
            if (depth + 1 < MAX_DEPTH)
                depth++;
            stack[depth] = statement;
        } else if (c == '}') {
            if (depth > 0)
                depth--;
            statement = stack[depth];
            kernel_declared &= depth > 0;
        } else if (c == ';') {
            statement = stack[depth];
            kernel_declared &= depth > 0;
        }
        i++;
    }
    free(t);
    return barrier && loop_free;
}

int grade_barrier_loop_unwrapped_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char *text = malloc(MAX_BYTES);
    size_t len = text ? fread(text, 1, MAX_BYTES, f) : 0;
    fclose(f);
    int found = text ? grade_barrier_loop_unwrapped(text, len) : 0;
    free(text);
    return found;
}
