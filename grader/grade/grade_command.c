/* grade_command.c - the grader's default command: grade a submission (`make grade`), from its
 * command line to the report, the logs and results.json (command.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "exercise/config.h"
#include "jail/cgroup.h"
#include "grade/command.h"
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

static void usage(FILE *out, grader_commands_fn commands) {
    fprintf(
        out,
        "usage: grader [--submission DIR] [--ex ID]... [--device SPEC] [--json FILE]\n"
        "              [--results DIR] [--work DIR] [--root DIR] [--seed S | --seed-file FILE]\n"
        "              [--timeout SEC] [--tuning DIR]\n"
        "              [--no-memcheck] [--no-perf] [--no-sandbox] [--config FILE] [--cache DIR]\n"
        "              [--anchor]\n"
        "Grades the NN_name/ folders of DIR (default: exercises/ of the workbook): each\n"
        "kernel.cl on hidden data at several sizes, each main.c built against the pristine\n"
        "common/, a memory "
        "check with oclgrind, and the speed against solutions/. --ex 04 or --ex 04_local_B\n"
        "grades one exercise (repeatable). Reports go to stdout and to ID.log in --results\n"
        "(default: results/ of the workbook);\n"
        "--seed-file reads the seed from FILE and removes it (a batch's hidden seed: never on a\n"
        "command line, never printed, only its fingerprint).\n"
        "--json writes Gradescope's results.json. --config reads an instructor's settings\n"
        "(exercises, sizes, points, limits: see grader/exercise/config.c); flags after it win.\n"
        "--timeout must be a number of seconds (0: the default, 30) and --seed a whole number.\n"
        "--tuning DIR holds make tune's files (default: results/tuning/ of the workbook): where\n"
        "the device has one, the timed comparison builds each side with its line's values.\n"
        "--slurm-settings prints the config's slurm.* values (make batch ENGINE=slurm) and exits.\n"
        "--anchor times the capstone's vendor against the reference and keeps it in the cache\n"
        "folder (--cache; a batch's gradings find it there), then exits: on a quiet machine.\n"
        "Each ID.log begins with the date, device, grader version, seed and the command that\n"
        "repeats the run (a --seed-file seed: only its fingerprint).\n"
        "Exit: 0 full marks, 1 points lost, 2 could not grade, 3 the machine was too busy to\n"
        "grade fairly (`make grade` exits 0 for 0 and 1: see the README).\n"
        "Exercises:");
    for (int i = 0; i < grader_exercise_count; i++)
        fprintf(out, " %s", grader_exercises[i].id);
    fprintf(out, "\nCommands (the first argument):\n");
    commands(out);
}

/* The hidden seed from a file the batch wrote for this run alone: removed at once, so that no
 * student program finds it later. Returns 0, or -1 with a message. */
static int read_seed_file(const char *path, uint64_t *seed) {
    char text[64] = "";
    FILE *f = fopen(path, "r");
    int got = f && fgets(text, sizeof text, f) != NULL;
    if (f)
        fclose(f);
    unlink(path);
    char *end = NULL;
    errno = 0;
    unsigned long long value = got ? strtoull(text, &end, 10) : 0;
    if (!got || errno != 0 || end == text || (*end != '\0' && *end != '\n')) {
        fprintf(stderr, "grader: --seed-file %s: no seed in it\n", path);
        return -1;
    }
    *seed = (uint64_t)value & 0x7fffffffffffffffull;
    return 0;
}

/* What a log may say about a hidden seed: 8 hex digits of SHA-256-crypt of it under a label of its
 * own, the same for the same seed (regrades compare it) but no way back to the seed. */
static unsigned long seed_fingerprint(uint64_t seed) {
    char key[48];
    snprintf(key, sizeof key, "fingerprint:%llu", (unsigned long long)seed);
    struct crypt_data data;
    memset(&data, 0, sizeof data);
    const char *hashed = crypt_r(key, "$5$rounds=1000$clmmseedprint$", &data);
    const char *text = hashed && hashed[0] == '$' ? hashed : key;
    return (unsigned long)(grader_fnv1a(text, strlen(text)) & 0xffffffffu);
}

