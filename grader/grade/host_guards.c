/* host_guards.c - the writes past a buffer's end that the grader's OpenCL layer found in the guard
 * zones it puts around each buffer a host program creates (child/launch_layer.c), said by the
 * kernel's argument the buffer was: for the host test's report (host_test.c). */
#include "grade/internal.h"
#include "grade/host_seen.h"

#include <stdio.h>
#include <string.h>

/* The argument buffer was at the first launch of kernel that took it (-1: none recorded): a
 * helper kernel's arguments are not the exercise's. */
static int argument_of(const struct host_seen *s, int buffer, int kernel) {
    for (int i = 0; i < s->launch_count; i++)
        for (int a = 0; s->launches[i].kernel == kernel && a < MAX_ARGS; a++)
            if (s->launches[i].args[a].kind == 'm' && s->launches[i].args[a].buffer == buffer)
                return a;
    return -1;
}

/* The layer's name of a kernel (its clCreateKernel), "" where it was not seen. */
static const char *kernel_name(const struct host_seen *s, int id) {
    for (int j = 0; j < s->kernel_count; j++)
        if (s->kernels[j].id == id)
            return s->kernels[j].name;
    return "";
}

void grade_host_guards_text(const struct grader_exercise *ex, const struct host_seen *s, char *out,
                            size_t size) {
    for (int i = 0; i < s->guard_count; i++) {
        const struct seen_guard *g = &s->guards[i];
        const char *kernel = kernel_name(s, g->kernel);
        /* named by the exercise's parameters only where the kernel is the exercise's */
        int arg = ex->kernel && strcmp(kernel, ex->kernel) == 0
                      ? argument_of(s, g->buffer, g->kernel)
                      : -1;
        char name[32] = "";
        if (arg >= 0)
            grader_arg_name(ex, arg, name, sizeof name);
        grade_appendf(out, size, "\nthe kernel wrote %s the %s of ", g->side ? "past" : "before",
                      g->side ? "end" : "start");
        if (name[0])
            grade_appendf(out, size, "%s (buffer #%d, its argument %d)", name, g->buffer + 1, arg);
        else
            grade_appendf(out, size, "buffer #%d", g->buffer + 1);
        grade_appendf(out, size,
                      ": the grader's OpenCL layer, which keeps a guard zone %s every buffer, "
                      "found %zu float%s of it changed after a launch%s%s. Each work-item's index "
                      "must stay inside the buffer at this size (a bound on the row, the column "
                      "or the count, or a global size the kernel does not guard against)",
                      g->side ? "after" : "before", g->floats, g->floats == 1 ? "" : "s",
                      kernel[0] ? " of " : "", kernel);
    }
}
