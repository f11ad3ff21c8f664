/* host_launches.c - whether the student's host program drove the device: its run carries the
 * grader's OpenCL layer (child/launch_layer.c, an LD_AUDIT module), and the host test's points
 * need the layer to have seen the program build the grader's copy of kernel.cl, create the row's
 * kernel from it and enqueue that kernel at the exercise's geometry at the host size. A program
 * that computes C on the CPU and saves it gets no host points, whatever it prints.
 *
 * What is believed, and why (child/launch_layer.c says what remains possible):
 *   - only records on the grader's own channel: a SOCK_SEQPACKET socket made for each start of
 *     the run, its other end the program's fd 3 (never stdout, stderr or a file); the program's
 *     output is never read;
 *   - only records that start with that start's nonce: 128 random bits the grader wrote on the
 *     socket before the run, which the layer took before the first instruction of the program
 *     and which never travel back on it. Other messages (written by the program) are counted and
 *     ignored;
 *   - records must agree with each other: a launch counts only for a kernel the layer saw
 *     created, named as the row's kernel, from a program the layer saw created from exactly the
 *     bytes of the grader's kernel.cl (length and FNV-1a 64: a different text of the same hash
 *     would only be a kernel of the student's own, which its launch proves no more than
 *     kernel.cl's);
 *   - the layer is copied into the run's folder by the grader before each start (nothing of the
 *     student's runs in between), root's and read-only; where that fails at a second start (the
 *     first stopped as starved), the first start's program may be the cause: it counts against
 *     the program, not as the grader's trouble;
 *   - no record at all (not even the layer's greeting) is the grader's trouble only if its layer
 *     does not load here: a trusted program run the same way (jailed, a folder of its own) must
 *     then greet too, or the check is skipped, points kept, with a note.
 */
#define _GNU_SOURCE /* getrandom */
#include "grade/internal.h"
#include "exercise/protocol.h"
#include "grade/host_seen.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(LAYER_FD == GRADER_CHANNEL_FD, "the layer reads the jail's channel");

/* The channel of one start: the layer copied anew into the run's folder (a start before may
 * have replaced it), a fresh socket pair and nonce; the program's end back, -1 when the grader
 * cannot make one (the run then starts without, and the judgement says so). */
