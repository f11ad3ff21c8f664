/* grader.h - the workbook's grader, and the index of its tree. main.c includes this header; every
 * other file includes the headers of its own wing and of the wings below it, never above:
 *
 *   main.c           the command table: grade (default), --harness, --cuda-harness, --bench,
 *                    --tune
 *   grade/           the grade and tune commands (command.h: grade_command.c, tune_command.c,
 *                    command_args.c); one exercise, test by test (grade.h; internal.h within
 *                    the wing): grade_exercise.c holds the order of the tests; harness_run.c runs
 * the harness child; kernel_tests.c the hidden sizes; host_test.c the student's main.c;
 *                    host_launches.c whether it drove the device (what the layer saw);
 *                    host_oclgrind.c main.c once more under oclgrind; memcheck.c oclgrind's
 *                    check; findings.c oclgrind's log read and summarised; technique.c the
 *                    traffic and the technique;
 *                    the speed against the reference: timing.c the comparison's order,
 *                    timing_protocol.c one harness's commands on the grader's clock and the lock
 *                    (timing_protocol.h), busy.c which launches a busy machine starved, score.c
 *                    the ratio, the fractions and the points (busy.h, score.h: pure, test_score),
 *                    perf_test.c their verdicts; tuned.c the values
 *                    it builds each side with (a tuning file's); tune.c `make tune`'s search
 *                    of the tuning values, timed the same way; cuda.c the CUDA twin (cuda_build.c
 * its nvcc build); quiz.c the quiz; canon.c the one canonical kernel text; report.c the report, the
 * logs' head and results.json; provenance.c what the logs' head says of the run (the grader's
 * version, the date, the command that repeats it) bench/           `make bench` (bench.h): the rows
 * and the table (bench_command.c), measuring (measure.c), the device's peaks (peak.c, its kernels
 * in peak.cl), the vendor libraries (vendor.c, cublas.c), bench.csv's one reader and writer
 * (csv.c), the plots (plot.c, bars.c), the roofline (roofline.c) and its label placement (labels.c)
 *   child/           the programs the grader runs jailed, deciding nothing (child.h): the OpenCL
 *                    kernel harness (harness.c), the CUDA harness (cuda_harness.c) and its driver
 *                    binding (cuda_driver.c), their command lines (flags.c); and the OpenCL layer
 *                    loaded into the student's host program (launch_layer.c, an LD_AUDIT module
 *                    built on its own), which reports its calls to the grader
 *   exercise/        what an exercise is and what "right" means (exercise.h): the exercise table
 *                    (table.c), the instructor's config as a plan (config.h), the launch geometry
 *                    of a row (launch.c), the reference and the checks (check.c), what a wrong
 *                    output says (hint.c), the seeds (seed.c), the memory traffic count
 *                    (traffic.h), the candidates of make tune and the tuning files of each
 *                    device (tuning.h: candidates.c, tuning_file.c), and protocol.h, what the
 *                    grader and its children agree on
 *                    (flags, file names, exit statuses, the guard zone after C, the CUDA timing
 *                    file's one writer and reader)
 *   jail/            everything that runs a student's code (jail.h, settings in a struct): the
 *                    runner (run.c, spawn.c) and its watch (watch.c), sessions and seccomp
 *                    (session.c), control groups (cgroup.h: cgroup_student.c a student's,
 * cgroup_run.c a run's, cgroup_fs.c their files), the bubblewrap sandbox policy (sandbox.c), jail
 * folders and file helpers (folders.c), a growing argv (argv.h)
 *   intake/          students' uploads before anything grades them (intake.h; build/grader/intake,
 *                    a program of its own): platform names, archives under one set of caps, a
 *                    class walked into students, one student's uploads staged
 *   batch/           `make batch` (batch.sh), Slurm (slurm.sh) and the Gradescope entry point
 *                    (gradescope.sh), shell over the intake and the grader
 *
 * Layers, each including only those below it: main -> {grade, bench, child, intake} -> exercise
 * -> jail -> common/ (clu.h). tests/layers.sh checks it in `make test`.
 *
 * The grader never trusts a student's program: it builds the student's main.c against the pristine
 * common/ library, runs every student program and kernel in a jailed child process with a time
 * limit, and checks the numbers those children save against its own double-precision reference.
 * Nothing a student program prints is read as a verdict.
 */
#ifndef GRADER_H
#define GRADER_H

#include "bench/bench.h"
#include "child/child.h"
#include "exercise/config.h"
#include "grade/grade.h"
#include "jail/cgroup.h"

#endif
