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

/* The arguments the exercise's launch takes at size at: the ints' values, the buffers' bytes. */
void grade_host_plan_args_text(const struct grader_exercise *ex, struct grader_size at, char *out,
                               size_t size) {
    for (int i = 0; i < GRADER_MAX_ARGS && ex->args[i] != ARG_END; i++) {
        char name[32];
        grader_arg_name(ex, i, name, sizeof name);
        grade_appendf(out, size, "%s%s", i ? ", " : ", arguments ", name);
        size_t floats = 0;
        switch (ex->args[i]) {
        case ARG_N:
            grade_appendf(out, size, " = %d", at.n);
            break;
        case ARG_M:
            grade_appendf(out, size, " = %d", at.m);
            break;
        case ARG_K:
            grade_appendf(out, size, " = %d", at.k);
            break;
        case ARG_COUNT:
            grade_appendf(out, size, " = %d", at.n);
            break;
        case ARG_A:
            floats = grader_a_count(ex, at);
            break;
        case ARG_B:
            floats = grader_b_count(ex, at);
            break;
        case ARG_C:
            floats = grader_output_count(ex, at);
            break;
        default:
            grade_appendf(out, size, ": local memory");
            break;
        }
        if (floats)
            grade_appendf(out, size, ": a buffer of %zu bytes", floats * sizeof(float));
    }
}

/* Where l's recorded arguments differ from the exercise's at size at: an int of another value,
 * a buffer of other bytes, a buffer where a value belongs or the other way round. */
void grade_host_args_differ(const struct grader_exercise *ex, struct grader_size at,
                            const struct seen_launch *l, char *out, size_t size) {
    int said = 0;
    for (int i = 0; i < GRADER_MAX_ARGS && i < MAX_ARGS && ex->args[i] != ARG_END; i++) {
        const struct seen_arg *a = &l->args[i];
        enum grader_arg want = ex->args[i];
        long long value = want == ARG_M ? at.m : want == ARG_K ? at.k : at.n, bytes = 0;
        if (want == ARG_A)
            bytes = (long long)(grader_a_count(ex, at) * sizeof(float));
        else if (want == ARG_B)
            bytes = (long long)(grader_b_count(ex, at) * sizeof(float));
        else if (want == ARG_C)
            bytes = (long long)(grader_output_count(ex, at) * sizeof(float));
        int is_int = want == ARG_M || want == ARG_N || want == ARG_K || want == ARG_COUNT;
        char name[32], why[120] = "";
        grader_arg_name(ex, i, name, sizeof name);
        if (!a->kind)
            continue; /* (not seen set: the layer's records may have been cut) */
        if (is_int && a->kind == 'i' && a->value != value)
            snprintf(why, sizeof why, "%s is %lld where the exercise's is %lld", name, a->value,
                     value);
        else if (is_int && a->kind != 'i')
            snprintf(why, sizeof why, "%s is %s where the exercise's is an int", name,
                     a->kind == 'm' ? "a buffer" : "not a 4-byte value");
        else if (bytes && a->kind == 'm' && a->value != bytes)
            snprintf(why, sizeof why, "%s is a buffer of %lld bytes where the exercise's has %lld",
                     name, a->value, bytes);
        else if (bytes && a->kind != 'm')
            snprintf(why, sizeof why, "%s is not a buffer the program created", name);
        if (why[0])
            grade_appendf(out, size, "%s%s", said++ ? "; " : "\nwhere the arguments differ: ", why);
    }
}
