/* clu_options.c - the flags every host program shares. */
#include "clu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out, const char *prog, const char *summary, int default_n) {
    fprintf(
        out,
        "%s\n"
        "usage: %s [--n N] [--m M] [--k K] [--seed S] [--device SPEC] [--repeats R] [--warmup W] "
        "[--block B] [--define NAME=VALUE] [--output FILE] [--list]\n"
        "  --n N          problem size (default %d); with --m and --k: C is M x N, A M x K\n"
        "  --m M, --k K   rows of A and C, and the inner size (default N; exercises from 11)\n"
        "  --seed S       seed of the random inputs (default 42)\n"
        "  --device SPEC  device index from --list, or part of its name (\"pocl\", \"nvidia\");\n"
        "                 default: $DEVICE, else the first device\n"
        "  --repeats R    timed runs after the warm-up; the median is reported (default 5)\n"
        "  --warmup W     untimed runs first (default 1; the grader gives 0 under oclgrind,\n"
        "                 where every run is slow and none is timed)\n"
        "  --block B      BLOCK for the blocked kernel, passed as -DBLOCK=B (default 16)\n"
        "  --define NAME=VALUE, -D NAME=VALUE\n"
        "                 a tuning value of the kernel (#ifndef NAME), built as -DNAME=VALUE\n"
        "  --output FILE  save the result matrix there (the grader checks it)\n"
        "  --list         list the OpenCL devices and exit\n",
        summary, prog, default_n);
}

/* Integer flag value in [min, max], or exit with a message naming the flag. */
static long long int_value(const char *flag, const char *text, long long min, long long max) {
    char *end;
    errno = 0;
    long long v = strtoll(text ? text : "", &end, 10);
    if (!text || *text == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max) {
        fprintf(stderr, "%s needs an integer from %lld to %lld, got \"%s\"\n", flag, min, max,
                text ? text : "");
        exit(2);
    }
    return v;
}

/* --define's NAME=VALUE into the next slot of opt, or exit with a message. */
static void add_define(struct clu_options *opt, const char *flag, const char *text) {
    const char *eq = text ? strchr(text, '=') : NULL;
    size_t len = eq ? (size_t)(eq - text) : 0;
    int name_ok = len > 0 && len < CLU_DEFINE_NAME_MAX;
    for (size_t i = 0; name_ok && i < len; i++)
        name_ok = text[i] == '_' || (text[i] >= 'A' && text[i] <= 'Z') ||
                  (i > 0 && text[i] >= '0' && text[i] <= '9');
    if (!name_ok) {
        fprintf(stderr, "%s needs NAME=VALUE with NAME in capitals (e.g. TS=32), got \"%s\"\n",
                flag, text ? text : "");
        exit(2);
    }
    if (opt->define_count == CLU_MAX_DEFINES) {
        fprintf(stderr, "at most %d tuning values may be given\n", CLU_MAX_DEFINES);
        exit(2);
    }
    int slot = opt->define_count++;
    memcpy(opt->define_names[slot], text, len);
    opt->define_names[slot][len] = '\0';
    opt->define_values[slot] = (int)int_value(flag, eq + 1, 1, 1 << 20);
}

void clu_parse_options(struct clu_options *opt, int argc, char **argv, int default_n,
                       const char *summary) {
    int m = 0, k = 0; /* 0: not given, the same as N */
    opt->n = default_n;
    opt->define_count = 0;
    opt->seed = 42;
    opt->device = getenv("DEVICE");
    opt->repeats = 5;
    opt->warmup = 1;
    opt->block = 16;
    opt->list = 0;
    opt->output = NULL;
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            usage(stdout, argv[0], summary, default_n);
            exit(0);
        } else if (strcmp(flag, "--list") == 0) {
            opt->list = 1;
        } else if (strcmp(flag, "--n") == 0) {
            opt->n = (int)int_value(flag, value, 1, 1 << 28);
            i++;
        } else if (strcmp(flag, "--m") == 0) {
            m = (int)int_value(flag, value, 1, 1 << 28);
            i++;
        } else if (strcmp(flag, "--k") == 0) {
            k = (int)int_value(flag, value, 1, 1 << 28);
            i++;
        } else if (strcmp(flag, "--define") == 0 || strcmp(flag, "-D") == 0) {
            add_define(opt, flag, value);
            i++;
        } else if (strcmp(flag, "--seed") == 0) {
            opt->seed = (uint64_t)int_value(flag, value, 0, INT64_MAX);
            i++;
        } else if (strcmp(flag, "--device") == 0) {
            if (!value) {
                fprintf(stderr, "--device needs a value (see --list)\n");
                exit(2);
            }
            opt->device = value;
            i++;
        } else if (strcmp(flag, "--output") == 0) {
            if (!value) {
                fprintf(stderr, "--output needs a file name\n");
                exit(2);
            }
            opt->output = value;
            i++;
        } else if (strcmp(flag, "--repeats") == 0) {
            opt->repeats = (int)int_value(flag, value, 1, 100000);
            i++;
        } else if (strcmp(flag, "--warmup") == 0) {
            opt->warmup = (int)int_value(flag, value, 0, 100000);
            i++;
        } else if (strcmp(flag, "--block") == 0) {
            opt->block = (int)int_value(flag, value, 1, 1024);
            i++;
        } else {
            fprintf(stderr, "unknown option \"%s\"\n", flag);
            usage(stderr, argv[0], summary, default_n);
            exit(2);
        }
    }
    opt->m = m ? m : opt->n;
    opt->k = k ? k : opt->n;
}
