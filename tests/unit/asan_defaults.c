/* asan_defaults.c - the sanitizer options of `make asan`'s builds, linked into them only. Baked
 * into the binary rather than set in ASAN_OPTIONS: the grader's jailed children (its harness, the
 * same binary, run under POCL and under oclgrind) get an allow-listed environment without them. */
const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

/* detect_leaks=0: the OpenCL drivers keep what they allocate until exit.
 * verify_asan_link_order=0: oclgrind's LD_PRELOAD comes before the ASan runtime. */
const char *__asan_default_options(void) {
    return "detect_leaks=0:verify_asan_link_order=0";
}

/* halt_on_error=1: a report ends the run, so that a test sees it and fails. */
const char *__ubsan_default_options(void) {
    return "halt_on_error=1:print_stacktrace=1";
}
