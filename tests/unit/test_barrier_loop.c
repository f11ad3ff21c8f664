/* test_barrier_loop.c - unit tests (cmocka) of grade_barrier_loop_unwrapped (barrier_loop.c): the
 * lecture's 05 kernel (a barrier in the kernel's own loop) and its reference (the loop inside an
 * always-true if), a loop beside a barrier, single statements without braces, else, do, and
 * barriers that only comments, strings or a longer name mention; and grade_kernel_printf_line
 * (kernel_printf.c): the line of a printf call at a random line, none where only comments,
 * strings, a preprocessor line or a longer name mention it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "grade/barrier_loop.h"
#include "grade/kernel_printf.h"

static int found(const char *text) {
    return grade_barrier_loop_unwrapped(text, strlen(text));
}

#define LOOP_BODY                                                                                  \
    "for (int kb = 0; kb < n; kb++) { a[l] = A[kb]; barrier(CLK_LOCAL_MEM_FENCE);\n"               \
    "  for (int k = 0; k < 16; k++) t += a[k]; barrier(CLK_LOCAL_MEM_FENCE); }\n"

static void lecture_kernel_found(void **state) {
    (void)state;
    assert_int_equal(found("__kernel void f(int n) { float t = 0; " LOOP_BODY " C[i] = t; }"), 1);
    /* an if inside the loop wraps nothing */
    assert_int_equal(found("__kernel void f() { for (;;) { if (l == 0) x = 1; barrier(1); } }"), 1);
    assert_int_equal(found("__kernel void f() { if (a) x = 1; for (;;) { barrier(1); } }"), 1);
    assert_int_equal(found("__kernel void f() { if (a) { x = 1; } while (b) barrier(1); }"), 1);
    assert_int_equal(found("__kernel void f() { do { work_group_barrier(1); } while (b); }"), 1);
    /* 04's shape: a barrier, then the dot product's loop at the top level */
    assert_int_equal(found("__kernel void f() { a[l] = 1; barrier(1); for (;;) x += a[0]; }"), 1);
    /* the kernel's own loop, after a helper's; `kernel` without its underscores */
    assert_int_equal(found("void load() { if (a) x = 1; }\n"
                           "kernel void f() { for (;;) { load(); barrier(1); } }"),
                     1);
}

static void wrapped_or_loopless_not_found(void **state) {
    (void)state;
    assert_int_equal(found("__kernel void f(int n) { if (i < N && j < N) { " LOOP_BODY " } }"), 0);
    assert_int_equal(found("__kernel void f() { if (i < N) for (;;) { barrier(1); } }"), 0);
    assert_int_equal(found("__kernel void f() { if (a) x = 1; else { for (;;) barrier(1); } }"), 0);
    assert_int_equal(found("__kernel void f() { a[l] = 1; barrier(1); x = a[0]; }"), 0);
    assert_int_equal(found("__kernel void f() { for (;;) x += a[0]; }"), 0); /* no barrier */
    assert_int_equal(found("__kernel void f() { for (;;) { /* barrier(1) */ my_barrier(); } }"), 0);
    assert_int_equal(
        found("#define S barrier(1)\n__kernel void f() { for (;;) { x = \"barrier\"; } }"), 0);
    /* a helper's loop is inlined where it is called: inside the kernel's if (10's reference) */
    assert_int_equal(found("void load(int n) { for (;;) x = 1; }\n"
                           "__kernel void f() { if (i < N) { load(1); barrier(1); } }"),
                     0);
    assert_int_equal(found("float g() { for (;;) x = 1; } kernel void f() { barrier(1); }"), 0);
    assert_int_equal(found(""), 0);
    assert_int_equal(found("for (;;) { { { ( ( ("), 0); /* unbalanced: ends, finds nothing */
}

static int printf_line(const char *text) {
    return grade_kernel_printf_line(text, strlen(text));
}

static void printf_found_at_its_line(void **state) {
    (void)state;
    srand((unsigned)time(NULL));
    for (int round = 0; round < 20; round++) {
        int line = 1 + rand() % 40, at = 1;
        char text[4000] = "";
        size_t used = 0;
        for (; at < line; at++) /* lines before it that mention printf in every other way */
            used += (size_t)snprintf(text + used, sizeof text - used, "%s\n",
                                     at % 4 == 0   ? "// printf(\"x\");"
                                     : at % 4 == 1 ? "x = \"printf(\";"
                                     : at % 4 == 2 ? "#define P printf(\"%d\", 1)"
                                                   : "my_printf(1); printfx(2);");
        snprintf(text + used, sizeof text - used, "  if (i == 0) printf (\"%%d\\n\", i);\n}\n");
        assert_int_equal(printf_line(text), line);
    }
}

static void printf_not_found(void **state) {
    (void)state;
    assert_int_equal(printf_line(""), 0);
    assert_int_equal(printf_line("/* printf(\"a\"); */ x = 1;\n"), 0);
    assert_int_equal(printf_line("int printf_count = 0; x = printf_count;"), 0);
    assert_int_equal(printf_line("#define LOG(x) printf(x)\n"), 0);
    assert_int_equal(printf_line("float printf;"), 0); /* a name, not a call */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lecture_kernel_found),
        cmocka_unit_test(wrapped_or_loopless_not_found),
        cmocka_unit_test(printf_found_at_its_line),
        cmocka_unit_test(printf_not_found),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
