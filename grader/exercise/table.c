/* table.c - every exercise the grader knows, one row each. Adding an exercise means adding a row
 * here (and its folders in exercises/ and solutions/); nothing else in the grader names one.
 *
 * Techniques: bounds on the global and local loads per multiply-add that oclgrind counts in the
 * graded build (the defaults, at the smallest size they allow near memcheck_n). Naive kernels load
 * 2 floats from global memory per multiply-add; a private row of A makes it 1 + 1/N; a local column
 * of B 1/L + 1/N with 1 local load; 16x16 tiles 2/16 with 2 local loads; a WPTM x WPTN register
 * block 1/WPTM + 1/WPTN local loads (0.25 at 09's and 10's defaults, 1/8 when one operand skips
 * local memory). The bounds sit between the naive figure and the technique's. Each operand the
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
#include <ctype.h>
#include <string.h>
#include <strings.h>

#define MM_ARGS ARG_N, ARG_A, ARG_B, ARG_C
/* The tuning values of 2-D register blocking (09 to 11): tiles TSM x TSK of A and TSK x TSN of
 * B, a WPTM x WPTN block of C per work-item. */
#define REGISTER_BLOCKS(tsm, tsn, tsk, wptm, wptn)                                                 \
    {                                                                                              \
        {"TSM", tsm}, {"TSN", tsn}, {"TSK", tsk}, {"WPTM", wptm}, {"WPTN", wptn}, {                \
            NULL, 0                                                                                \
        }                                                                                          \
    }
/* What make tune tries for 07 and 08 (TS, WPT), and for 2-D register blocking (09 to 11): the
 * tile edges, the tiles' depth along k and the register block, around the defaults. */
#define TILE_CANDIDATES                                                                            \
    {"TS", {16, 32, 64}}, {                                                                        \
        "WPT", {                                                                                   \
            2, 4, 8, 16                                                                            \
        }                                                                                          \
    }
