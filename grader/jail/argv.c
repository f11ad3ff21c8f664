/* argv.c - the growing argument vector (argv.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "jail/argv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *or_die(void *p) {
    if (!p) {
        fprintf(stderr, "grader: out of memory building a command line\n");
        abort();
    }
    return p;
}

static void append(struct grader_argv *v, char *owned) {
    if (v->count + 2 > v->capacity) {
        size_t capacity = v->capacity ? 2 * v->capacity : 16;
        v->argv = or_die(realloc(v->argv, capacity * sizeof *v->argv));
        v->capacity = capacity;
    }
    v->argv[v->count++] = owned;
    v->argv[v->count] = NULL;
}

void grader_argv_push(struct grader_argv *v, const char *arg) {
    append(v, or_die(strdup(arg)));
}

void grader_argv_pushf(struct grader_argv *v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int length = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = or_die(malloc(length > 0 ? (size_t)length + 1 : 1));
    va_start(ap, fmt);
    vsnprintf(text, length > 0 ? (size_t)length + 1 : 1, fmt, ap);
    va_end(ap);
    append(v, text);
}

void grader_argv_push_all(struct grader_argv *v, const char *const *args) {
    for (size_t i = 0; args[i]; i++)
        grader_argv_push(v, args[i]);
}

void grader_argv_clear(struct grader_argv *v) {
    for (size_t i = 0; i < v->count; i++)
        free(v->argv[i]);
    free(v->argv);
    v->argv = NULL;
    v->count = v->capacity = 0;
}
