/* test_layer_guards.c - the guard zones of the grader's OpenCL layer (child/launch_layer_guards.c)
 * on a real device (POCL here): a program's buffer made inside the layer's, at random sizes (odd
 * byte counts among them), read back where it was written, its guards intact after a launch that
 * stays inside it, changed on the right side by one that writes one element past either end, and
 * read as CLU_PAST_END_BITS past its end; a program's sub-buffer region mapped into the layer's;
 * the buffers the layer leaves as asked; a wait list that holds an unset user event, and the
 * launch behind it read back once it ended, on a queue of the layer's own.
 *
 * The layer's module is no library the tests link (it is built alone, as an LD_AUDIT module), so
 * its guards' file is compiled in here whole: its functions take the driver's clCreateBuffer as
 * an argument, and the tests hand them the real one.
 */
#define _GNU_SOURCE
#include "child/launch_layer_guards.c"
#include "grader.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "testkit.h"

static struct clu_env g_env;
static int g_have_device;
static char g_tmp[128];

/* A kernel of one work-item: 1.0f stored at c[at], c[from] copied to out[0]. */
static const char *k_source =
    "__kernel void poke(__global float *c, const int at, const int from, __global float *out) {\n"
    "    c[at] = 1.0f;\n"
    "    out[0] = c[from];\n"
    "}\n";

static cl_kernel g_poke;

static int setup(void **state) {
    (void)state;
    if (testkit_start("test_layer_guards", "TEST_LAYER_GUARDS_SEED", g_tmp, sizeof g_tmp) != 0)
        return -1;
    if (clu_env_open(&g_env, getenv("DEVICE")) != 0)
        return 0; /* (each test then says there is no device) */
    cl_int err;
    cl_program p = clCreateProgramWithSource(g_env.context, 1, &k_source, NULL, &err);
    if (p && clBuildProgram(p, 1, &g_env.device, "", NULL, NULL) == CL_SUCCESS)
        g_poke = clCreateKernel(p, "poke", &err);
    if (p)
        clReleaseProgram(p);
    g_have_device = g_poke != NULL;
    return 0;
}

static int teardown(void **state) {
    (void)state;
    if (g_poke)
        clReleaseKernel(g_poke);
    if (g_env.context)
        clu_env_close(&g_env);
    rmdir(g_tmp);
    return 0;
}

#define NEED_DEVICE()                                                                              \
    do {                                                                                           \
        if (!g_have_device) {                                                                      \
            print_message("no OpenCL device with a compiler here: skipped\n");                     \
            skip();                                                                                \
        }                                                                                          \
    } while (0)

/* One launch of poke over buffer b: store at `at`, read `from` (float indices from b's start). */
static float poke(cl_mem b, int at, int from) {
    cl_int err;
    cl_mem out = clCreateBuffer(g_env.context, CL_MEM_READ_WRITE, sizeof(float), NULL, &err);
    CHECK(out != NULL, "clCreateBuffer: %s", clu_error_name(err));
    clSetKernelArg(g_poke, 0, sizeof b, &b);
    clSetKernelArg(g_poke, 1, sizeof at, &at);
    clSetKernelArg(g_poke, 2, sizeof from, &from);
    clSetKernelArg(g_poke, 3, sizeof out, &out);
    size_t one = 1;
    err = clEnqueueNDRangeKernel(g_env.queue, g_poke, 1, NULL, &one, &one, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "launch: %s", clu_error_name(err));
    float got = 0.0f;
    clEnqueueReadBuffer(g_env.queue, out, CL_TRUE, 0, sizeof got, &got, 0, NULL, NULL);
    clReleaseMemObject(out);
    return got;
}