static void save_log(const char *dir, const struct grader_run_info *run,
                     const struct grader_exercise_result *r) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s.log", dir, r->ex->id);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    grader_print_log_header(f, run, r->ex);
    grader_print_exercise(f, r, 1);
    fclose(f);
}

/* ---------------------------------------------------------------- the grade command line */

/* The long options of the grade command; the values above any character name those without a
 * short form. */
enum {
    OPT_SUBMISSION = 256,
    OPT_EX,
    OPT_DEVICE,
    OPT_JSON,
    OPT_RESULTS,
    OPT_WORK,
    OPT_ROOT,
    OPT_SEED,
    OPT_SEED_FILE,
    OPT_TIMEOUT,
    OPT_NO_MEMCHECK,
    OPT_NO_PERF,
    OPT_NO_SANDBOX,
    OPT_CONFIG,
    OPT_CACHE,
    OPT_TUNING,
    OPT_SLURM_SETTINGS,
    OPT_ANCHOR,
};

static const struct option grade_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"submission", required_argument, NULL, OPT_SUBMISSION},
    {"ex", required_argument, NULL, OPT_EX},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"json", required_argument, NULL, OPT_JSON},
    {"results", required_argument, NULL, OPT_RESULTS},
    {"work", required_argument, NULL, OPT_WORK},
    {"root", required_argument, NULL, OPT_ROOT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"seed-file", required_argument, NULL, OPT_SEED_FILE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"no-memcheck", no_argument, NULL, OPT_NO_MEMCHECK},
    {"no-perf", no_argument, NULL, OPT_NO_PERF},
    {"no-sandbox", no_argument, NULL, OPT_NO_SANDBOX},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"cache", required_argument, NULL, OPT_CACHE},
    {"tuning", required_argument, NULL, OPT_TUNING},
    {"slurm-settings", no_argument, NULL, OPT_SLURM_SETTINGS},
    {"anchor", no_argument, NULL, OPT_ANCHOR},
    {NULL, 0, NULL, 0},
};

/* What the grade command line asks for, beyond the config it fills. */
struct grade_request {
    const char *root, *json;
    const char *tuning;               /* --tuning: the folder of make tune's files */
    int chosen[GRADER_MAX_EXERCISES]; /* rows of the plan, from --ex */
    int chosen_count;
    int seed_secret; /* the seed came from --seed-file: never print it */
    int anchor;      /* --anchor: the capstone's anchor timed and kept, nothing graded */
    /* every flag as parsed, by its full name, less --ex, --seed and --seed-file: the logs' command
     * that repeats the run appends one exercise and the seed */
    struct grader_argv repeat;
    grader_commands_fn commands; /* the other commands, for usage() */
};

/* Parse the grade command line into cfg, plan and req, in order (a --config is read where it
 * stands: flags after it win). -1: go on grading; else the exit status (--help, an error). */
