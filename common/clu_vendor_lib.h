/* clu_vendor_lib.h - what clu_vendor.c (OpenBLAS, CLBlast) and clu_cublas.c (cuBLAS) share:
 * libraries opened at run time with dlopen, their symbols looked up into typed function pointers,
 * one-line reasons for a vendor skipped, and the prepared product every vendor extends. Private
 * to those two files.
 */
#ifndef CLU_VENDOR_LIB_H
#define CLU_VENDOR_LIB_H

#include "clu_vendor.h"

/* printf into a caller's buffer that may be NULL or empty. */
void vendor_say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1 with why said ("<shown> disabled by BENCH_NO_VENDOR") when BENCH_NO_VENDOR (names separated
 * by commas or spaces, any case) names id or says "all", else 0 with why emptied. */
int vendor_disabled(enum clu_vendor_id id, char *why, size_t why_size);

/* The first `words` space-separated words of s into out (e.g. "OpenBLAS 0.3.21" from the
 * library's configuration string). */
void vendor_words(const char *s, int words, char *out, size_t size);

/* Version of a library from the name of the file that holds `symbol`, links resolved:
 * libclblast.so.1 -> libclblast.so.1.5.3 gives "1.5.3". Empty when the name tells nothing more
 * than a major number. */
void vendor_file_version(void *symbol, const char *stem, char *out, size_t size);

/* A library opened once per process and kept (see clu_vendor.h): each vendor's is a static of
 * its file, the one state those files keep outside a struct the caller holds. */
struct vendor_lib {
    const char *const *names; /* file names to try, in order, NULL-terminated */
    void *handle;             /* dlopen handle once opened, kept until the process ends */
    const char *opened;       /* the name that opened */
};

/* The library's handle, opening it on first use; NULL if none of its names opens. */
void *vendor_open(struct vendor_lib *lib);

/* Look up symbol in lib and store it in the function pointer at fn (fn_size bytes). A missing
 * symbol returns -1 with why set (why may be NULL for an optional symbol, which then leaves the
 * pointer NULL). */
int vendor_sym(const struct vendor_lib *lib, const char *symbol, void *fn, size_t fn_size,
               char *why, size_t why_size);
#define VENDOR_SYM(lib, symbol, fn, why, why_size)                                                 \
    vendor_sym((lib), (symbol), &(fn), sizeof(fn), (why), (why_size))

/* The prepared product: each vendor's own struct begins with it. */
struct clu_vendor_gemm {
    int m, n, k;
    int (*launch)(struct clu_vendor_gemm *g, char *why, size_t why_size); /* to its end */
    int (*read)(struct clu_vendor_gemm *g, float *c, char *why, size_t why_size);
    void (*release)(struct clu_vendor_gemm *g);
};

/* cuBLAS's clu_vendor_prepare (clu_cublas.c). */
int vendor_cublas_prepare(int m, int n, int k, const float *a, const float *b,
                          struct clu_vendor_gemm **out, char *library, size_t library_size,
                          char *why, size_t why_size);

#endif