static int open_channel(void *ctx) {
    struct host_launches *h = ctx;
    h->starts++;
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    free(h->seen); /* (none read yet: records are read after the run) */
    h->seen = NULL;
    unsigned char random[LAYER_NONCE_SIZE / 2];
    int pair[2];
    unlink(h->layer); /* whatever is there now is not the grader's */
    if (grader_copy_trusted(h->source, h->layer) != 0 || chmod(h->layer, 0444) != 0 ||
        getrandom(random, sizeof random, 0) != (ssize_t)sizeof random ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(h->trouble, sizeof h->trouble, "the grader could not ready its layer (%s)",
                 strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof random; i++)
        snprintf(h->nonce + 2 * i, 3, "%02x", random[i]);
    if (send(pair[0], h->nonce, LAYER_NONCE_SIZE, MSG_NOSIGNAL) != LAYER_NONCE_SIZE) {
        snprintf(h->trouble, sizeof h->trouble, "the grader could not write on its channel");
        close(pair[0]);
        close(pair[1]);
        return -1;
    }
    h->trouble[0] = '\0';
    h->fd = pair[0];
    return pair[1];
}

void grade_host_launches_prepare(const struct grader_config *cfg, const char *dir,
                                 struct host_launches *h) {
    memset(h, 0, sizeof *h);
    h->fd = -1;
    h->channel = (struct grader_jail_channel){open_channel, h};
    snprintf(h->source, sizeof h->source, "%s/build/grader/%s", cfg->root, LAYER_FILE);
    snprintf(h->layer, sizeof h->layer, "%s/%s", dir, LAYER_FILE);
    struct stat st;
    if (stat(h->source, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(h->skip, sizeof h->skip, "build/grader/%s is missing (make all builds it)",
                 LAYER_FILE);
    else if (grader_find_program("env", h->env, sizeof h->env) != 0)
        snprintf(h->skip, sizeof h->skip, "there is no env program to start it with");
    snprintf(h->audit, sizeof h->audit, "LD_AUDIT=%s", h->layer);
}

void grade_host_launches_push(const struct host_launches *h, struct grader_argv *argv) {
    /* env sets LD_AUDIT for the program alone: bubblewrap, before it, must not load the layer */
    if (!h->skip[0])
        grader_argv_push_all(argv, (const char *const[]){h->env, h->audit, NULL});
}

struct grader_jail_settings grade_host_launches_jail(const struct grader_jail_settings *js,
                                                     const struct host_launches *h) {
    struct grader_jail_settings with = *js;
    if (!h->skip[0])
        with.channel = &h->channel;
    return with;
}

void grade_host_launches_done(struct host_launches *h) {
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    free(h->seen);
    h->seen = NULL;
}

/* One record of the layer's (its nonce already checked and cut off) into s; 0, or -1 when it is
 * not a record the layer writes. */
static int parse(const char *text, struct host_seen *s) {
    int used = 0;
    if (strcmp(text, "H") == 0) {
        s->hello = 1;
        return 0;
    }
    if (text[0] == 'P' && s->program_count < MAX_SEEN) {
        struct seen_program *p = &s->programs[s->program_count];
        if (sscanf(text, "P %d %zu %16llx%n", &p->id, &p->bytes, &p->hash, &used) == 3 &&
            !text[used]) {
            s->program_count++;
            return 0;
        }
    } else if (text[0] == 'K' && s->kernel_count < MAX_SEEN) {
        struct seen_kernel *k = &s->kernels[s->kernel_count];
        if (sscanf(text, "K %d %d %n", &k->id, &k->program, &used) == 2 && used > 0 &&
            strlen(text + used) <= LAYER_NAME_MAX) {
            snprintf(k->name, sizeof k->name, "%s", text + used);
            s->kernel_count++;
            return 0;
        }
    } else if (text[0] == 'E' && s->launch_count < MAX_SEEN) {
        struct seen_launch *l = &s->launches[s->launch_count];
        if (sscanf(text, "E %d %d %u %d %zu %zu %zu %zu %zu %zu %zu %zu %zu%n", &l->kernel,
                   &l->status, &l->dims, &l->has_local, &l->offset[0], &l->offset[1], &l->offset[2],
                   &l->global[0], &l->global[1], &l->global[2], &l->local[0], &l->local[1],
                   &l->local[2], &used) == 13 &&
            !text[used]) {
            memset(l->args, 0, sizeof l->args);
            s->launch_count++;
            s->last_kept = 1;
            return 0;
        }
    } else if (text[0] == 'A') { /* an argument of the launch before it, where that was kept */
        int index = -1, buffer = 0;
        char kind = 0;
        long long value = 0;
        if (sscanf(text, "A %d %c %d %lld%n", &index, &kind, &buffer, &value, &used) == 4 &&
            !text[used] && index >= 0 && index < MAX_ARGS && strchr("milo", kind) && kind) {
            if (s->last_kept && s->launch_count > 0)
                s->launches[s->launch_count - 1].args[index] =
                    (struct seen_arg){kind, buffer, value};
            return 0;
        }
    } else if (text[0] == 'L' && s->local_count < MAX_SEEN) {
        struct seen_local *l = &s->locals[s->local_count];
        if (sscanf(text, "L %d %llu %llu%n", &l->kernel, &l->needs, &l->has, &used) == 3 &&
            !text[used]) {
            s->local_count++;
            return 0;
        }
    } else if (text[0] == 'G' && s->guard_count < MAX_SEEN) {
        struct seen_guard *g = &s->guards[s->guard_count];
        if (sscanf(text, "G %d %d %zu %d%n", &g->buffer, &g->side, &g->floats, &g->kernel, &used) ==
                4 &&
            !text[used] && (g->side == 0 || g->side == 1)) {
            s->guard_count++;
            return 0;
        }
    } else if (text[0] == 'X' && !s->exited) {
        if (sscanf(text, "X %ld %ld %ld %ld%n", &s->held, &s->created, &s->held_programs,
                   &s->held_kernels, &used) == 4 &&
            !text[used] && s->held >= 0 && s->created >= 0 && s->held_programs >= 0 &&
            s->held_kernels >= 0) {
            s->exited = 1;
            return 0;
        }
    } else if (text[0] == 'B' || text[0] == 'P' || text[0] == 'K' || text[0] == 'E' ||
               text[0] == 'L' || text[0] == 'G' || text[0] == 'X') {
        s->last_kept &= text[0] != 'E';
        return 0; /* one of the layer's, past what the judgement keeps */
    }
    return -1;
}

/* Every message on the channel; those without this start's nonce counted as foreign. */
static void read_channel(const struct host_launches *h, struct host_seen *s) {
    memset(s, 0, sizeof *s);
    char message[LAYER_RECORD_MAX + 1];
    for (int i = 0; h->fd >= 0 && i < MAX_MESSAGES; i++) {
        ssize_t got = recv(h->fd, message, sizeof message - 1, MSG_DONTWAIT | MSG_TRUNC);
        if (got <= 0)
            break; /* nothing more (the program's end is closed: its processes are gone) */
        if ((size_t)got >= sizeof message || (size_t)got <= LAYER_NONCE_SIZE + 1 ||
            memcmp(message, h->nonce, LAYER_NONCE_SIZE) != 0 || message[LAYER_NONCE_SIZE] != ' ') {
            s->foreign++;
            continue;
        }
        message[got] = '\0';
        if (strlen(message) != (size_t)got || parse(message + LAYER_NONCE_SIZE + 1, s) != 0)
            s->foreign++;
    }
}

/* The records of the latest start, read off the channel at the first call (a message is read
 * once): NULL when the grader has no memory for them. */
static const struct host_seen *records(struct host_launches *h) {
    if (!h->seen && (h->seen = malloc(sizeof(struct host_seen))) != NULL)
        read_channel(h, h->seen);
    return h->seen;
}

/* Whether a launch is the exercise's: its work_dim, no offset, its global size; the local size
 * where the row fixes one (the tiles'), a divisor of the global size up to the row's where the
 * device may take less (ROWS_GROUPED), any where the runtime may choose. */
static int launch_fits(const struct grader_exercise *ex, const struct grader_launch *plan,
                       const struct seen_launch *l) {
    if (l->status != CL_SUCCESS || l->dims != plan->dims)
        return 0;
    for (unsigned d = 0; d < l->dims; d++)
        if (l->offset[d] != 0 || l->global[d] != plan->global[d])
            return 0;
    if (!plan->has_local)
        return 1;
    if (!l->has_local)
        return 0;
    if (ex->shape == SHAPE_ROWS_GROUPED)
        return l->local[0] > 0 && l->local[0] <= plan->local[0] && l->global[0] % l->local[0] == 0;
    for (unsigned d = 0; d < l->dims; d++)
        if (l->local[d] != plan->local[d])
            return 0;
    return 1;
}

static void sizes_text(const char *what, unsigned dims, const size_t *v, char *out, size_t size) {
    grade_appendf(out, size, "%s {", what);
    for (unsigned d = 0; d < dims && d < 3; d++)
        grade_appendf(out, size, "%s%zu", d ? ", " : "", v[d]);
    grade_appendf(out, size, "}");
}

static void plan_text(const struct grader_exercise *ex, const struct grader_launch *plan, char *out,
                      size_t size) {
    grade_appendf(out, size, "work_dim %u, ", plan->dims);
    sizes_text("global", plan->dims, plan->global, out, size);
    if (!plan->has_local)
        grade_appendf(out, size, ", local NULL");
    else if (ex->shape == SHAPE_ROWS_GROUPED)
        grade_appendf(out, size,
                      ", local {%zu} (or a smaller divisor of %zu, where the device takes less)",
                      plan->local[0], plan->global[0]);
    else
        sizes_text(", local", plan->dims, plan->local, out, size);
}

static void launch_text(const struct seen_launch *l, char *out, size_t size) {
    grade_appendf(out, size, "work_dim %u, ", l->dims);
    if (l->dims < 1 || l->dims > 3)
        return;
    int offset = 0;
    for (unsigned d = 0; d < l->dims; d++)
        offset |= l->offset[d] != 0;
    if (offset)
        sizes_text("offset", l->dims, l->offset, out, size), grade_appendf(out, size, ", ");
    sizes_text("global", l->dims, l->global, out, size);
    if (l->has_local)
        sizes_text(", local", l->dims, l->local, out, size);
    else
        grade_appendf(out, size, ", local NULL");
    if (l->status != CL_SUCCESS)
        grade_appendf(out, size, ", which returned %s", clu_error_name(l->status));
}

/* The verdict on the records: the launch that fits, else NULL with what was not seen in why. */
static const struct seen_launch *judge(const struct grader_exercise *ex,
                                       const struct grader_launch *plan, const char *text,
                                       size_t bytes, const struct host_seen *s, char *why,
                                       size_t size) {
    unsigned long long hash = grader_fnv1a(text, bytes);
    int built[MAX_SEEN], built_count = 0, kernels[MAX_SEEN], kernel_count = 0;
    for (int i = 0; i < s->program_count; i++)
        if (s->programs[i].bytes == bytes && s->programs[i].hash == hash)
            built[built_count++] = s->programs[i].id;
    /* a kernel exists only from a program built right: created is built */
    for (int i = 0; i < s->kernel_count; i++)
        for (int j = 0; j < built_count; j++)
            if (s->kernels[i].program == built[j] && strcmp(s->kernels[i].name, ex->kernel) == 0)
                kernels[kernel_count++] = s->kernels[i].id;
    const struct seen_launch *mine[MAX_SEEN];
    int mine_count = 0;
    for (int i = 0; i < s->launch_count; i++)
        for (int j = 0; j < kernel_count; j++)
            if (s->launches[i].kernel == kernels[j]) {
                if (launch_fits(ex, plan, &s->launches[i]))
                    return &s->launches[i];
                if (mine_count < MAX_SEEN)
                    mine[mine_count++] = &s->launches[i];
            }
    if (s->program_count == 0)
        grade_appendf(why, size,
                      "never created an OpenCL program from source (clCreateProgramWithSource), "
                      "so it built no kernel.cl and enqueued no %s",
                      ex->kernel);
    else if (built_count == 0)
        grade_appendf(
            why, size,
            "built %d program%s, none from the text of its kernel.cl (%zu bytes; it built %zu), so "
            "it never enqueued %s from it",
            s->program_count, s->program_count == 1 ? "" : "s", bytes, s->programs[0].bytes,
            ex->kernel);
    else if (kernel_count == 0)
        grade_appendf(why, size, "never created the kernel %s from its kernel.cl (clCreateKernel)",
                      ex->kernel);
    else if (mine_count == 0)
        grade_appendf(why, size, "never enqueued %s", ex->kernel);
    else {
        grade_appendf(why, size, "enqueued %s only over ", ex->kernel);
        for (int i = 0; i < mine_count && i < 3; i++) {
            if (i)
                grade_appendf(why, size, "; ");
            launch_text(mine[i], why, size);
        }
    }
    return NULL;
}

/* A trusted program (true) run as the host program was, with the layer and a channel of its
 * own: whether the layer greets here at all. */
static int layer_loads(const struct grader_config *cfg, int *too_busy) {
    struct host_launches probe;
    char dir[PATH_MAX], truth[PATH_MAX], log[PATH_MAX + 16];
    if (grader_find_program("true", truth, sizeof truth) != 0 ||
        grader_jail_dir_make(dir, sizeof dir) != 0)
        return 0;
    grade_host_launches_prepare(cfg, dir, &probe);
    struct grader_jail_settings js = grade_host_launches_jail(&cfg->jail, &probe);
    struct grader_argv argv = GRADER_ARGV_INIT;
    grader_sandbox_push(&js, &cfg->sandbox, dir, &argv);
    grade_host_launches_push(&probe, &argv);
    grader_argv_push(&argv, truth);
    snprintf(log, sizeof log, "%s/probe.txt", dir);
    struct grader_run_result run;
    grader_run_jailed(&js, argv.argv, dir, log, 30, &run);
    grader_argv_clear(&argv);
    *too_busy |= run.how == RUN_TOO_BUSY;
    const struct host_seen *s = records(&probe);
    int hello = s && s->hello;
    grade_host_launches_done(&probe);
    grader_jail_dir_remove(dir);
    return hello;
}

int grade_host_launches_judge(const struct grader_config *cfg, const struct grader_exercise *ex,
                              struct grader_size at, const char *kernel, struct host_launches *h,
                              int *too_busy, char *out, size_t size) {
    out[0] = '\0';
    if (!ex->kernel)
        return 1; /* a row without an OpenCL kernel: nothing to launch */
    struct grader_launch plan;
    struct grader_variant v = grader_variant_of(ex, 0, 0);
    size_t bytes = 0;
    char *text = clu_read_file(kernel, &bytes);
    /* trouble readying the layer is the grader's only at the first start: at a second (the
     * first was stopped as starved) the program's first start had the folder to itself */
    const char *skip = h->skip[0]                        ? h->skip
                       : h->trouble[0] && h->starts == 1 ? h->trouble
                       : !text                           ? "the grader cannot read kernel.cl"
                       : grader_plan_launch(ex, NULL, at, &v, &plan) ? "the row has no launch"
                                                                     : NULL;
    if (skip) {
        grade_appendf(out, size, "\nnot checked that it launched %s (%s), so nothing is lost",
                      ex->kernel, skip);
        free(text);
        return 1;
    }
    static const struct host_seen none;
    const struct host_seen *seen = records(h), *s = seen ? seen : &none;
    char why[1000] = "";
    const struct seen_launch *fit = NULL;
    if (s->hello)
        fit = judge(ex, &plan, text, bytes, s, why, sizeof why);
    free(text);
    if (fit) {
        grade_appendf(out, size,
                      "\nthe grader's OpenCL layer saw it build kernel.cl and enqueue %s over ",
                      ex->kernel);
        launch_text(fit, out, size);
        return 1;
    }
    if (!s->hello && !layer_loads(cfg, too_busy)) {
        grade_appendf(
            out, size,
            "\nnot checked that it launched %s: the grader's OpenCL layer does not load here, so "
            "nothing is lost",
            ex->kernel);
        return 1;
    }
    char expected[300] = "";
    plan_text(ex, &plan, expected, sizeof expected);
    if (!s->hello)
        snprintf(why, sizeof why,
                 "did not let the grader's OpenCL layer in (it loads into every "
                 "other program), so no launch of %s was seen",
                 ex->kernel);
    grade_appendf(
        out, size,
        ", but it %s. The host points are for host code that drives the device: build "
        "kernel.cl, create %s from it and enqueue it over %s. The grader sees those calls "
        "themselves, through an OpenCL layer of its own, never what the program prints",
        why, ex->kernel, expected);
    if (s->foreign)
        grade_appendf(out, size,
                      " (%d message%s on the layer's channel did not come from the layer)",
                      s->foreign, s->foreign == 1 ? "" : "s");
    return 0;
}

void grade_host_launches_seen(const struct grader_exercise *ex, struct grader_size at,
                              struct host_launches *h, char *out, size_t size) {
    out[0] = '\0';
    const struct host_seen *s = records(h);
    struct grader_launch plan;
    struct grader_variant v = grader_variant_of(ex, 0, 0);
    /* (a program that launched nothing, as a skeleton does, says why itself) */
    if (!ex->kernel || h->skip[0] || !s || !s->hello || s->launch_count + s->local_count == 0 ||
        grader_plan_launch(ex, NULL, at, &v, &plan))
        return;
    for (int i = 0; i < s->local_count && i < 1; i++)
        grade_appendf(out, size,
                      "\nthe grader's OpenCL layer failed a launch with CL_OUT_OF_RESOURCES before "
                      "the device saw it (POCL's CPU device aborts the program there): the kernel "
                      "needs %llu bytes of local memory (CL_KERNEL_LOCAL_MEM_SIZE: its __local "
                      "arrays and the local arguments, clSetKernelArg(kernel, i, bytes, NULL)), "
                      "the device has %llu",
                      s->locals[i].needs, s->locals[i].has);
    /* the launches of the row's kernel (by name: the text it was built from is judged where the
     * result is right), beside the exercise's */
    int shown = 0;
    for (int i = 0; i < s->launch_count && shown < 3; i++)
        for (int j = 0; j < s->kernel_count; j++)
            if (s->kernels[j].id == s->launches[i].kernel &&
                strcmp(s->kernels[j].name, ex->kernel) == 0) {
                grade_appendf(out, size, "%s",
                              shown ? "; " : "\nthe grader's OpenCL layer saw it enqueue ");
                if (!shown)
                    grade_appendf(out, size, "%s over ", ex->kernel);
                launch_text(&s->launches[i], out, size);
                grade_host_args_text(ex, &s->launches[i], out, size);
                shown++;
                break;
            }
    char expected[700] = "";
    plan_text(ex, &plan, expected, sizeof expected);
    grade_host_plan_args_text(ex, at, expected, sizeof expected);
    if (shown) {
        grade_appendf(out, size, "\nthe exercise's launch at this size: %s", expected);
        for (int i = 0; i < s->launch_count; i++) /* (the first launch of the row's kernel) */
            if (grade_host_kernel_named(s, s->launches[i].kernel, ex->kernel)) {
                grade_host_args_differ(ex, at, &s->launches[i], out, size);
                break;
            }
    } else
        grade_appendf(out, size,
                      "\nthe grader's OpenCL layer saw launches, none of %s; the exercise's "
                      "launch at this size: %s",
                      ex->kernel, expected);
}

int grade_host_launches_guards(const struct grader_exercise *ex, struct host_launches *h, char *out,
                               size_t size) {
    out[0] = '\0';
    const struct host_seen *s = h->skip[0] ? NULL : records(h);
    if (!s || s->guard_count == 0)
        return 0;
    grade_host_guards_text(ex, s, out, size);
    return s->guard_count;
}

void grade_host_launches_hygiene(struct host_launches *h, char *out, size_t size) {
    out[0] = '\0';
    const struct host_seen *s = h->skip[0] ? NULL : records(h);
    if (!s || !s->exited || (s->held == 0 && s->held_programs == 0 && s->held_kernels == 0))
        return;
    grade_appendf(out, size, "\nnote (no point lost): at its exit the program still held");
    const char *sep = " ";
    if (s->held > 0) {
        grade_appendf(out, size, "%s%ld buffer%s (of the %ld it created with clCreateBuffer)", sep,
                      s->held, s->held == 1 ? "" : "s", s->created);
        sep = ", ";
    }
    if (s->held_programs > 0) {
        grade_appendf(out, size, "%s%ld program%s", sep, s->held_programs,
                      s->held_programs == 1 ? "" : "s");
        sep = ", ";
    }
    if (s->held_kernels > 0)
        grade_appendf(out, size, "%s%ld kernel%s", sep, s->held_kernels,
                      s->held_kernels == 1 ? "" : "s");
    grade_appendf(out, size,
                  ", as the grader's OpenCL layer counted. Each clCreate... needs its "
                  "clRelease...: a buffer created in launch() is created again at every launch, "
                  "and a long run of them fills the device's memory");
}