/* A guarded buffer of floats (a random count) from random host data; its data back. */
static void guarded_round_trip(void **state) {
    (void)state;
    NEED_DEVICE();
    struct rng r = rng_for("round trip");
    for (int t = 0; t < 6; t++) {
        size_t bytes = (size_t)rng_range(&r, 1, 200000); /* odd counts of bytes too */
        unsigned char *host = malloc(bytes), *back = malloc(bytes);
        for (size_t i = 0; i < bytes; i++)
            host[i] = (unsigned char)rng_next(&r);
        struct guarded g = {0};
        cl_mem b = layer_guarded_buffer(clCreateBuffer, g_env.context,
                                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host, &g);
        CHECK(b != NULL && g.parent != NULL, "no guarded buffer of %zu bytes", bytes);
        CHECK(g.guard >= LAYER_GUARD_BYTES && g.bytes == bytes, "guard %zu, bytes %zu of %zu",
              g.guard, g.bytes, bytes);
        size_t size = 0;
        clGetMemObjectInfo(b, CL_MEM_SIZE, sizeof size, &size, NULL);
        CHECK(size == bytes, "the program's buffer has %zu bytes, not %zu", size, bytes);
        clEnqueueReadBuffer(g_env.queue, b, CL_TRUE, 0, bytes, back, 0, NULL, NULL);
        CHECK(memcmp(host, back, bytes) == 0, "%zu bytes not read back as written", bytes);
        for (int side = 0; side < 2; side++)
            CHECK(layer_guard_read(g_env.queue, NULL, &g, side) == 0,
                  "side %d changed with nothing launched (%zu bytes)", side, bytes);
        clReleaseMemObject(b);
        clReleaseMemObject(g.parent);
        free(host);
        free(back);
    }
}

/* A store one element (or a random few) past either end changes that side's guard alone; a store
 * inside changes neither; a read past the end gets the guard's NaN. */
static void writes_past_either_end_seen(void **state) {
    (void)state;
    NEED_DEVICE();
    struct rng r = rng_for("past either end");
    for (int t = 0; t < 6; t++) {
        int n = (int)rng_range(&r, 1, 5000);
        /* the program's host access is its sub-buffer's: the layer reads its guards all the same */
        static const cl_mem_flags host[] = {0, CL_MEM_HOST_NO_ACCESS, CL_MEM_HOST_WRITE_ONLY};
        cl_mem_flags flags = CL_MEM_READ_WRITE | host[t % 3];
        struct guarded g = {0};
        cl_mem b = layer_guarded_buffer(clCreateBuffer, g_env.context, flags,
                                        (size_t)n * sizeof(float), NULL, &g);
        CHECK(b != NULL, "no guarded buffer of %d floats (flags %#llx)", n,
              (unsigned long long)flags);
        cl_mem_flags got = 0;
        clGetMemObjectInfo(b, CL_MEM_FLAGS, sizeof got, &got, NULL);
        CHECK((got & host[t % 3]) == host[t % 3], "the program's host access %#llx lost (%#llx)",
              (unsigned long long)host[t % 3], (unsigned long long)got);
        int inside = (int)rng_range(&r, 0, n - 1);
        float past = poke(b, inside, n);
        uint32_t bits;
        memcpy(&bits, &past, sizeof bits);
        CHECK(bits == CLU_PAST_END_BITS, "c[%d], past the end, read as %08x", n, (unsigned)bits);
        CHECK(layer_guard_read(g_env.queue, NULL, &g, 0) == 0 &&
                  layer_guard_read(g_env.queue, NULL, &g, 1) == 0,
              "a store at %d of %d changed a guard", inside, n);
        int beyond = (int)rng_range(&r, 0, (long)(g.guard / sizeof(float)) - 1);
        poke(b, n + beyond, 0);
        CHECK(layer_guard_read(g_env.queue, NULL, &g, 1) == 1, "c[%d + %d] not seen after", n,
              beyond);
        CHECK(layer_guard_read(g_env.queue, NULL, &g, 0) == 0, "c[%d + %d] seen before", n, beyond);
        poke(b, -1 - beyond, 0);
        CHECK(layer_guard_read(g_env.queue, NULL, &g, 0) == 1, "c[-1 - %d] not seen before",
              beyond);
        clReleaseMemObject(b);
        clReleaseMemObject(g.parent);
    }
}

