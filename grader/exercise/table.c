/* table.c - every exercise the grader knows, one row each. Adding an exercise means adding a row
 * here (and its folders in exercises/ and solutions/); nothing else in the grader names one.
 *
 * Techniques: bounds on the global and local loads per multiply-add that oclgrind counts at
 * memcheck_n. Naive kernels load 2 floats from global memory per multiply-add; a private row of
 * A makes it 1 + 1/N; a local column of B 1/L + 1/N with 1 local load; 16x16 tiles 2/16 with 2
 * local loads. The bounds sit between the naive figure and the technique's. Each operand the
 * inner loop reads from the wrong place moves about one load per multiply-add, so a missed bound
 * says which operand it is (global_miss, local_miss: said to the student with the figures).
 *
 * Sizes: hidden correctness sizes include sizes that are not powers of two and, where the
 * exercise allows any N, sizes that are not multiples of 16, so a kernel that assumes either
 * fails. They stay small so that grading every exercise takes seconds on POCL; the timing
 * sizes are chosen so that each timed matmul run lasts 50 ms or more on POCL on a 2-core
 * machine (vadd, memory-bound, lasts ~6 ms: larger vectors would need gigabytes).
 */
#include "exercise/exercise.h"

#include <stdio.h>

#define MM_ARGS ARG_N, ARG_A, ARG_B, ARG_C

const struct grader_exercise grader_exercises[] = {
    {
        .id = "00_vadd",
        .title = "Vector add c = a + b",
        .kernel = "vadd",
        .is_vector = 1,
        .args = {ARG_A, ARG_B, ARG_C, ARG_COUNT},
        .shape = SHAPE_VECTOR,
        .sizes = {1, 1000, 65537, 1 << 20},
        .host_n = 100003,
        .memcheck_n = 1000,
        .perf_n = 1 << 24, /* memory-bound: ~6 ms on POCL; larger needs GBs */
        .multiple = 1,
        .points = {.per_size = 1, .host = 2, .memcheck = 1, .perf = 1},
    },
    {
        .id = "01_per_element",
        .title = "C(i,j) per work-item, all global",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_ELEMENTS,
        .block = 16,
        .sizes = {16, 100, 257},
        .host_n = 129,
        .memcheck_n = 20,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1},
    },
    {
        .id = "02_per_row",
        .title = "C row per work-item, all global",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_ROWS,
        .block = 16,
        .sizes = {16, 100, 257},
        .host_n = 129,
        .memcheck_n = 20,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1},
    },
    {
        .id = "03_private_A",
        .title = "C row per work-item, A row private",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_ROWS,
        .block = 16,
        .sizes = {16, 100, 257},
        .host_n = 129,
        .memcheck_n = 20,
        .perf_n = 512,
        .max_n = 1024,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"the row of A read from global memory once per work-item",
                      .max_global_loads = 1.25,
                      .global_miss = "A is read from global memory inside the loop over k; copy "
                                     "row i of A into the private array Awrk once, then read "
                                     "A(i,k) from there"},
    },
    {
        .id = "04_local_B",
        .title = "C row per work-item, A private, B local",
        .kernel = "mmul",
        .args = {MM_ARGS, ARG_LOCAL_ROW},
        .shape = SHAPE_ROWS_GROUPED,
        .block = 16,
        .sizes = {16, 100, 200},
        .host_n = 120,
        .memcheck_n = 24,
        .perf_n = 384,
        .max_n = 1024,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"the row of A private, the column of B read through local memory",
                      .max_global_loads = 0.5, .min_local_loads = 0.9,
                      .global_miss = "A is read from global memory inside the loop over k; copy "
                                     "row i of A into the private array Awrk once, then read "
                                     "A(i,k) from there",
                      .local_miss = "B is not read through local memory; the group copies "
                                    "column j of B into the local buffer Bwrk together, then "
                                    "every work-item reads B(k,j) from Bwrk"},
    },
    {
        .id = "05_blocked_16x16",
        .title = "Block oriented approach using local",
        .kernel = "mmul",
        .args = {MM_ARGS, ARG_LOCAL_TILE, ARG_LOCAL_TILE},
        .shape = SHAPE_TILES,
        .block = 16,
        .sizes = {16, 48, 208},
        .host_n = 112,
        .memcheck_n = 32,
        .perf_n = 512,
        .multiple = 16,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"both tiles, of A and of B, read from local memory", .max_global_loads = 0.5,
                      .min_local_loads = 1.9,
                      .global_miss = "an operand is read from global memory inside the loop "
                                     "over k besides the tiles; each multiply-add reads only "
                                     "Awrk and Bwrk",
                      .local_miss = "each multiply-add should read both operands from the tiles "
                                    "(2 local loads): about 1 means one of A and B still comes "
                                    "from global memory, 0 both; copy each tile of A into Awrk "
                                    "and of B into Bwrk, then read only those in the loop over "
                                    "k"},
    },
    {
        /* no OpenCL kernel: a quiz on notes.md (answers.txt against solutions/.../answers.txt)
         * and the CUDA twin of 05 (kernel.cu), graded where nvcc and an NVIDIA GPU are found */
        .id = "06_cuda_memory_model",
        .title = "CUDA memory model",
        .kernel = NULL,
        .args = {ARG_END},
        .block = 16,
        .sizes = {16, 48, 208, 0}, /* the CUDA twin's hidden sizes: multiples of 16 */
        .perf_n = 1024,
        .multiple = 16,
        .quiz = {{"q1", 1},
                 {"q2", 1},
                 {"q3", 1},
                 {"q4", 1},
                 {"q5", 1},
                 {"q6", 1},
                 {"q7", 1},
                 {"q8", 2},
                 {"q9", 1},
                 {"q10", 1},
                 {"q11", 1},
                 {"q12", 1},
                 {NULL, 0}},
        .cuda_per_size = 2,
    },
};