#define REGISTER_CANDIDATES                                                                        \
    {                                                                                              \
        {"TSM", {32, 64, 128}}, {"TSN", {32, 64, 128}}, {"TSK", {8, 16, 32}}, {"WPTM", {2, 4, 8}}, \
            {"WPTN", {2, 4, 8}}, {                                                                 \
            NULL, {                                                                                \
                0                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
/* What a missed bound means in the steps with tiles of A and B in local memory (07 on). */
#define GLOBAL_MISS_TILES                                                                          \
    "an operand is read from global memory inside the loop over k; read A and B only from the "    \
    "local tiles there"
#define LOCAL_MISS_TILES                                                                           \
    "the tiles are not read from local memory; copy each tile of A and of B into local memory, "   \
    "then compute from those"

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
        .id = "07_more_work_per_item",
        .title = "More work per work-item",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_C_TILES,
        .tuning = {{"TS", 32}, {"WPT", 8}, {NULL, 0}},
        .check_tuning = {{"TS", 16}, {"WPT", 4}, {NULL, 0}},
        .candidates = {TILE_CANDIDATES, {NULL, {0}}},
        .c_tile = {"TS", "TS"},
        .per_item = {NULL, "WPT"},
        .multiple_of = {"TS"},
        .const_inputs = 1,
        .sizes = {32, 96, 224},
        .host_n = 128,
        .memcheck_n = 32,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"WPT elements of C per work-item, B reused from a register",
                      .max_global_loads = 0.5, .min_local_loads = 0.9, .max_local_loads = 1.6,
                      .global_miss = GLOBAL_MISS_TILES,
                      .local_miss = "the tiles are not read from local memory; copy each tile "
                                    "of A and of B into Asub and Bsub, then compute from those",
                      .local_excess = "each multiply-add reads both operands from local "
                                      "memory, as in 05 (2 loads); read B(k,j) once per k into a "
                                      "private variable and use it for the WPT rows of the "
                                      "work-item: 1 + 1/WPT loads"},
    },
    {
        .id = "08_wide_loads",
        .title = "Wide vector loads",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_C_TILES,
        .tuning = {{"TS", 32}, {"WPT", 8}, {"WIDTH", 4}, {NULL, 0}},
        .check_tuning = {{"TS", 16}, {"WPT", 4}, {"WIDTH", 4}, {NULL, 0}},
        .candidates = {TILE_CANDIDATES, {"WIDTH", {1, 2, 4, 8}}, {NULL, {0}}},
        .c_tile = {"TS", "TS"},
        .per_item = {NULL, "WPT"},
        .multiple_of = {"TS"},
        .const_inputs = 1,
        .sizes = {32, 128, 192},
        .host_n = 96,
        .memcheck_n = 32,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"the tiles loaded as WIDTH-wide vectors", .max_global_loads = 0.5,
                      .min_local_loads = 0.9, .max_local_loads = 1.6, .min_load_bytes = 8,
                      .global_miss = GLOBAL_MISS_TILES, .local_miss = LOCAL_MISS_TILES,
                      .local_excess = "each multiply-add reads both operands from local "
                                      "memory; keep 07's reuse of B(k,j) from a register",
                      .narrow_miss = "the tiles are loaded one float at a time; load them as "
                                     "floatWIDTH vectors (vloadn, or a pointer to floatWIDTH): "
                                     "4*WIDTH bytes per load"},
    },
    {
        .id = "09_register_blocking",
        .title = "2-D register blocking",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_C_TILES,
        .tuning = REGISTER_BLOCKS(128, 128, 32, 8, 8),
        .check_tuning = REGISTER_BLOCKS(32, 32, 8, 4, 4),
        .candidates = REGISTER_CANDIDATES,
        .c_tile = {"TSN", "TSM"}, /* C's tile: TSN columns (dimension 0) by TSM rows */
        .per_item = {"WPTN", "WPTM"},
        .multiple_of = {"TSM", "TSN", "TSK"},
        .const_inputs = 1,
        .sizes = {128, 256, 384},
        .host_n = 128,
        .memcheck_n = 32,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"a WPTM x WPTN block of C per work-item, in registers",
                      .max_global_loads = 0.5, .min_local_loads = 0.2, .max_local_loads = 0.8,
                      .global_miss = GLOBAL_MISS_TILES, .local_miss = LOCAL_MISS_TILES,
                      .local_excess = "the register block is not reused: per k, load the WPTM "
                                      "values of A and the WPTN values of B into private "
                                      "arrays once, then do the WPTM x WPTN multiply-adds from "
                                      "them (1/WPTN + 1/WPTM loads per multiply-add)"},
    },
    {
        .id = "10_prefetch",
        .title = "Prefetching, double-buffered tiles",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_C_TILES,
        .tuning = REGISTER_BLOCKS(128, 128, 32, 8, 8),
        .check_tuning = REGISTER_BLOCKS(32, 32, 8, 4, 4),
        .candidates = REGISTER_CANDIDATES,
        .c_tile = {"TSN", "TSM"}, /* C's tile: TSN columns (dimension 0) by TSM rows */
        .per_item = {"WPTN", "WPTM"},
        .multiple_of = {"TSM", "TSN", "TSK"},
        .const_inputs = 1,
        .sizes = {128, 256, 384},
        .host_n = 128,
        .memcheck_n = 32,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .technique = 1},
        .technique = {"next tiles loaded during the work, one barrier per tile",
                      .max_global_loads = 0.5, .min_local_loads = 0.2, .max_local_loads = 0.8,
                      .max_barriers_per_tile = 1.5, .global_miss = GLOBAL_MISS_TILES,
                      .local_miss = LOCAL_MISS_TILES,
                      .local_excess = "the register block is not reused: keep 09's private "
                                      "arrays of A and B values per k",
                      .barrier_miss = "two barriers per tile (09's) mean the tiles are not "
                                      "double-buffered: load the next pair of tiles into the "
                                      "other buffers while computing on the current pair, then "
                                      "one barrier per tile keeps every read and write apart "
                                      "(the memory check finds a race otherwise)"},
        .local_race_hint = "with two buffers, each step fills the pair that no work-item reads "
                           "in it: at the top of step t the barrier, then load tile t+1 into "
                           "Asub[(t+1) % 2] and Bsub[(t+1) % 2] while the multiply-adds read "
                           "Asub[t % 2] and Bsub[t % 2]; a load into t % 2 overwrites the tile "
                           "others still compute with",
    },
    {
        .id = "11_any_size",
        .title = "Any size, bounds in the kernel",
        .kernel = "sgemm",
        .args = {ARG_M, ARG_N, ARG_K, ARG_A, ARG_B, ARG_C},
        .shape = SHAPE_C_TILES,
        /* LAYOUT: a work-item's rows and columns side by side (1, a CPU's) or strided by the
         * group's size with a padded A tile (2, a GPU's); oclgrind checks the other one too */
        .tuning = {{"TSM", 64}, {"TSN", 64}, {"TSK", 16}, {"WPTM", 8}, {"WPTN", 8}, {"LAYOUT", 1}},
        .check_tuning =
            {{"TSM", 32}, {"TSN", 32}, {"TSK", 8}, {"WPTM", 4}, {"WPTN", 4}, {"LAYOUT", 2}},
        .candidates = {{"TSM", {32, 64, 128}},
                       {"TSN", {32, 64, 128}},
                       {"TSK", {8, 16, 32}},
                       {"WPTM", {2, 4, 8}},
                       {"WPTN", {2, 4, 8}},
                       {"LAYOUT", {1, 2}}},
        .c_tile = {"TSN", "TSM"}, /* C's tile: TSN columns (dimension 0) by TSM rows */
        .per_item = {"WPTN", "WPTM"},
        .const_inputs = 1,
        .rectangular = 1,
        .shapes = {{1, 1, 1}, {17, 33, 65}, {129, 7, 300}, {200, 1, 77}, {1000, 999, 1001}},
        .host_shape = {100, 130, 70},
        .memcheck_n = 28,
        .perf_n = 512,
        .multiple = 1,
        /* its technique is its correctness at sizes that are multiples of nothing */
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1},
    },
    {
        /* values of A shared by sub-group broadcasts, no local memory: graded where the device
         * has cl_khr_subgroups (POCL 5's CPU device, Intel's), skipped elsewhere (POCL 3.1,
         * NVIDIA's OpenCL). oclgrind has no sub-groups: its memory check runs the kernel on the
         * grader's own (grade/subgroups.h), and no technique is counted (their exchanges go
         * through local memory) */
        .id = "12_subgroups",
        .title = "Sub-group broadcasts, no local memory",
        .kernel = "mmul",
        .args = {MM_ARGS},
        .shape = SHAPE_C_TILES,
        .tuning = {{"TSN", 128}, {"WPTM", 16}, {"WPTN", 8}},
        .candidates = {{"TSN", {64, 128, 256}}, {"WPTM", {4, 8, 16}}, {"WPTN", {2, 4, 8}}},
        .c_tile = {"TSN", "WPTM"}, /* a group: TSN columns (dimension 0) by WPTM rows */
        .per_item = {"WPTN", "WPTM"},
        .multiple_of = {"TSN", "WPTM"},
        .const_inputs = 1,
        .sizes = {128, 256, 384},
        .host_n = 128,
        .memcheck_n = 128, /* (the only multiple of TSN near it: known, as a hidden size is) */
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1},
        .needs_extension = "cl_khr_subgroups",
        .wrong_everywhere_hint =
            "is each value of A a broadcast from the step's lane kk, "
            "sub_group_broadcast(a[wm], kk), which is A(row, k0 + kk)? From lane 0, or the lane's "
            "own value, every lane multiplies B's row k0 + kk by the wrong column of A",
    },
    {
        /* the capstone: any technique, 11's interface and any size; timed against the reference
         * and, in the same rounds, the vendors' SGEMMs on the graded device */
        .id = "13_fastest_sgemm",
        .title = "The fastest SGEMM",
        .kernel = "sgemm",
        .args = {ARG_M, ARG_N, ARG_K, ARG_A, ARG_B, ARG_C},
        .shape = SHAPE_C_TILES,
        /* the reference's tuning values: a student's kernel takes the same names (its README) */
        .tuning = {{"TSM", 128},
                   {"TSN", 128},
                   {"TSK", 32},
                   {"WPTM", 8},
                   {"WPTN", 8},
                   {"VWM", 4},
                   {"VWN", 4}},
        .check_tuning = {{"TSM", 32},
                         {"TSN", 32},
                         {"TSK", 8},
                         {"WPTM", 4},
                         {"WPTN", 4},
                         {"VWM", 4},
                         {"VWN", 4}},
        /* (TSN 256 and WPTN 16: a row of 16 sums, two vectors of 8, was POCL's best on a
         * 2-core EPYC, 60.6 GFLOP/s at N = 1024 against 52.1 at the grid's best before) */
        .candidates = {{"TSM", {32, 64, 128}},
                       {"TSN", {32, 64, 128, 256}},
                       {"TSK", {8, 16, 32}},
                       {"WPTM", {4, 8}},
                       {"WPTN", {4, 8, 16}},
                       {"VWM", {1, 2, 4}},
                       {"VWN", {1, 4, 8}}},
        .c_tile = {"TSN", "TSM"},
        .per_item = {"WPTN", "WPTM"},
        .const_inputs = 1,
        .rectangular = 1,
        /* 260 x 256 x 132: whole tiles of A and B along M and N and sizes that are multiples of
         * 4, so that the float4 path is taken, with a last tile along K that reaches past K (a
         * fast path that forgets K reads past A's rows and B's end there) */
        .shapes = {{1, 1, 1}, {31, 17, 129}, {257, 64, 5}, {260, 256, 132}, {777, 1025, 333}},
        .host_shape = {150, 97, 123},
        .memcheck_n = 28,
        .perf_n = 512,
        .multiple = 1,
        .points = {.per_size = 2, .host = 2, .memcheck = 1, .perf = 1, .vendor = 1},
        .vendor_ratios = {0.5, 1.0, 1.5},
        /* the twin kernel.cu, graded where an NVIDIA GPU is: the same values but TSK, as CUDA
         * caps static __shared__ arrays at 48 KB (two pairs of tiles at TSK 32 take 66 KB) */
        .cuda_per_size = 1,
        .cuda_tuning = {{"TSK", 16}, {NULL, 0}},
        .cuda_perf_n = 2048, /* 8 timed launches of C saved: 128 MB, within the jail's disk limit */
        .local_race_hint = "with two buffers, step t stores the tile it fetched into Asub[t % 2] "
                           "and Bsub[t % 2], which held tile t-2 (every work-item finished it "
                           "before the last barrier), while the multiply-adds of the same step "
                           "read tile t-1 from Asub[(t-1) % 2] and Bsub[(t-1) % 2]: a store into "
                           "(t-1) % 2, the same as (t+1) % 2, overwrites what others still read",
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
        .cuda_beside = "05_blocked_16x16", /* the OpenCL kernel it is the twin of */
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

/* Edits (insert, delete, replace a character) from a to b, case blind; capped at 9. */
static int edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 9;
    int row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diagonal = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            int best = diagonal + !same;
            best = up + 1 < best ? up + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diagonal = up;
        }
    }
    return row[lb] < 9 ? row[lb] : 9;
}

int grader_suggest_exercise(const char *id, char *out, size_t size) {
    int found = 0;
    size_t used = 0, len = strlen(id);
    if (size > 0)
        out[0] = '\0';
    for (int i = 0; i < grader_exercise_count; i++) {
        const char *name = grader_exercises[i].id;
        /* a start of the id ("04_local"), its number's digits, or a typo or two */
        int near = (len >= 2 && strncasecmp(name, id, len) == 0) ||
                   (len >= 2 && isdigit((unsigned char)id[0]) && isdigit((unsigned char)id[1]) &&
                    strncmp(name, id, 2) == 0) ||
                   edit_distance(id, name) <= 3;
        int listed = 0; /* rows of one exercise (its blocks) share the id: named once */
        for (int j = 0; j < i && near; j++)
            listed |= strcmp(grader_exercises[j].id, name) == 0;
        if (!near || listed || used + strlen(name) + 6 >= size)
            continue;
        used += (size_t)snprintf(out + used, size - used, "%s%s", found ? " or " : "", name);
        found++;
    }
    return found;
}
