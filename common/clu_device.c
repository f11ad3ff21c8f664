/* clu_device.c - listing OpenCL devices and opening the one the user chose. */
#include "clu.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

struct found {
    cl_platform_id platform;
    cl_device_id device;
};

static const char *no_platform_help =
    "no OpenCL platform found: install an OpenCL driver (for the CPU: apt-get install "
    "pocl-opencl-icd), then check that `clinfo -l` lists it";

/* Every device of every platform, in a stable order. Returns the count or -1 with a message. */
static int enumerate(struct found *out, int max) {
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(MAX_PLATFORMS, platforms, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && np == 0)) {
        fprintf(stderr, "%s\n", no_platform_help);
        return -1;
    }
    if (err != CL_SUCCESS) {
        clu_report_error(err, "clGetPlatformIDs", __FILE__, __LINE__);
        return -1;
    }
    int n = 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) !=
            CL_SUCCESS)
            continue; /* a platform with no usable device is skipped, not fatal */
        for (cl_uint d = 0; d < nd && n < max; d++) {
            out[n].platform = platforms[p];
            out[n].device = devices[d];
            n++;
        }
    }
    if (n == 0) {
        fprintf(stderr,
                "OpenCL platforms found but no device: check the driver with `clinfo -l`\n");
        return -1;
    }
    return n;
}

static void describe(const struct found *f, char *buf, size_t size) {
    char platform[128] = "", device[128] = "", vendor[128] = "";
    clGetPlatformInfo(f->platform, CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    clGetDeviceInfo(f->device, CL_DEVICE_NAME, sizeof device, device, NULL);
    clGetDeviceInfo(f->device, CL_DEVICE_VENDOR, sizeof vendor, vendor, NULL);
    snprintf(buf, size, "%s / %s / %s", platform, device, vendor);
}

/* What a device spec is matched against: the listed text plus the platform's version, which
 * names the implementation ("OpenCL 3.0 PoCL 3.1 ...") where its name does not. */
static void match_text(const struct found *f, char *buf, size_t size) {
    char version[128] = "";
    clGetPlatformInfo(f->platform, CL_PLATFORM_VERSION, sizeof version, version, NULL);
    describe(f, buf, size);
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, " / %s", version);
}

int clu_list_devices(void) {
    struct found all[MAX_DEVICES];
    int n = enumerate(all, MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        char text[400];
        describe(&all[i], text, sizeof text);
        printf("%d: %s\n", i, text);
    }
    return n;
}

int clu_device_count(void) {
    struct found all[MAX_DEVICES];
    return enumerate(all, MAX_DEVICES);
}

/* Case-insensitive substring search. */
static int contains(const char *haystack, const char *needle) {
    size_t nl = strlen(needle);
    for (const char *h = haystack; *h; h++) {
        size_t k = 0;
        while (k < nl && h[k] && tolower((unsigned char)h[k]) == tolower((unsigned char)needle[k]))
            k++;
        if (k == nl)
            return 1;
    }
    return nl == 0;
}

static int pick(const struct found *all, int n, const char *spec) {
    if (spec == NULL || *spec == '\0')
        return 0;
    char *end;
    long index = strtol(spec, &end, 10);
    if (*end == '\0') {
        if (index < 0 || index >= n) {
            fprintf(stderr, "device %ld does not exist: there are %d (see --list)\n", index, n);
            return -1;
        }
        return (int)index;
    }
    for (int i = 0; i < n; i++) {
        char text[600];
        match_text(&all[i], text, sizeof text);
        if (contains(text, spec))
            return i;
    }
    fprintf(stderr, "no OpenCL device matches \"%s\": see --list for what is installed\n", spec);
    return -1;
}

int clu_env_open(struct clu_env *env, const char *spec) {
    memset(env, 0, sizeof *env);
    struct found all[MAX_DEVICES];
    int n = enumerate(all, MAX_DEVICES);
    if (n < 0)
        return -1;
    int i = pick(all, n, spec);
    if (i < 0)
        return -1;
    env->platform = all[i].platform;
    env->device = all[i].device;
    clGetDeviceInfo(env->device, CL_DEVICE_NAME, sizeof env->device_name, env->device_name, NULL);
    clGetPlatformInfo(env->platform, CL_PLATFORM_NAME, sizeof env->platform_name,
                      env->platform_name, NULL);
    cl_int err;
    env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) {
        clu_report_error(err, "clCreateContext", __FILE__, __LINE__);
        return -1;
    }
    env->queue = clCreateCommandQueue(env->context, env->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) {
        clu_report_error(err, "clCreateCommandQueue", __FILE__, __LINE__);
        clReleaseContext(env->context);
        return -1;
    }
    return 0;
}

void clu_env_close(struct clu_env *env) {
    if (env->queue)
        clReleaseCommandQueue(env->queue);
    if (env->context)
        clReleaseContext(env->context);
    memset(env, 0, sizeof *env);
}

size_t clu_device_max_group(const struct clu_env *env) {
    size_t max = 1;
    clGetDeviceInfo(env->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max, &max, NULL);
    return max;
}
