/* kernel_printf.c - a kernel that calls printf (kernel_printf.h): every work-item runs the call,
 * so one launch at the timed size prints up to a line per work-item, each a trip through the
 * device's printf buffer, and the timed comparison times that with the kernel. Said, never
 * scored: a debugging printf left in is a habit to lose, not a wrong result. */
#include "grade/kernel_printf.h"
#include "grade/barrier_loop.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int grade_kernel_printf_line(const char *text, size_t len) {
    char *t = grade_plain_text(text, len);
    if (!t)
        return 0;
    int line = 1, found = 0;
    for (size_t i = 0; i < len && !found;) {
        if (t[i] == '\n') {
            line++;
            i++;
        } else if (isalpha((unsigned char)t[i]) || t[i] == '_') {
            size_t start = i;
            while (i < len && (isalnum((unsigned char)t[i]) || t[i] == '_'))
                i++;
            size_t after = i;
            while (after < len && (t[after] == ' ' || t[after] == '\t'))
                after++;
            found = i - start == 6 && memcmp(t + start, "printf", 6) == 0 && after < len &&
                    t[after] == '(';
        } else {
            i++;
        }
    }
    free(t);
    return found ? line : 0;
}
