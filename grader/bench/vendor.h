/* vendor.h - what vendor.c (OpenBLAS, CLBlast) and cublas.c (cuBLAS) share: libraries opened at
 * run time with dlopen, their symbols looked up into typed function pointers, and one-line
 * reasons for a vendor skipped. Private to bench/.
 */
#ifndef BENCH_VENDOR_H
#define BENCH_VENDOR_H

#include "bench/bench.h"

/* printf into a caller's buffer that may be NULL or empty. */
void vendor_say(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The start of every vendor run: stats cleared, `shown` put in the name buffer, why emptied;
 * 1 with why said when BENCH_NO_VENDOR (names separated by commas or spaces, any case) names
 * `key` or says "all", else 0. */
int vendor_start(struct clu_stats *stats, char *name, size_t name_size, const char *shown,
                 const char *key, char *why, size_t why_size);

/* The first `words` space-separated words of s into out (e.g. "OpenBLAS 0.3.21" from the
 * library's configuration string). */
void vendor_words(const char *s, int words, char *out, size_t size);

/* Version of a library from the name of the file that holds `symbol`, links resolved:
 * libclblast.so.1 -> libclblast.so.1.5.3 gives "1.5.3". Empty when the name tells nothing more
 * than a major number. */
void vendor_file_version(void *symbol, const char *stem, char *out, size_t size);

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

#endif
