/* command_args.c - what the grade and tune command lines share: the hidden seed, numbers and
 * paths read from flags, whether the sandbox works here (command.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "grade/command.h"

#include <crypt.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t grader_hidden_seed(void) {
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, &seed, sizeof seed) != (ssize_t)sizeof seed)
        seed = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    if (fd >= 0)
        close(fd);
    return seed & 0x7fffffffffffffffull;
}

int grader_parse_seconds(const char *text, double *out) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

int grader_parse_seed(const char *text, uint64_t *out) {
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)text[0]))
        return -1;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = (uint64_t)v & 0x7fffffffffffffffull;
    return 0;
}

int grader_bad_number(const char *flag, const char *value, const char *want) {
    fprintf(stderr, "grader: %s wants %s, not \"%s\"\n", flag, want, value);
    return EXIT_USAGE;
}

const char *grader_absolute(const char *path, const char *what) {
    char *abs = realpath(path, NULL);
    if (!abs) {
        fprintf(stderr, "grader: %s %s: %s\n", what, path, strerror(errno));
        exit(EXIT_USAGE);
    }
    return abs;
}

int grader_sandbox_works(const struct grader_config *cfg) {
    const char *work = cfg->work;
    char bwrap[PATH_MAX] = "", log[PATH_MAX + 32];
    if (grader_find_program("bwrap", bwrap, sizeof bwrap) != 0)
        bwrap[0] = '\0';
    if (!bwrap[0]) {
        printf("note: bubblewrap is not installed: student programs run without the sandbox "
               "(apt-get install bubblewrap)\n");
        return 0;
    }
    /* probed as the student's programs will run: under their uid when the grader is root, with
     * a folder in /tmp bound writable, a private /tmp and no network */
    char top[64] = "/tmp/clmm-probe-XXXXXX", dir[96];
    struct grader_run_result run = {.how = RUN_NO_START};
    int found = SANDBOX_NONE;
    snprintf(log, sizeof log, "%s/sandbox-probe.txt", work);
    if (mkdtemp(top) && chmod(top, 0711) == 0) {
        snprintf(dir, sizeof dir, "%s/w", top);
        mkdir(dir, 0755);
        /* a /proc of its own where it can; inside another sandbox the outer /proc is bound */
        /* the very prefix student programs get; a /proc of its own where it can, inside
         * another sandbox the outer /proc bound */
        struct grader_config probe_cfg = *cfg;
        for (int way = SANDBOX_OWN_PROC; way <= SANDBOX_HOST_PROC && !found; way++) {
            struct grader_argv probe = GRADER_ARGV_INIT;
            probe_cfg.sandbox.mode = way;
            grader_sandbox_push(&probe_cfg.jail, &probe_cfg.sandbox, dir, &probe);
            grader_argv_push(&probe, "/bin/true");
            grader_run_jailed(&probe_cfg.jail, probe.argv, dir, log, 20, &run);
            grader_argv_clear(&probe);
            if (run.how == RUN_EXITED && run.code == 0)
                found = way;
        }
        rmdir(dir);
        rmdir(top);
    }
    if (found != SANDBOX_NONE)
        return found;
    printf("note: bubblewrap cannot make a sandbox here: student programs run without it\n");
    return 0;
}
