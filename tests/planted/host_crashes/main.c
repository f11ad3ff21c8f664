/* Planted bug: the host program dereferences a null pointer before it launches anything. The
 * grader must report the crash and its signal, and still grade the (correct) kernel. */
#include "clu.h"

#include <stddef.h>

static cl_int set_args(struct clu_mm *mm) {
    volatile float *nowhere = NULL;
    nowhere[mm->opt.n] = 1.0f;
    return CL_SUCCESS;
}

static cl_int launch(struct clu_mm *mm, cl_event *done) {
    (void)mm;
    *done = NULL;
    return CL_SUCCESS;
}

int main(int argc, char **argv) {
    static const struct clu_mm_exercise exercise = {
        .title = "C(i,j) per work-item, all global",
        .kernel_name = "mmul",
        .default_n = 1024,
        .set_args = set_args,
        .launch = launch,
    };
    return clu_mm_main(argc, argv, &exercise);
}