/* The buffers the layer leaves as the program asked: its own host memory, a host pointer OpenCL
 * refuses (with COPY_HOST_PTR and none, or one without it), no bytes, host access flags that
 * exclude each other. */
static void left_as_asked(void **state) {
    (void)state;
    NEED_DEVICE();
    float host[16] = {0};
    struct guarded g = {0};
    CHECK(!layer_guarded_buffer(clCreateBuffer, g_env.context,
                                CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, sizeof host, host, &g),
          "a buffer on the program's own memory was guarded");
    CHECK(!layer_guarded_buffer(clCreateBuffer, g_env.context,
                                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, NULL, &g),
          "COPY_HOST_PTR without a pointer was guarded (OpenCL refuses it)");
    CHECK(!layer_guarded_buffer(clCreateBuffer, g_env.context, CL_MEM_READ_WRITE, sizeof host, host,
                                &g),
          "a pointer without COPY_HOST_PTR was guarded (OpenCL refuses it)");
    CHECK(!layer_guarded_buffer(clCreateBuffer, g_env.context, CL_MEM_READ_WRITE, 0, NULL, &g),
          "a buffer of no bytes was guarded");
    CHECK(!layer_guarded_buffer(clCreateBuffer, g_env.context,
                                CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
                                sizeof host, NULL, &g),
          "host access flags OpenCL refuses together were guarded");
    CHECK(g.parent == NULL, "a refusal left guards behind");
}

/* A program's region of its buffer: the same bytes, past the guard; none past its end; its host
 * access kept. */
static void sub_region_mapped(void **state) {
    (void)state;
    struct rng r = rng_for("sub region");
    for (int t = 0; t < 200; t++) {
        struct guarded g = {.guard = (size_t)rng_range(&r, 1, 8) * 4096,
                            .bytes = (size_t)rng_range(&r, 1, 100000)};
        cl_buffer_region in = {(size_t)rng_range(&r, 0, (long)g.bytes), 0}, out;
        in.size = (size_t)rng_range(&r, 0, (long)(g.bytes - in.origin));
        cl_mem_flags flags;
        CHECK(layer_sub_region(&g, CL_MEM_READ_ONLY, &in, &flags, &out) == 0 &&
                  out.origin == in.origin + g.guard && out.size == in.size &&
                  flags == CL_MEM_READ_ONLY,
              "region %zu+%zu of %zu", in.origin, in.size, g.bytes);
        cl_buffer_region over = {in.origin, g.bytes - in.origin + 1 + (size_t)rng_range(&r, 0, 9)};
        CHECK(layer_sub_region(&g, 0, &over, &flags, &out) != 0, "region %zu+%zu past %zu taken",
              over.origin, over.size, g.bytes);
        /* the program's host access: inherited where the sub-buffer names none, refused where
         * the buffer's excludes it (the spec's clCreateSubBuffer) */
        static const cl_mem_flags host[] = {CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_READ_ONLY,
                                            CL_MEM_HOST_NO_ACCESS};
        g.host = host[t % 3];
        CHECK(layer_sub_region(&g, 0, &in, &flags, &out) == 0 && flags == g.host,
              "host access %#llx not inherited (%#llx)", (unsigned long long)g.host,
              (unsigned long long)flags);
        cl_mem_flags other =
            g.host == CL_MEM_HOST_READ_ONLY ? CL_MEM_HOST_WRITE_ONLY : CL_MEM_HOST_READ_ONLY;
        CHECK(layer_sub_region(&g, other, &in, &flags, &out) != 0,
              "host access %#llx taken on a buffer of %#llx", (unsigned long long)other,
              (unsigned long long)g.host);
        CHECK(layer_sub_region(&g, g.host, &in, &flags, &out) == 0 && flags == g.host,
              "the buffer's own host access %#llx refused", (unsigned long long)g.host);
    }
}

/* A launch waiting on a user event not yet set cannot be waited for (its guards are read once it
 * ended: a blocking read now would hang the program); once set, it can. */
