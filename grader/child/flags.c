/* flags.c - what the children share in reading their command lines (child.h). The grader writes
 * every command line, so a fault in one is a fault of the grader's: it is named, on one line,
 * and the child stops with its USAGE status before doing anything. */
#include "child/child.h"
#include "exercise/protocol.h"

#include <getopt.h>
#include <stdio.h>

int child_number(const char *who, const char *flag, const char *text, unsigned long long min,
                 unsigned long long max, unsigned long long *value) {
    if (grader_parse_number(text, max, value) == 0 && *value >= min)
        return 0;
    fprintf(stderr, "%s: %s takes a whole number from %llu to %llu, not '%s'\n", who, flag, min,
            max, text);
    return -1;
}

void child_bad_flag(const char *who, int got, char **argv) {
    /* getopt_long has stepped past a long flag it refuses; a short one may sit inside a group */
    const char *at = optind > 0 ? argv[optind - 1] : "";
    if (got == ':')
        fprintf(stderr, "%s: %s needs a value\n", who, at);
    else if (got == '?' && optopt > 0 && optopt < 128 && at[0] == '-' && at[1] != '-')
        fprintf(stderr, "%s: unknown flag -%c\n", who, optopt);
    else if (got == '?')
        fprintf(stderr, "%s: unknown flag %s\n", who, at);
    else
        fprintf(stderr, "%s: unexpected argument %s\n", who, argv[optind]);
}