static int parse_grade_flags(int argc, char **argv, struct grader_config *cfg,
                             struct grader_plan *plan, struct grade_request *req) {
    opterr = 0; /* the messages below, in the grader's words */
    optind = 1;
    int opt, option = -1; /* the row of grade_options getopt_long matched */
    /* '+': stop at the first word that is no flag (reported below); ':': a missing value */
    while ((opt = getopt_long(argc, argv, "+:h", grade_options, &option)) != -1) {
        const char *flag = argv[optind - 1], *value = optarg;
        /* by the table's name: `--conf=x` and `--config x` read the same */
        if (opt >= OPT_SUBMISSION && opt != OPT_EX && opt != OPT_SEED && opt != OPT_SEED_FILE &&
            option >= 0) {
            grader_argv_pushf(&req->repeat, "--%s", grade_options[option].name);
            if (grade_options[option].has_arg == required_argument)
                grader_argv_push(&req->repeat, value);
        }
        option = -1;
        switch (opt) {
        case 'h':
            usage(stdout, req->commands);
            return EXIT_FULL;
        case OPT_SLURM_SETTINGS: /* make batch ENGINE=slurm reads them: one `key=value` a line */
            printf("partition=%s\ngres=%s\ntime_minutes=%d\nmemory_mb=%d\ncpus=%d\n",
                   plan->slurm.partition, plan->slurm.gres, plan->slurm.time_minutes,
                   plan->slurm.memory_mb, plan->slurm.cpus);
            return EXIT_FULL;
        case OPT_NO_MEMCHECK:
            cfg->memcheck = 0;
            break;
        case OPT_ANCHOR:
            req->anchor = 1;
            break;
        case OPT_NO_SANDBOX:
            cfg->sandbox.mode = SANDBOX_NONE;
            break;
        case OPT_NO_PERF:
            cfg->perf = 0;
            break;
        case OPT_SUBMISSION:
            cfg->submission = value;
            break;
        case OPT_ROOT:
            req->root = value;
            break;
        case OPT_JSON:
            req->json = value;
            break;
        case OPT_RESULTS:
            cfg->results = value;
            break;
        case OPT_CACHE:
            cfg->cache = value;
            break;
        case OPT_TUNING:
            req->tuning = value;
            break;
        case OPT_WORK:
            cfg->work = value;
            break;
        case OPT_DEVICE:
            cfg->device = value;
            break;
        case OPT_SEED:
            if (grader_parse_seed(value, &cfg->seed) != 0)
                return grader_bad_number("--seed", value, "a whole number from 0 up");
            break;
        case OPT_SEED_FILE:
            if (read_seed_file(value, &cfg->seed) != 0)
                return EXIT_USAGE;
            req->seed_secret = 1;
            break;
        case OPT_CONFIG: {
            char err[600];
            if (grader_load_config(value, plan, err, sizeof err) != 0) {
                fprintf(stderr, "grader: config %s\n", err);
                return EXIT_USAGE;
            }
            break;
        }
        case OPT_TIMEOUT:
            if (grader_parse_seconds(value, &plan->timeout) != 0)
                return grader_bad_number("--timeout", value,
                                         "a number of seconds (0: the default, 30)");
            break;
        case OPT_EX: {
            const struct grader_exercise *ex = grader_find_exercise(value);
            if (!ex) {
                char near[400];
                if (grader_suggest_exercise(value, near, sizeof near) > 0)
                    fprintf(stderr, "grader: no exercise \"%s\": did you mean %s?\n", value, near);
                else {
                    char range[120];
                    grader_exercise_range(range, sizeof range);
                    fprintf(stderr,
                            "grader: no exercise \"%s\": the exercises are the folders of "
                            "exercises/ (%s), or their numbers (04)\n",
                            value, range);
                }
                return EXIT_USAGE;
            }
            int row = (int)(ex - grader_exercises), already = 0; /* --ex 01 --ex 01: once */
            for (int c = 0; c < req->chosen_count; c++)
                already |= req->chosen[c] == row;
            if (!already)
                req->chosen[req->chosen_count++] = row;
            break;
        }
        case ':':
            fprintf(stderr, "grader: %s needs a value\n", flag);
            usage(stderr, req->commands);
            return EXIT_USAGE;
        default: /* '?': no such flag, or a value given to one that takes none */
            fprintf(stderr, "grader: unknown flag %s\n", flag);
            usage(stderr, req->commands);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "grader: unknown flag %s\n", argv[optind]);
        usage(stderr, req->commands);
        return EXIT_USAGE;
    }
    return -1;
}

/* ---------------------------------------------------------------- grading */

