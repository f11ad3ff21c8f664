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
        "usage: %s [--n N] [--seed S] [--device SPEC] [--repeats R] [--block B] [--output FILE] "
        "[--list]\n"
        "  --n N          problem size (default %d)\n"
        "  --seed S       seed of the random inputs (default 42)\n"
        "  --device SPEC  device index from --list, or part of its name (\"pocl\", \"nvidia\");\n"
        "                 default: $DEVICE, else the first device\n"
        "  --repeats R    timed runs after one warm-up; the median is reported (default 5)\n"
        "  --block B      BLOCK for the blocked kernel, passed as -DBLOCK=B (default 16)\n"
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

void clu_parse_options(struct clu_options *opt, int argc, char **argv, int default_n,
                       const char *summary) {
    opt->n = default_n;
    opt->seed = 42;
    opt->device = getenv("DEVICE");
    opt->repeats = 5;
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
        } else if (strcmp(flag, "--block") == 0) {
            opt->block = (int)int_value(flag, value, 1, 1024);
            i++;
        } else {
            fprintf(stderr, "unknown option \"%s\"\n", flag);
            usage(stderr, argv[0], summary, default_n);
            exit(2);
        }
    }
}
