/* tune_command.c - `grader --tune` (`make tune`): the command line of the search of an
 * exercise's tuning values (tune.c searches; tune.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "exercise/config.h"
#include "jail/cgroup.h"
#include "grade/command.h"
#include "tune/tune.h"
#include "exercise/protocol.h"
#include "exercise/tuning.h"

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

#define TUNE_BUDGET 300.0 /* seconds, the default of --budget */

static void tune_usage(FILE *out) {
    fprintf(
        out,
        "usage: grader --tune --ex ID [--submission DIR] [--device SPEC] [--budget SEC]\n"
        "                     [--tuning DIR] [--root DIR] [--work DIR] [--seed S]\n"
        "                     [--timeout SEC] [--config FILE] [--no-sandbox]\n"
        "Searches exercise ID's tuning values on the device (default $DEVICE, else the first):\n"
        "each candidate of its table row built with -DNAME=VALUE and timed in the jailed\n"
        "harness as the grader times, every result checked. DIR/ID/kernel.cl is tuned\n"
        "(default: solutions/, the reference; the line it sets says reference, any other\n"
        "folder's submission). --budget bounds the whole search (default %.0f s). The best is\n"
        "kept in --tuning's <device>.conf (default results/tuning/), one line per exercise\n"
        "and side, the other lines kept; make grade and make bench read it. --config: an\n"
        "instructor's file, as grading reads it (the limits of the jailed runs, perf_n).\n"
        "Exit: 0 a best kept, 1 nothing timed or kept, 2 bad flags.\n",
        TUNE_BUDGET);
}