/* The default command: grade a submission (see usage()). */
int grader_grade_main(int argc, char **argv, const char *self, grader_commands_fn commands) {
    /* a student's program of the same uid (a batch without root) must not read the grader's
     * memory, environment or open files through /proc; children get it back at exec */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

    struct grader_config cfg = {
        .device = getenv("DEVICE"),
        .self = self,
        .seed = grader_hidden_seed(),
        .timeout = 30,
        .memcheck = 1,
        .perf = 1,
        .sandbox = {.mode = SANDBOX_OWN_PROC},
        .jail = GRADER_JAIL_DEFAULTS,
    };
    /* plain ASCII messages from the compiler and the tools, whatever the user's locale */
    setenv("LC_ALL", "C", 1);
    /* the table's rows as the config files set them, the timeout, the limits, the bar */
    struct grader_plan plan;
    grader_plan_init(&plan, cfg.timeout, &cfg.jail.limits);
    struct grade_request req = {.commands = commands};
    int parsed = parse_grade_flags(argc, argv, &cfg, &plan, &req);
    if (parsed >= 0)
        return parsed;
    const char *root = req.root, *json = req.json;
    int *chosen = req.chosen, chosen_count = req.chosen_count, seed_secret = req.seed_secret;
    if (cfg.device && !*cfg.device)
        cfg.device = NULL;
    cfg.timeout = plan.timeout > 0 ? plan.timeout : 30;
    cfg.perf_ratio = plan.perf_ratio;
    cfg.jail.limits = plan.limits;

    /* the grader lives in ROOT/build/grader/ */
    char guess[PATH_MAX + 16];
    snprintf(guess, sizeof guess, "%s/../..", clu_exe_dir());
    cfg.root = grader_absolute(root ? root : guess, "workbook root");
    char buf[PATH_MAX + 32];
    snprintf(buf, sizeof buf, "%s/exercises", cfg.root);
    cfg.submission = grader_absolute(cfg.submission ? cfg.submission : buf, "submission folder");
    snprintf(buf, sizeof buf, "%s/results", cfg.root);
    if (!cfg.results)
        cfg.results = strdup(buf);
    snprintf(buf, sizeof buf, "%s/build/grade-cache", cfg.root);
    if (!cfg.cache)
        cfg.cache = strdup(buf);
    snprintf(buf, sizeof buf, "%s/build/grade", cfg.root);
    if (!cfg.work)
        cfg.work = strdup(buf);
    mkdir(cfg.results, 0755);
    mkdir(cfg.work, 0755);
    cfg.work = grader_absolute(cfg.work, "work folder");

    /* a check that cannot run is not the student's failure: stop, or leave it out if told to */
    char oclgrind[PATH_MAX];
    if (cfg.memcheck && grader_find_program("oclgrind", oclgrind, sizeof oclgrind) != 0) {
        fprintf(stderr, "grader: oclgrind is not installed, so the memory check cannot run: "
                        "apt-get install oclgrind (or grade with --no-memcheck, which leaves the "
                        "memory check and technique points out of the maximum)\n");
        return EXIT_USAGE;
    }
    /* the barriers per tile (10's technique) are counted by the grader's own plugin: built with
     * it, so without it the build is broken, not the student's kernel */
    char plugin[PATH_MAX];
    if (cfg.memcheck && grader_tiles_plugin(self, plugin, sizeof plugin) != 0) {
        fprintf(stderr,
                "grader: its oclgrind plugin %s is missing, so a technique cannot be counted: "
                "make grader builds it (apt-get install liboclgrind-dev g++)\n",
                plugin);
        return EXIT_USAGE;
    }
    /* the trusted kernels (the reference, in its timing harness) keep their compiled code in
     * the cache folder: compiled once per batch, not once per student. Jailed runs never see
     * this (their environment names a cache of their own) */
    char pocl_cache[PATH_MAX + 16];
    snprintf(pocl_cache, sizeof pocl_cache, "%s/pocl-trusted", cfg.cache);
    mkdir(cfg.cache, 0755);
    if (mkdir(pocl_cache, 0700) == 0 || errno == EEXIST)
        setenv("POCL_CACHE_DIR", pocl_cache, 1);
    /* a handout (make handout) is the workbook without solutions/: what needs the reference is
     * the instructor's grading's (grade.h). What the sandbox hides from a student's processes */
    snprintf(cfg.sandbox.hidden[0], sizeof cfg.sandbox.hidden[0], "%s/solutions", cfg.root);
    cfg.handout = access(cfg.sandbox.hidden[0], F_OK) != 0;
    if (cfg.handout)
        cfg.sandbox.hidden[0][0] = '\0';
    snprintf(cfg.sandbox.hidden[1], sizeof cfg.sandbox.hidden[1], "%s", cfg.submission);
    snprintf(cfg.sandbox.hidden[2], sizeof cfg.sandbox.hidden[2], "%s", cfg.work);
    if (cfg.sandbox.mode)
        cfg.sandbox.mode = grader_sandbox_works(&cfg);

    if (chosen_count == 0) /* --ex flags win over the config's exercises */
        for (int i = 0; i < plan.chosen_count; i++)
            chosen[chosen_count++] = plan.chosen[i];
    if (chosen_count == 0) /* every row, in the exercises' order (the table keeps 06, the CUDA
                            * quiz, after 13, where the rows it refers to are) */
        for (int i = 0; i < plan.row_count; i++) {
            int at = chosen_count++;
            while (at > 0 && strcmp(plan.rows[chosen[at - 1]].id, plan.rows[i].id) > 0) {
                chosen[at] = chosen[at - 1];
                at--;
            }
            chosen[at] = i;
        }

    struct clu_env env;
    char device[600] = "";
    /* one look at the device in a child-free way: the parent never runs a kernel */
    if (clu_env_open(&env, cfg.device) != 0) {
        fprintf(stderr, "grader: no OpenCL device to grade on (see above); nothing was graded\n");
        return EXIT_USAGE;
    }
    snprintf(device, sizeof device, "%s (%s)", env.device_name, env.platform_name);
    char extensions[8192] = "", device_name[sizeof env.device_name];
    if (clGetDeviceInfo(env.device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions,
                        NULL) != CL_SUCCESS)
        extensions[0] = '\0'; /* (a longer list than this: rows needing one are skipped) */
    snprintf(device_name, sizeof device_name, "%s", env.device_name);
    cfg.device_name = device_name;
    cfg.device_extensions = extensions;
    cl_device_type type = 0;
    if (clGetDeviceInfo(env.device, CL_DEVICE_TYPE, sizeof type, &type, NULL) == CL_SUCCESS)
        cfg.device_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    /* one harness for the hidden sizes on a GPU, whose driver's start is the dearer part; a CPU
     * device (POCL) starts in a moment. The instructor's environment may say otherwise (the
     * tests run the one-harness path here) */
    const char *one_run = getenv("GRADER_SIZES_IN_ONE_RUN");
    cfg.sizes_in_one_run = one_run && (!strcmp(one_run, "0") || !strcmp(one_run, "1"))
                               ? one_run[0] == '1'
                               : !cfg.device_cpu;
    /* make tune's values for this device, when it has a file */
    char tuning_file[PATH_MAX + 160];
    snprintf(buf, sizeof buf, "%s/results/tuning", cfg.root);
    if (grader_tuning_path(req.tuning ? req.tuning : buf, env.device_name, tuning_file,
                           sizeof tuning_file) == 0 &&
        access(tuning_file, F_OK) == 0)
        cfg.tuning_file = tuning_file;
    clu_env_close(&env);
    if (req.anchor && cfg.handout) {
        fprintf(stderr, "grader: --anchor times the vendor against the reference solutions, which "
                        "this handout leaves out: run it in the instructor's workbook\n");
        return EXIT_USAGE;
    }
    if (req.anchor)
        return grade_anchor_command(&cfg, plan.rows, chosen, chosen_count);

    /* the head of every log: this run, and the one command that repeats it */
    struct grader_run_info run = {.device = device,
                                  .seed = cfg.seed,
                                  .seed_secret = seed_secret,
                                  .fingerprint = seed_fingerprint(cfg.seed)};
    grader_utc_date(time(NULL), run.date, sizeof run.date);
    grader_version(cfg.root, run.version, sizeof run.version);
    struct grader_argv repeat = GRADER_ARGV_INIT;
    grader_argv_push(&repeat, self);
    if (getenv("DEVICE") && *getenv("DEVICE")) { /* as the grader read it: a --device wins */
        grader_argv_push(&repeat, "--device");
        grader_argv_push(&repeat, getenv("DEVICE"));
    }
    for (size_t i = 0; i < req.repeat.count; i++)
        grader_argv_push(&repeat, req.repeat.argv[i]);
    char cwd[PATH_MAX];
    char *repeat_line = grader_shell_command(getcwd(cwd, sizeof cwd) ? cwd : NULL,
                                             (const char *const *)repeat.argv);
    if (repeat_line)
        grader_sanitize_text(repeat_line);
    run.repeat = repeat_line;
    grader_argv_clear(&repeat);
    grader_argv_clear(&req.repeat);

    if (seed_secret) /* the log is the student's to read: never the seed itself */
        printf("Grading %s on %s; hidden seed fingerprint %08lx (the batch's secret seed)\n",
               cfg.submission, device, seed_fingerprint(cfg.seed));
    else
        printf("Grading %s on %s; hidden seed %llu (make grade SEED=%llu repeats this run)\n",
               cfg.submission, device, (unsigned long long)cfg.seed, (unsigned long long)cfg.seed);
    /* the kernel's accounting where the grader may make control groups (root, a writable
     * /sys/fs/cgroup): one group for this grader and all its runs, equal CPU weight beside
     * other graders; a group per run with the memory and process limits */
    struct grader_cgroup_student groups;
    char no_groups[300];
    int grouped = grader_cgroup_student_open(&groups, "grade", no_groups, sizeof no_groups) == 0;
    if (grouped)
        cfg.jail.cgroups = &groups;
    if (cfg.tuning_file)
        printf("Tuning values: %s (make tune's; the timed comparison builds with them)\n",
               cfg.tuning_file);
    /* what contains each run: in every log's head; on the screen only where it is less than a
     * control group per run, which whoever grades may want to fix */
    if (grouped) { /* each controller in force, and what stands in for each missing one */
        char used[200], fallback[800];
        grader_cgroup_describe(&groups, used, sizeof used, fallback, sizeof fallback);
        snprintf(run.containment, sizeof run.containment,
                 "a %s group per run (%s), uid, rlimits%s%s%s", grader_cgroup_mode(&groups), used,
                 fallback[0] ? " (without their controllers: " : "", fallback,
                 fallback[0] ? ")" : "");
        if (fallback[0])
            printf("Containment: %s\n", run.containment);
    } else {
        snprintf(run.containment, sizeof run.containment,
                 "uid (as root), rlimits and the grader's watch of memory and folder size (no "
                 "control groups: %s)",
                 no_groups);
        printf("Containment: %s\n", run.containment);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct grader_exercise_result *results = calloc((size_t)chosen_count, sizeof *results);
    if (!results)
        return EXIT_USAGE;
    int broken = 0; /* an exercise whose tests do not add up to its points: the grader's bug */
    for (int i = 0; i < chosen_count; i++) {
        grader_grade_exercise(&cfg, &plan.rows[chosen[i]], &results[i]);
        grader_print_exercise(stdout, &results[i], 0);
        save_log(cfg.results, &run, &results[i]);
        fflush(stdout);
        if (!grader_result_max_ok(&results[i])) {
            fprintf(stderr,
                    "grader: %s: a maximum of %d with %d points left out, where the exercise has "
                    "%d: a test is missing or a skip does not say its points (a bug of the "
                    "grader's); not graded\n",
                    results[i].ex->id, grader_result_max(&results[i]),
                    grader_result_left_out(&results[i]), grader_max_points(results[i].ex));
            broken = 1;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    grader_print_summary(stdout, results, chosen_count, device);
    printf("Reports of each exercise: %s/<exercise>.log\n", cfg.results);
    int lost = 0; /* (a test worth nothing loses nothing) */
    for (int i = 0; i < chosen_count; i++)
        lost |= grader_result_score(&results[i]) < grader_result_max(&results[i]);
    int status = lost ? EXIT_LOST : EXIT_FULL, too_busy = 0;
    for (int i = 0; i < chosen_count; i++)
        too_busy |= results[i].too_busy;
    if (broken) { /* no score rather than one against the wrong maximum */
        json = NULL;
        status = EXIT_USAGE;
    } else if (too_busy) {
        /* no verdict rather than a point lost for the grader's trouble; no results.json */
        printf("not graded: the machine was too busy to grade fairly (a run stopped twice at its "
               "time limit with under a quarter of a CPU, or every launch of the capstone's "
               "anchor starved: the report says which); grade again when it is quieter\n");
        json = NULL;
        status = EXIT_BUSY;
    }
    if (json) {
        double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (grader_write_json(json, results, chosen_count, seconds, device) != 0)
            status = EXIT_USAGE;
        else
            printf("Gradescope results: %s\n", json);
    }
    for (int i = 0; i < chosen_count; i++)
        grader_free_result(&results[i]);
    free(results);
    free(repeat_line);
    if (grouped) {
        cfg.jail.cgroups = NULL;
        grader_cgroup_student_close(&groups);
    }
    return status;
}
