/* A trap for the reference: the grader's preprocessor ran in the workbook's root, so
 * /proc/self/cwd/solutions/ was the reference. `M` opens a macro call that collects the
 * reference's text up to the parenthesis closing its parameter list, and _Pragma makes
 * `#pragma GCC error` print what it collected, which the refusal quoted. */
#define STR2(...) #__VA_ARGS__
#define STR(...) STR2(__VA_ARGS__)
#define LEAK(...) _Pragma(STR(GCC error STR(__VA_ARGS__)))
#define M LEAK(
#include "/proc/self/cwd/solutions/13_fastest_sgemm/kernel.cl"