const int grader_exercise_count = (int)(sizeof grader_exercises / sizeof grader_exercises[0]);
_Static_assert(sizeof grader_exercises / sizeof grader_exercises[0] <= GRADER_MAX_EXERCISES,
               "a plan (config.h) holds every row: raise GRADER_MAX_EXERCISES");

const struct grader_exercise *grader_find_exercise(const char *id) {
    for (int i = 0; i < grader_exercise_count; i++) {
        const char *name = grader_exercises[i].id;
        /* "04" or "04_local_B" both name exercise 04 */
        size_t len = 0;
        while (id[len] && id[len] == name[len])
            len++;
        if (id[len] == '\0' && (name[len] == '\0' || (len == 2 && name[len] == '_')))
            return &grader_exercises[i];
    }
    return NULL;
}

size_t grader_output_count(const struct grader_exercise *ex, int n) {
    return ex->is_vector ? (size_t)n : (size_t)n * (size_t)n;
}

double grader_flops(const struct grader_exercise *ex, int n) {
    return ex->is_vector ? (double)n : 2.0 * (double)n * (double)n * (double)n;
}

int grader_size_valid(const struct grader_exercise *ex, int n) {
    if (n < 1 || (ex->max_n > 0 && n > ex->max_n))
        return 0;
    return ex->multiple <= 1 || n % ex->multiple == 0;
}

void grader_tuning_text(const struct grader_exercise *ex, char *buf, size_t size) {
    if (!ex->tuning[0].name) {
        snprintf(buf, size, "BLOCK=%d", ex->block);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; ex->tuning[t].name && used < size; t++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s=%d", t ? " " : "",
                                 ex->tuning[t].name, ex->tuning[t].value);
}

int grader_max_points(const struct grader_exercise *ex) {
    int sizes = 0;
    while (sizes < GRADER_MAX_SIZES && ex->sizes[sizes])
        sizes++;
    int quiz = 0;
    for (int q = 0; q < GRADER_MAX_QUESTIONS && ex->quiz[q].id; q++)
        quiz += ex->quiz[q].points;
    /* the sizes serve the OpenCL kernel (per_size) or the CUDA twin (cuda_per_size) */
    return sizes * (ex->points.per_size + ex->cuda_per_size) + ex->points.host +
           ex->points.memcheck + ex->points.perf + ex->points.technique + quiz;
}

int grader_memcheck_size(const struct grader_exercise *ex, uint64_t seed) {
    int around = ex->memcheck_n, candidates[512], count = 0;
    for (int n = around * 3 / 4; n <= around * 3 / 2 && count < 512; n++) {
        /* a column of B in local memory needs a work-group of a few items to show: its group is
         * the largest divisor of N up to GRADER_GROUP_LIMIT, so no prime sizes there */
        if (n < 1 || n == around || !grader_size_valid(ex, n) ||
            (ex->shape == SHAPE_ROWS_GROUPED && n % 4 != 0))
            continue;
        candidates[count++] = n;
    }
    return count ? candidates[seed % (uint64_t)count] : around;
}
