/* harness_flags.c - the harness's command line (harness_flags.h), read with getopt_long. */
#include "child/child.h"
#include "child/harness_flags.h"
#include "exercise/protocol.h"

#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define WHO "harness" /* how its messages begin */

/* --then M,N,K,SEED: 0, or -1 after one line on stderr */
static int read_then(const char *text, struct harness_flags *f) {
    char rest = 0;
    int m = 0, n = 0, k = 0;
    unsigned long long seed = 0;
    if (f->then_count >= GRADER_MAX_SIZES - 1) {
        fprintf(stderr, WHO ": more than %d " FLAG_THEN "\n", GRADER_MAX_SIZES - 1);
        return -1;
    }
    if (sscanf(text, "%d,%d,%d,%llu%c", &m, &n, &k, &seed, &rest) != 4 || m < 1 || n < 1 || k < 1 ||
        !isdigit((unsigned char)text[0]) || strchr(text, '-')) {
        fprintf(stderr, WHO ": " FLAG_THEN " %s: not M,N,K,SEED\n", text);
        return -1;
    }
    f->then[f->then_count] = (struct grader_size){m, n, k};
    f->then_seed[f->then_count++] = seed;
    return 0;
}

int harness_read_flags(int argc, char **argv, struct harness_flags *f) {
    enum {
        EX = 1,
        KERNEL,
        N,
        M,
        K,
        SEED,
        OUT,
        DEVICE,
        BLOCK,
        CHECK,
        DEFINE,
        EXACT,
        SERVE,
        VENDORS,
        THEN
    };
    const struct option options[] = {{FLAG_NAME(FLAG_EX), required_argument, NULL, EX},
                                     {FLAG_NAME(FLAG_KERNEL), required_argument, NULL, KERNEL},
                                     {FLAG_NAME(FLAG_N), required_argument, NULL, N},
                                     {FLAG_NAME(FLAG_M), required_argument, NULL, M},
                                     {FLAG_NAME(FLAG_K), required_argument, NULL, K},
                                     {FLAG_NAME(FLAG_CHECK), no_argument, NULL, CHECK},
                                     {FLAG_NAME(FLAG_SEED), required_argument, NULL, SEED},
                                     {FLAG_NAME(FLAG_OUT), required_argument, NULL, OUT},
                                     {FLAG_NAME(FLAG_DEVICE), required_argument, NULL, DEVICE},
                                     {FLAG_NAME(FLAG_BLOCK), required_argument, NULL, BLOCK},
                                     {FLAG_NAME(FLAG_DEFINE), required_argument, NULL, DEFINE},
                                     {FLAG_NAME(FLAG_EXACT), no_argument, NULL, EXACT},
                                     {FLAG_NAME(FLAG_SERVE), no_argument, NULL, SERVE},
                                     {FLAG_NAME(FLAG_VENDORS), no_argument, NULL, VENDORS},
                                     {FLAG_NAME(FLAG_THEN), required_argument, NULL, THEN},
                                     {NULL, 0, NULL, 0}};
    opterr = 0; /* child_bad_flag says it, on one line */
    int got;
    unsigned long long v;
    while ((got = getopt_long(argc, argv, CHILD_OPTSTRING, options, NULL)) != -1) {
        switch (got) {
        case EX:
            f->id = optarg;
            break;
        case KERNEL:
            f->kernel = optarg;
            break;
        case OUT:
            f->out = optarg;
            break;
        case DEVICE:
            f->device = optarg;
            break;
        case N:
            if (child_number(WHO, FLAG_N, optarg, 1, INT_MAX, &v) != 0)
                return HARNESS_USAGE;
            f->n = (int)v;
            break;
        case M:
        case K:
            if (child_number(WHO, got == M ? FLAG_M : FLAG_K, optarg, 1, INT_MAX, &v) != 0)
                return HARNESS_USAGE;
            *(got == M ? &f->m : &f->k) = (int)v;
            break;
        case CHECK:
            f->check = 1;
            break;
        case BLOCK:
            if (child_number(WHO, FLAG_BLOCK, optarg, 0, INT_MAX, &v) != 0)
                return HARNESS_USAGE;
            f->block = (int)v;
            break;
        case DEFINE:
            if (f->define_count == CLU_MAX_DEFINES) {
                fprintf(stderr, WHO ": more than %d " FLAG_DEFINE "\n", CLU_MAX_DEFINES);
                return HARNESS_USAGE;
            }
            f->defines[f->define_count++] = optarg;
            break;
        case SEED:
            if (child_number(WHO, FLAG_SEED, optarg, 0, UINT64_MAX, &v) != 0)
                return HARNESS_USAGE;
            f->seed = v;
            break;
        case EXACT:
            f->guard = 0;
            break;
        case SERVE:
            f->serving = 1;
            break;
        case VENDORS:
            f->vendors = 1;
            break;
        case THEN:
            if (read_then(optarg, f) != 0)
                return HARNESS_USAGE;
            break;
        default:
            child_bad_flag(WHO, got, argv);
            return HARNESS_USAGE;
        }
    }
    if (optind < argc) {
        child_bad_flag(WHO, -1, argv);
        return HARNESS_USAGE;
    }
    if (f->then_count && f->serving) {
        fprintf(stderr, WHO ": " FLAG_THEN " is not for " FLAG_SERVE "\n");
        return HARNESS_USAGE;
    }
    if (!f->id || !grader_find_exercise(f->id) || !f->kernel || !f->out || f->n < 1) {
        fprintf(stderr, WHO ": needs " FLAG_EX " (an exercise's id), " FLAG_KERNEL ", " FLAG_N
                            ", " FLAG_SEED " and " FLAG_OUT "\n");
        return HARNESS_USAGE;
    }
    return HARNESS_OK;
}

int harness_apply_defines(const struct harness_flags *f, const struct grader_exercise *ex,
                          struct grader_variant *variant, struct grader_values *values) {
    if (f->define_count == 0)
        return HARNESS_OK;
    if (!variant->tuning) {
        fprintf(stderr, WHO ": %s has no tuning values for " FLAG_DEFINE "\n", ex->id);
        return HARNESS_USAGE;
    }
    memset(values, 0, sizeof *values);
    for (int t = 0; t < CLU_MAX_DEFINES && variant->tuning[t].name; t++)
        values->v[t] = variant->tuning[t];
    for (int d = 0; d < f->define_count; d++) {
        const char *text = f->defines[d], *eq = strchr(text, '=');
        int slot = -1;
        for (int t = 0; eq && t < CLU_MAX_DEFINES && values->v[t].name && slot < 0; t++)
            if (strlen(values->v[t].name) == (size_t)(eq - text) &&
                strncmp(values->v[t].name, text, (size_t)(eq - text)) == 0)
                slot = t;
        unsigned long long v;
        if (slot < 0) {
            fprintf(stderr, WHO ": " FLAG_DEFINE " %s: %s has no such tuning value\n", text,
                    ex->id);
            return HARNESS_USAGE;
        }
        if (child_number(WHO, FLAG_DEFINE, eq + 1, 1, 65536, &v) != 0)
            return HARNESS_USAGE;
        values->v[slot].value = (int)v;
    }
    *variant = grader_values_variant(values);
    return HARNESS_OK;
}