/* `grader --tune`: the flags, the device, the sandbox; the search is grader_tune's (tune.c). */
int grader_tune_main(int argc, char **argv, const char *self) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); /* as grading: a kernel's process must not read ours */
    struct grader_config cfg = {
        .device = getenv("DEVICE"),
        .self = self,
        .seed = grader_hidden_seed(),
        .timeout = 30,
        .sandbox = {.mode = SANDBOX_OWN_PROC},
        .jail = GRADER_JAIL_DEFAULTS,
    };
    setenv("LC_ALL", "C", 1);
    const char *id = NULL, *root = NULL, *tuning = NULL;
    struct grader_tune_request req = {.budget = TUNE_BUDGET};
    enum {
        T_EX = 256,
        T_SUBMISSION,
        T_DEVICE,
        T_BUDGET,
        T_TUNING,
        T_ROOT,
        T_WORK,
        T_SEED,
        T_TIMEOUT,
        T_CONFIG,
        T_NO_SANDBOX
    };
    struct grader_plan plan; /* the rows, limits and timeout, as a --config sets them */
    grader_plan_init(&plan, cfg.timeout, &cfg.jail.limits);
    static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        {"ex", required_argument, NULL, T_EX},
        {"submission", required_argument, NULL, T_SUBMISSION},
        {"device", required_argument, NULL, T_DEVICE},
        {"budget", required_argument, NULL, T_BUDGET},
        {"tuning", required_argument, NULL, T_TUNING},
        {"root", required_argument, NULL, T_ROOT},
        {"work", required_argument, NULL, T_WORK},
        {"seed", required_argument, NULL, T_SEED},
        {"timeout", required_argument, NULL, T_TIMEOUT},
        {"config", required_argument, NULL, T_CONFIG},
        {"no-sandbox", no_argument, NULL, T_NO_SANDBOX},
        {NULL, 0, NULL, 0},
    };
    optind = 0; /* argv[0] is "--tune" */
    opterr = 0;
    for (int opt; (opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1;) {
        const char *value = optarg;
        switch (opt) {
        case 'h':
            tune_usage(stdout);
            return EXIT_FULL;
        case T_EX:
            id = value;
            break;
        case T_SUBMISSION:
            cfg.submission = value;
            break;
        case T_DEVICE:
            cfg.device = value;
            break;
        case T_BUDGET:
            if (grader_parse_seconds(value, &req.budget) != 0 || req.budget <= 0 ||
                req.budget > 1e6)
                return grader_bad_number("--budget", value, "seconds, more than 0");
            break;
        case T_TUNING:
            tuning = value;
            break;
        case T_ROOT:
            root = value;
            break;
        case T_WORK:
            cfg.work = value;
            break;
        case T_SEED:
            if (grader_parse_seed(value, &cfg.seed) != 0)
                return grader_bad_number("--seed", value, "a whole number from 0 up");
            break;
        case T_TIMEOUT:
            if (grader_parse_seconds(value, &plan.timeout) != 0)
                return grader_bad_number("--timeout", value,
                                         "a number of seconds (0: the default, 30)");
            break;
        case T_CONFIG: {
            char err[600];
            if (grader_load_config(value, &plan, err, sizeof err) != 0) {
                fprintf(stderr, "grader: config %s\n", err);
                return EXIT_USAGE;
            }
            break;
        }
        case T_NO_SANDBOX:
            cfg.sandbox.mode = SANDBOX_NONE;
            break;
        case ':':
            fprintf(stderr, "grader: %s needs a value\n", argv[optind - 1]);
            tune_usage(stderr);
            return EXIT_USAGE;
        default:
            fprintf(stderr, "grader: unknown flag %s\n", argv[optind - 1]);
            tune_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "grader: unknown flag %s\n", argv[optind]);
        tune_usage(stderr);
        return EXIT_USAGE;
    }
    req.ex = id ? grader_find_exercise(id) : NULL;
    if (req.ex) /* the plan's copy of the row: a config's perf_n */
        req.ex = &plan.rows[req.ex - grader_exercises];
    cfg.timeout = plan.timeout > 0 ? plan.timeout : 30;
    cfg.jail.limits = plan.limits;
    if (!req.ex || grader_grid_size(req.ex) < 1 || !req.ex->candidates[0].name) {
        fprintf(stderr, "grader: --tune needs --ex and an exercise with tuning values:");
        for (int i = 0; i < grader_exercise_count; i++)
            if (grader_exercises[i].candidates[0].name)
                fprintf(stderr, " %s", grader_exercises[i].id);
        fprintf(stderr, "%s\n", id ? "" : " (no --ex)");
        return EXIT_USAGE;
    }
    if (cfg.device && !*cfg.device)
        cfg.device = NULL;
    char guess[PATH_MAX + 16], buf[PATH_MAX + 64], kernel[PATH_MAX + 64];
    snprintf(guess, sizeof guess, "%s/../..", clu_exe_dir());
    cfg.root = grader_absolute(root ? root : guess, "workbook root");
    snprintf(buf, sizeof buf, "%s/solutions", cfg.root);
    int handout = access(buf, F_OK) != 0; /* (make handout's: no solutions/, no reference) */
    if (handout && !cfg.submission) {
        fprintf(stderr, "grader: this workbook (a handout) has no solutions/: --submission DIR "
                        "names the folder whose kernel to tune (make tune: exercises/)\n");
        return EXIT_USAGE;
    }
    const char *solutions = handout ? "" : grader_absolute(buf, "solutions folder");
    cfg.submission =
        cfg.submission ? grader_absolute(cfg.submission, "submission folder") : solutions;
    req.side = strcmp(cfg.submission, solutions) == 0 ? TUNING_REFERENCE : TUNING_SUBMISSION;
    snprintf(kernel, sizeof kernel, "%s/%s/kernel.cl", cfg.submission, req.ex->id);
    if (access(kernel, R_OK) != 0) {
        fprintf(stderr, "grader: cannot read %s\n", kernel);
        return EXIT_USAGE;
    }
    req.kernel = kernel;
    snprintf(buf, sizeof buf, "%s/build/tune", cfg.root);
    if (!cfg.work)
        cfg.work = strdup(buf);
    grader_make_dirs(cfg.work);
    cfg.work = grader_absolute(cfg.work, "work folder");
    snprintf(cfg.sandbox.hidden[0], sizeof cfg.sandbox.hidden[0], "%s", solutions);
    snprintf(cfg.sandbox.hidden[1], sizeof cfg.sandbox.hidden[1], "%s", cfg.submission);
    snprintf(cfg.sandbox.hidden[2], sizeof cfg.sandbox.hidden[2], "%s", cfg.work);
    if (cfg.sandbox.mode)
        cfg.sandbox.mode = grader_sandbox_works(&cfg);

    struct clu_env env;
    if (clu_env_open(&env, cfg.device) != 0) {
        fprintf(stderr, "grader: no OpenCL device to tune on (see above)\n");
        return EXIT_USAGE;
    }
    char device[600], tuning_file[PATH_MAX + 160];
    snprintf(device, sizeof device, "%s (%s)", env.device_name, env.platform_name);
    req.device = device;
    req.max_group = clu_device_max_group(&env);
    snprintf(buf, sizeof buf, "%s/results/tuning", cfg.root);
    int named =
        grader_tuning_path(tuning ? tuning : buf, env.device_name, tuning_file, sizeof tuning_file);
    clu_env_close(&env);
    if (named != 0) {
        fprintf(stderr, "grader: --tuning %s: too long a path\n", tuning);
        return EXIT_USAGE;
    }
    req.tuning_file = tuning_file;
    req.seed = cfg.seed;
    struct grader_cgroup_student groups; /* as grading: the runs' accounting where it can */
    char no_groups[300];
    int grouped = grader_cgroup_student_open(&groups, "tune", no_groups, sizeof no_groups) == 0;
    if (grouped)
        cfg.jail.cgroups = &groups;
    int status = grader_tune(&cfg, &req) == 0 ? EXIT_FULL : EXIT_LOST;
    if (grouped) {
        cfg.jail.cgroups = NULL;
        grader_cgroup_student_close(&groups);
    }
    return status;
}
