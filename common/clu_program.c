/* clu_program.c - finding kernel sources next to the executable and building them. */
#define _DEFAULT_SOURCE /* readlink */
#include "clu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *clu_exe_dir(void) {
    static char dir[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (len <= 0)
        return "."; /* no /proc: fall back to the current directory */
    dir[len] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return dir;
}

char *clu_read_file(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        errno = failed ? EIO : ENOMEM;
        return NULL;
    }
    buf[len] = '\0';
    if (length)
        *length = len;
    return buf;
}

/* Print a build log with every name of the compiled file given as `name`: POCL names a
 * temporary copy ("/tmp/.../tempfile_3XBLHn.cl:8:29"), oclgrind "input.cl", NVIDIA "<kernel>",
 * and the grader's harness builds a canonical copy in its jail, line for line the student's
 * kernel.cl; the student knows the file by its own name. A file name is a word (no white space,
 * colon, quote or bracket) that ends in ".cl" or is in angle brackets, followed by ":" and a line
 * number. */
static void print_log_naming(char *log, const char *name) {
    size_t end = strlen(log);
    while (end > 0 && (log[end - 1] == '\n' || log[end - 1] == ' ' || log[end - 1] == '\r'))
        log[--end] = '\0';
    const char *stops = " \t\n\r:'\"()[]";
    for (const char *p = log; *p;) {
        size_t word = strcspn(p, stops);
        const char *after = p + word;
        int file =
            word >= 3 && (strncmp(after - 3, ".cl", 3) == 0 || (p[0] == '<' && after[-1] == '>'));
        if (file && after[0] == ':' && after[1] >= '0' && after[1] <= '9')
            fputs(name, stderr);
        else
            fwrite(p, 1, word, stderr);
        p = after;
        if (*p)
            fputc(*p++, stderr);
    }
    fputc('\n', stderr);
}

static void print_build_log(const struct clu_env *env, cl_program program, const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    size_t size = 0;
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = calloc(size + 1, 1);
    if (!log)
        return;
    clGetProgramBuildInfo(program, env->device, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    fprintf(stderr,
            "---- %s does not build on %s (CL_BUILD_PROGRAM_FAILURE); its build log: ----\n", name,
            env->device_name);
    print_log_naming(log, name);
    fprintf(stderr, "---- end of build log ----\n");
    free(log);
}

cl_program clu_build_file(const struct clu_env *env, const char *path, const char *options,
                          cl_int *err) {
    size_t length;
    char *source = clu_read_file(path, &length);
    if (!source) {
        fprintf(stderr, "cannot read kernel source %s: %s\n", path, strerror(errno));
        *err = CL_INVALID_VALUE;
        return NULL;
    }
    const char *sources[] = {source};
    cl_program program = clCreateProgramWithSource(env->context, 1, sources, &length, err);
    free(source);
    if (*err != CL_SUCCESS) {
        clu_report_error(*err, "clCreateProgramWithSource", __FILE__, __LINE__);
        return NULL;
    }
    *err = clBuildProgram(program, 1, &env->device, options, NULL, NULL);
    if (*err != CL_SUCCESS) {
        if (*err == CL_BUILD_PROGRAM_FAILURE) /* the log's head names the error */
            print_build_log(env, program, path);
        else
            clu_report_error(*err, "clBuildProgram", __FILE__, __LINE__);
        clReleaseProgram(program);
        return NULL;
    }
    return program;
}

cl_kernel clu_kernel_next_to_exe(const struct clu_env *env, const char *name, const char *options,
                                 cl_program *program) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/kernel.cl", clu_exe_dir());
    cl_int err;
    *program = clu_build_file(env, path, options, &err);
    if (!*program)
        exit(CLU_EXIT_OPENCL);
    cl_kernel kernel = clCreateKernel(*program, name, &err);
    CLU_CHECK_ERR(err, "clCreateKernel");
    return kernel;
}
