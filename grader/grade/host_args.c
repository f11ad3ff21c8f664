/* host_args.c - a host program's kernel arguments, as the grader's OpenCL layer saw them set
 * (clSetKernelArg), beside the exercise's at the host size, and where the two differ: for the
 * report of a failed host test (host_launches.c). */
#include "grade/internal.h"
#include "grade/host_seen.h"

#include <stdio.h>
#include <string.h>

/* Whether the layer's kernel id is one named name. */
int grade_host_kernel_named(const struct host_seen *s, int id, const char *name) {
    for (int j = 0; j < s->kernel_count; j++)
        if (s->kernels[j].id == id && strcmp(s->kernels[j].name, name) == 0)
            return 1;
    return 0;
}

/* The arguments the layer saw set, by the skeleton's names: "A: buffer #1, 28000 bytes". */
void grade_host_args_text(const struct grader_exercise *ex, const struct seen_launch *l, char *out,
                          size_t size) {
    int shown = 0;
    for (int i = 0; i < MAX_ARGS; i++) {
        const struct seen_arg *a = &l->args[i];
        if (!a->kind)
            continue;
        char name[32];
        grader_arg_name(ex, i, name, sizeof name);
        grade_appendf(out, size, "%s%s", shown++ ? ", " : ", arguments ", name[0] ? name : "?");
        if (!name[0])
            grade_appendf(out, size, "(%d)", i);
        if (a->kind == 'm')
            grade_appendf(out, size, ": buffer #%d of %lld bytes", a->buffer + 1, a->value);
        else if (a->kind == 'i')
            grade_appendf(out, size, " = %lld", a->value);
        else if (a->kind == 'l')
            grade_appendf(out, size, ": %lld bytes of local memory", a->value);
        else
            grade_appendf(out, size, ": a value of %lld bytes", a->value);
    }
}

/* What the exercise's argument i is at size at: an int (1, its value into *value), a buffer (2,
 * its bytes into *value), or local memory (0). */
static int expected_arg(const struct grader_exercise *ex, struct grader_size at, int i,
                        long long *value) {
    enum grader_arg want = ex->args[i];
    size_t floats = want == ARG_A   ? grader_a_count(ex, at)
                    : want == ARG_B ? grader_b_count(ex, at)
                    : want == ARG_C ? grader_output_count(ex, at)
                                    : 0;
    *value = want == ARG_M ? at.m : want == ARG_K ? at.k : at.n;
    if (want == ARG_M || want == ARG_N || want == ARG_K || want == ARG_COUNT)
        return 1;
    *value = (long long)(floats * sizeof(float));
    return floats ? 2 : 0;
}

/* The arguments the exercise's launch takes at size at: the ints' values, the buffers' bytes. */
void grade_host_plan_args_text(const struct grader_exercise *ex, struct grader_size at, char *out,
                               size_t size) {
    for (int i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++) {
        char name[32];
        long long value;
        int kind = expected_arg(ex, at, i, &value);
        grader_arg_name(ex, i, name, sizeof name);
        grade_appendf(out, size, "%s%s", i ? ", " : ", arguments ", name);
        if (kind == 1)
            grade_appendf(out, size, " = %lld", value);
        else if (kind == 2)
            grade_appendf(out, size, ": a buffer of %lld bytes", value);
        else
            grade_appendf(out, size, ": local memory");
    }
}

void grade_host_args_differ(const struct grader_exercise *ex, struct grader_size at,
                            const struct seen_launch *l, char *out, size_t size) {
    int said = 0;
    for (int i = 0; i < GRADER_MAX_ARGS && i < MAX_ARGS && ex->args[i] != ARG_END; i++) {
        const struct seen_arg *a = &l->args[i];
        long long value;
        int kind = expected_arg(ex, at, i, &value);
        char name[32], why[120] = "";
        grader_arg_name(ex, i, name, sizeof name);
        if (!a->kind)
            continue; /* (not seen set: the layer's records may have been cut) */
        if (kind == 1 && a->kind == 'i' && a->value != value)
            snprintf(why, sizeof why, "%s is %lld where the exercise's is %lld", name, a->value,
                     value);
        else if (kind == 1 && a->kind != 'i')
            snprintf(why, sizeof why, "%s is %s where the exercise's is an int", name,
                     a->kind == 'm' ? "a buffer" : "not a 4-byte value");
        else if (kind == 2 && a->kind == 'm' && a->value != value)
            snprintf(why, sizeof why, "%s is a buffer of %lld bytes where the exercise's has %lld",
                     name, a->value, value);
        else if (kind == 2 && a->kind != 'm')
            snprintf(why, sizeof why, "%s is not a buffer the program created", name);
        if (why[0])
            grade_appendf(out, size, "%s%s", said++ ? "; " : "\nwhere the arguments differ: ", why);
    }
}