static void unset_user_event_not_waited(void **state) {
    (void)state;
    NEED_DEVICE();
    cl_int err;
    cl_event user = clCreateUserEvent(g_env.context, &err);
    CHECK(user != NULL, "clCreateUserEvent: %s", clu_error_name(err));
    CHECK(layer_can_wait(0, NULL), "no wait list cannot be waited for");
    CHECK(!layer_can_wait(1, &user), "a wait on an unset user event was taken as safe");
    clSetUserEventStatus(user, CL_COMPLETE);
    CHECK(layer_can_wait(1, &user), "a wait on a set user event was not");
    clReleaseEvent(user);
}

/* A launch that waits on an unset user event, read back once it ended: not ended (asked without
 * waiting) before its event is set, ended after the program's wait; its write past the end found
 * on the layer's own queue while the program's queue still holds a command behind another unset
 * user event (a read on that queue would wait for it: a hang). */
static void read_after_it_ended(void **state) {
    (void)state;
    NEED_DEVICE();
    struct rng r = rng_for("after it ended");
    int n = (int)rng_range(&r, 1, 5000);
    struct guarded g = {0};
    cl_int err;
    cl_mem b = layer_guarded_buffer(clCreateBuffer, g_env.context, CL_MEM_READ_WRITE,
                                    (size_t)n * sizeof(float), NULL, &g);
    cl_mem out = clCreateBuffer(g_env.context, CL_MEM_READ_WRITE, sizeof(float), NULL, &err);
    cl_event gate = clCreateUserEvent(g_env.context, &err);
    cl_event later = clCreateUserEvent(g_env.context, &err);
    CHECK(b && out && gate && later, "setup: %s", clu_error_name(err));
    int at = n + (int)rng_range(&r, 0, (long)(g.guard / sizeof(float)) - 1), from = 0;
    clSetKernelArg(g_poke, 0, sizeof b, &b);
    clSetKernelArg(g_poke, 1, sizeof at, &at);
    clSetKernelArg(g_poke, 2, sizeof from, &from);
    clSetKernelArg(g_poke, 3, sizeof out, &out);
    size_t one = 1;
    cl_event done = NULL;
    err = clEnqueueNDRangeKernel(g_env.queue, g_poke, 1, NULL, &one, &one, 1, &gate, &done);
    CHECK(err == CL_SUCCESS, "launch: %s", clu_error_name(err));
    clFlush(g_env.queue);
    CHECK(!layer_can_wait(1, &gate) && layer_event_ended(done) == 0,
          "a launch behind an unset user event taken as ended");
    clSetUserEventStatus(gate, CL_COMPLETE);
    clWaitForEvents(1, &done);
    CHECK(layer_event_ended(done) == 1, "a launch waited for not taken as ended");
    float got = 0.0f; /* (the program's queue now blocked behind `later`) */
    clEnqueueReadBuffer(g_env.queue, out, CL_FALSE, 0, sizeof got, &got, 1, &later, NULL);
    clFlush(g_env.queue);
    cl_command_queue apart = layer_queue_apart(g_env.context, g_env.device);
    CHECK(apart != NULL, "no queue of the layer's own");
    CHECK(layer_guard_read(apart, done, &g, 1) == 1 && layer_guard_read(apart, done, &g, 0) == 0,
          "c[%d] of %d not seen after, on the layer's queue", at, n);
    clReleaseCommandQueue(apart);
    clSetUserEventStatus(later, CL_COMPLETE);
    clFinish(g_env.queue);
    clReleaseEvent(done);
    clReleaseEvent(gate);
    clReleaseEvent(later);
    clReleaseMemObject(out);
    clReleaseMemObject(b);
    clReleaseMemObject(g.parent);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guarded_round_trip),
        cmocka_unit_test(writes_past_either_end_seen),
        cmocka_unit_test(left_as_asked),
        cmocka_unit_test(sub_region_mapped),
        cmocka_unit_test(unset_user_event_not_waited),
        cmocka_unit_test(read_after_it_ended),
    };
    return cmocka_run_group_tests_name("test_layer_guards", tests, setup, teardown);
}
