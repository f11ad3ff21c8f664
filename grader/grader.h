/* clang-format off */
/* grader.h - the workbook's grader, and the index of its tree. main.c includes this header; every
 * other file includes the headers of its own wing and of the wings below it, never above (the
 * list is kept out of clang-format's reach, so its lines stay as written):
 *
 * main.c            the command table: grade (default), --harness, --cuda-harness, --bench, --tune
 * tune/             make tune (tune.h): tune.c the search of a row's tuning values, timed as
 *                   grade/ times (timing_protocol.h); tune_command.c its command line
 * grade/            the grade command, one exercise test by test (grade.h; internal.h within
 *                   the wing)
 *   commands        command.h: grade_command.c; command_args.c (tune_command.c's too)
 *   order           grade_exercise.c: the tests of one exercise, in order
 *   kernel runs     harness_run.c runs the harness child; kernel_tests.c the hidden sizes;
 *                   c_picture.c a wrong C drawn; kernel_printf.c a printf in the kernel said
 *   host program    host_test.c builds and runs the student's main.c; host_paths.c its files;
 *                   host_launches.c what the OpenCL layer saw it do (host_seen.h its
 *                   records), host_args.c the arguments it set, host_guards.c its writes
 *                   past a buffer's end; host_oclgrind.c it once more under oclgrind
 *   oclgrind        memcheck.c the memory check; oclgrind_kernel.c one kernel under it; technique.c the traffic and the
 *                   technique; barrier_loop.c POCL's loop-barrier note
 *   speed           timing.c the comparison's order; timing_protocol.c a harness's commands on
 *                   the grader's clock, and the lock; busy.c which launches a busy machine
 *                   starved; score.c the ratio, the fractions and the points (busy.h, score.h:
 *                   pure, test_score); anchor.c the capstone's anchor against the reference,
 *                   timed once and kept; pace_cache.c the reference's too-short launch, kept;
 *                   cache_file.c the cache folder's files; perf_test.c their verdicts;
 *                   tuned.c the values each side is built with; baselines.c a handout's
 *                   sequential loop and OpenBLAS
 *   sub-groups      subgroups.c 12's memory check on the grader's own sub-groups
 *   the rest        cuda.c the CUDA twin (cuda_build.c its nvcc build); quiz.c the quiz;
 *                   builds.c the builds oclgrind judges; report.c the report, the logs' head and
 *                   results.json; provenance.c what the logs' head says of the run
 * text/             a student's kernel text, rewritten and judged as text before anything builds
 *                   it: canon.c (canon.h) the one canonical text every build compiles, with
 *                   canon_text.c (what the text may hold) and canon_log.c (the preprocessor's
 *                   log read; canon_parts.h within the wing); subgroups_text.c (subgroups_text.h)
 *                   12's sub-group calls rewritten for oclgrind
 * oclgrind/         what the grader reads of oclgrind, apart from when it runs it (grade/):
 *                   findings.c (findings.h) its --log read and summed up for a student;
 *                   tiles.cpp the grader's plugin inside oclgrind, which counts each
 *                   work-group's tiles between barriers (read by exercise/traffic.c)
 * bench/            make bench (bench.h): bench_command.c the rows and the table; measure.c and
 *                   measure_repeat.c measuring; peak.c (peak.cl) the device's peaks; vendor.c the
 *                   vendor libraries (cuBLAS: common/); csv.c bench.csv's one reader and writer;
 *                   plot_read.c, plot.c, bars.c, steps.c, scale.c the plots; roofline.c and
 *                   labels.c the roofline; progress.c what it prints while it runs
 * child/            the programs the grader runs jailed, deciding nothing (child.h): harness.c
 *                   the OpenCL kernel harness (harness_flags.c its command line); cuda_harness.c
 *                   the CUDA harness (cuda_driver.c its driver binding); flags.c their numbers;
 *                   launch_layer.c the OpenCL layer in the student's host program (LD_AUDIT),
 *                   its own state in launch_layer_state.h: launch_layer_buffers.c the program's
 *                   buffer calls, launch_layer_pending.c a launch's guards read back and the
 *                   calls where the program waits; what it asks of the driver in
 *                   launch_layer_driver.h: launch_layer_guards.c the guard zones around the
 *                   program's buffers, launch_layer_local.c a launch's local memory against the
 *                   device's
 * exercise/         what an exercise is and what "right" means (exercise.h): table.c the table,
 *                   one row each; row.c what a row says of sizes, counts and points; config.c
 *                   the instructor's config (config.h); launch.c a row's launch geometry;
 *                   check.c the reference and the checks; hint.c what a wrong output says
 *                   (hint_walk.c, hint_walk.h: how the kernel walked A and B, any shape);
 *                   seed.c the seeds; traffic.c the memory traffic (traffic.h); candidates.c,
 *                   tuning_file.c make tune's candidates and files (tuning.h); protocol.c what
 *                   the grader and its children agree on (protocol.h)
 * jail/             everything that runs a student's code (jail.h): run.c, spawn.c the runner;
 *                   watch.c its watch (runner.h); session.c sessions and seccomp; cgroup.h:
 *                   cgroup_student.c, cgroup_run.c, cgroup_fs.c; sandbox.c bubblewrap's policy;
 *                   folders.c jail folders; starve.c how long a run waited for a CPU; argv.c a
 *                   growing argv (argv.h)
 * intake/           students' uploads before anything grades them (intake.h; build/grader/intake,
 *                   a program of its own): intake_name.c platform names; intake_unpack.c
 *                   archives under one set of caps; intake_class.c a class walked into students;
 *                   intake_stage.c one student's uploads staged; intake_worksheet.c Moodle's
 *                   worksheet read, intake_fill.c filled in; intake_main.c its command line
 * batch/            make batch (batch.sh), Slurm (slurm.sh) and Gradescope (gradescope.sh):
 *                   shell over the intake and the grader
 *
 * Layers, each including only those below it: main -> tune -> {grade, bench, child, intake} ->
 * {text, oclgrind} -> exercise -> jail -> common/ (clu.h). tests/layers.sh checks it in `make test`.
 *
 * The grader never trusts a student's program: it builds the student's main.c against the pristine
 * common/ library, runs every student program and kernel in a jailed child process with a time
 * limit, and checks the numbers those children save against its own double-precision reference.
 * Nothing a student program prints is read as a verdict.
 */
/* clang-format on */
#ifndef GRADER_H
#define GRADER_H

#include "bench/bench.h"
#include "child/child.h"
#include "exercise/config.h"
#include "grade/grade.h"
#include "jail/cgroup.h"

#endif
