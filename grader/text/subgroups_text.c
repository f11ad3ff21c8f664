/* subgroups_text.c - the grader's sub-groups written into a canonical kernel text (subgroups.h).
 *
 * A small scanner walks the text as C tokens (string and character literals, numbers,
 * identifiers; #pragma lines copied whole) and replaces each call of a cl_khr_subgroups function
 * by a statement expression of plain OpenCL C 1.2, its arguments rewritten the same way and
 * written once each, in their order. The replacement holds no newline: the newlines of the call
 * (inside its arguments or around them) come out in the same number, so every later line keeps
 * its number. The kernel's body gets the exchange array after its `{`, on the same line.
 *
 * Names the grader uses begin with __grader_sg_: canon.c refuses a student's identifier that
 * begins with two underscores, so none of them can be the student's.
 */
#include "text/subgroups_text.h"

#include "clu.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- a growing text */

/* What a rewrite may make of a canonical text (at most 8 MB, canon.h): a few hundred bytes per
 * call, and calls nested as deep as a compiler takes brackets (clang: 256). Past either the
 * kernel is one no device builds in time: refused, not rewritten. */
#define MAX_OUTPUT (64u << 20)
#define MAX_DEPTH  300

struct text {
    char *p;
    size_t n, cap;
    int failed;    /* out of memory, or past MAX_OUTPUT */
    int too_large; /* past MAX_OUTPUT or MAX_DEPTH */
};

static void put(struct text *t, const char *s, size_t n) {
    if (!t->failed && t->n + n >= MAX_OUTPUT)
        t->failed = t->too_large = 1;
    if (t->failed)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->n + n + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->n, s, n);
    t->n += n;
    t->p[t->n] = '\0';
}

static void puts_text(struct text *t, const char *s) {
    put(t, s, strlen(s));
}

static void putf(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct text *t, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        t->failed = 1; /* (the grader's own fragments are all shorter) */
    else
        put(t, buf, (size_t)n);
}

static size_t newlines(const char *s, size_t n) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += s[i] == '\n';
    return count;
}

/* ---------------------------------------------------------------- the functions replaced */

enum sg_kind {
    SG_SIZE, /* get_sub_group_size() */
    SG_MAX,  /* get_max_sub_group_size() */
    SG_NUM,  /* get_num_sub_groups(), get_enqueued_num_sub_groups() */
    SG_ID,   /* get_sub_group_id() */
    SG_LID,  /* get_sub_group_local_id() */
    SG_BARRIER,
    SG_ALL, /* (from here on the calls exchange values, through the array) */
    SG_ANY,
    SG_BROADCAST,
    SG_REDUCE,
    SG_SCAN_INCLUSIVE,
    SG_SCAN_EXCLUSIVE,
};

enum sg_op { OP_NONE, OP_ADD, OP_MIN, OP_MAX };

static const struct sg_function {
    const char *name;
    enum sg_kind kind;
    enum sg_op op;
    int min_args, max_args;
} functions[] = {
    {"get_sub_group_size", SG_SIZE, OP_NONE, 0, 0},
    {"get_max_sub_group_size", SG_MAX, OP_NONE, 0, 0},
    {"get_num_sub_groups", SG_NUM, OP_NONE, 0, 0},
    {"get_enqueued_num_sub_groups", SG_NUM, OP_NONE, 0, 0},
    {"get_sub_group_id", SG_ID, OP_NONE, 0, 0},
    {"get_sub_group_local_id", SG_LID, OP_NONE, 0, 0},
    {"sub_group_barrier", SG_BARRIER, OP_NONE, 1, 2}, /* (flags) or (flags, memory scope) */
    {"sub_group_all", SG_ALL, OP_NONE, 1, 1},
    {"sub_group_any", SG_ANY, OP_NONE, 1, 1},
    {"sub_group_broadcast", SG_BROADCAST, OP_NONE, 2, 2},
    {"sub_group_reduce_add", SG_REDUCE, OP_ADD, 1, 1},
    {"sub_group_reduce_min", SG_REDUCE, OP_MIN, 1, 1},
    {"sub_group_reduce_max", SG_REDUCE, OP_MAX, 1, 1},
    {"sub_group_scan_inclusive_add", SG_SCAN_INCLUSIVE, OP_ADD, 1, 1},
    {"sub_group_scan_inclusive_min", SG_SCAN_INCLUSIVE, OP_MIN, 1, 1},
    {"sub_group_scan_inclusive_max", SG_SCAN_INCLUSIVE, OP_MAX, 1, 1},
    {"sub_group_scan_exclusive_add", SG_SCAN_EXCLUSIVE, OP_ADD, 1, 1},
    {"sub_group_scan_exclusive_min", SG_SCAN_EXCLUSIVE, OP_MIN, 1, 1},
    {"sub_group_scan_exclusive_max", SG_SCAN_EXCLUSIVE, OP_MAX, 1, 1},
};

/* The work-item's local linear id, the work-group's size. */
#define LINEAR                                                                                     \
    "((uint)((get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + "       \
    "get_local_id(0)))"
#define ITEMS "((uint)(get_local_size(0) * get_local_size(1) * get_local_size(2)))"
/* A row: sub-group get_local_size(0) work-items of consecutive local linear ids, the last one
 * smaller where the size does not divide the group's (POCL's definitions). */
#define ROW_MAX   "((uint)get_local_size(0))"
#define ROW_ID    "(" LINEAR " / " ROW_MAX ")"
#define ROW_LID   "(" LINEAR " % " ROW_MAX ")"
#define ROW_FIRST "(" ROW_ID " * " ROW_MAX ")"
#define ROW_SIZE  "min(" ROW_MAX ", " ITEMS " - " ROW_FIRST ")"
#define ROW_NUM   "((" ITEMS " + " ROW_MAX " - 1u) / " ROW_MAX ")"
#define SYNC      "barrier(CLK_LOCAL_MEM_FENCE);"

/* What the layout makes of each query. */
struct sg_layout {
    const char *max, *id, *lid, *first, *size, *num;
    const char *sync; /* between an exchange's writes and reads ("" for one work-item) */
};

static const struct sg_layout layouts[] = {
    [SUB_GROUPS_ROW] = {ROW_MAX, ROW_ID, ROW_LID, ROW_FIRST, ROW_SIZE, ROW_NUM, SYNC},
    [SUB_GROUPS_ONE] = {"1u", LINEAR, "0u", LINEAR, "1u", ITEMS, ""},
};

/* The value x of the call, and x's type without its address space (a comma expression is an
 * rvalue). */
#define X_DECL "__auto_type __grader_sg_x = "
#define X_TYPE "__typeof__((0, __grader_sg_x))"
/* x's bits in a ulong of the array, and back */
#define UNION                                                                                      \
    "union { " X_TYPE " v; ulong u; } __grader_sg_t; __grader_sg_t.u = 0; "                        \
    "__grader_sg_t.v = __grader_sg_x; "

static void identity(struct text *t, enum sg_op op) {
    if (op == OP_ADD)
        puts_text(t, "(" X_TYPE ")0");
    else
        putf(t,
             "(" X_TYPE ")_Generic((0, __grader_sg_x), int: INT_%s, uint: %s, long: LONG_%s, "
             "ulong: %s, default: %sINFINITY)",
             op == OP_MIN ? "MAX" : "MIN", op == OP_MIN ? "UINT_MAX" : "0u",
             op == OP_MIN ? "MAX" : "MIN", op == OP_MIN ? "ULONG_MAX" : "0ul",
             op == OP_MIN ? "" : "-");
}

static void combine(struct text *t, enum sg_op op) {
    if (op == OP_ADD)
        puts_text(t, "__grader_sg_r + __grader_sg_t.v");
    else
        putf(t, "(__grader_sg_r > __grader_sg_t.v ? %s : %s)",
             op == OP_MIN ? "__grader_sg_t.v" : "__grader_sg_r",
             op == OP_MIN ? "__grader_sg_r" : "__grader_sg_t.v");
}

/* The replacement of a call of f with its (rewritten) arguments. */
static void replacement(struct text *t, const struct sg_function *f, enum grader_sub_groups which,
                        int slots, const struct text *args) {
    const struct sg_layout *l = &layouts[which];
    int one = which == SUB_GROUPS_ONE;
    switch (f->kind) {
    case SG_SIZE:
        putf(t, "(%s)", l->size);
        return;
    case SG_MAX:
        putf(t, "(%s)", l->max);
        return;
    case SG_NUM:
        putf(t, "(%s)", l->num);
        return;
    case SG_ID:
        putf(t, "(%s)", l->id);
        return;
    case SG_LID:
        putf(t, "(%s)", l->lid);
        return;
    case SG_BARRIER: /* the memory scope (OpenCL 2.0) of a second argument is left out */
        if (one) {
            puts_text(t, "((void)(");
            put(t, args[0].p, args[0].n);
            puts_text(t, "))");
        } else {
            puts_text(t, "barrier(");
            put(t, args[0].p, args[0].n);
            puts_text(t, ")");
        }
        return;
    case SG_ALL:
    case SG_ANY:
        puts_text(t, "({ int __grader_sg_p = (");
        put(t, args[0].p, args[0].n);
        puts_text(t, ") != 0; ");
        if (one) {
            puts_text(t, "__grader_sg_p; })");
            return;
        }
        putf(t, SUB_GROUP_SLOTS "[%s] = (ulong)__grader_sg_p; %s ", LINEAR, l->sync);
        putf(t, "int __grader_sg_r = %d; ", f->kind == SG_ALL);
        putf(t, "for (uint __grader_sg_j = 0u; __grader_sg_j < %s; __grader_sg_j++) ", l->size);
        putf(t, "__grader_sg_r %s= " SUB_GROUP_SLOTS "[%s + __grader_sg_j] != 0; ",
             f->kind == SG_ALL ? "&" : "|", l->first);
        putf(t, "%s __grader_sg_r; })", l->sync);
        return;
    case SG_BROADCAST:
        puts_text(t, "({ " X_DECL "(");
        put(t, args[0].p, args[0].n);
        puts_text(t, "); uint __grader_sg_i = (uint)(");
        put(t, args[1].p, args[1].n);
        puts_text(t, "); ");
        if (one) { /* its own value, with nothing to exchange */
            putf(t, "__grader_sg_i < 1u ? __grader_sg_x : (" X_TYPE ")" SUB_GROUP_SLOTS "[%du]; })",
                 slots);
            return;
        }
        puts_text(t, UNION);
        putf(t, SUB_GROUP_SLOTS "[%s] = __grader_sg_t.u; %s ", LINEAR, l->sync);
        /* a lane outside the sub-group: one element past the array, which oclgrind reports */
        putf(t, "__grader_sg_t.u = " SUB_GROUP_SLOTS "[__grader_sg_i < %s ? ", l->size);
        putf(t, "%s + __grader_sg_i : %du]; ", l->first, slots);
        putf(t, "%s __grader_sg_t.v; })", l->sync);
        return;
    case SG_REDUCE:
    case SG_SCAN_INCLUSIVE:
    case SG_SCAN_EXCLUSIVE:
        puts_text(t, "({ " X_DECL "(");
        put(t, args[0].p, args[0].n);
        puts_text(t, "); ");
        if (one) { /* the work-item's own value, or the operation's identity before it */
            if (f->kind == SG_SCAN_EXCLUSIVE)
                identity(t, f->op);
            else
                puts_text(t, "__grader_sg_x");
            puts_text(t, "; })");
            return;
        }
        puts_text(t, UNION);
        putf(t, SUB_GROUP_SLOTS "[%s] = __grader_sg_t.u; %s ", LINEAR, l->sync);
        puts_text(t, X_TYPE " __grader_sg_r = ");
        identity(t, f->op);
        /* the whole sub-group, or the lanes before this one (included, for an inclusive scan) */
        if (f->kind == SG_REDUCE)
            putf(t, "; for (uint __grader_sg_j = 0u; __grader_sg_j < %s; __grader_sg_j++) { ",
                 l->size);
        else
            putf(t, "; for (uint __grader_sg_j = 0u; __grader_sg_j < %s%s; __grader_sg_j++) { ",
                 l->lid, f->kind == SG_SCAN_INCLUSIVE ? " + 1u" : "");
        putf(t, "__grader_sg_t.u = " SUB_GROUP_SLOTS "[%s + __grader_sg_j]; __grader_sg_r = ",
             l->first);
        combine(t, f->op);
        putf(t, "; } %s __grader_sg_r; })", l->sync);
        return;
    }
}

/* ---------------------------------------------------------------- the scanner */

struct scan {
    const char *kernel;
    enum grader_sub_groups layout;
    int slots;
    int depth;        /* calls being rewritten around the current one */
    const char *base; /* the whole text (for line numbers) */
    int in_body;      /* the scan is in the kernel's body, */
    long braces;      /* ... this many braces deep */
    struct grader_sub_group_text did;
};

static int ident_start(char c) {
    return isalpha((unsigned char)c) || c == '_';
}

static int ident_char(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* The end of the string or character literal that starts at s[i] (its quote), or n. */
static size_t literal_end(const char *s, size_t n, size_t i) {
    char quote = s[i++];
    while (i < n && s[i] != quote && s[i] != '\n')
        i += s[i] == '\\' && i + 1 < n ? 2 : 1;
    return i < n ? i + 1 : n;
}

static size_t skip_space(const char *s, size_t n, size_t i) {
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    return i;
}

#define UNCLOSED ((size_t)-1)

/* s[open] is '(': the index after its ')', with the commas at its depth in commas (at most
 * max_commas kept, *ncommas counts them all); UNCLOSED when it is not closed. */
static size_t match_paren(const char *s, size_t n, size_t open, size_t *commas, int max_commas,
                          int *ncommas) {
    int depth = 0;
    *ncommas = 0;
    for (size_t i = open; i < n;) {
        char c = s[i];
        if (c == '"' || c == '\'') {
            i = literal_end(s, n, i);
            continue;
        }
        if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0)
                return c == ')' ? i + 1 : UNCLOSED;
        } else if (c == ',' && depth == 1) {
            if (*ncommas < max_commas)
                commas[*ncommas] = i;
            ++*ncommas;
        }
        i++;
    }
    return UNCLOSED;
}

static void rewrite(struct scan *sc, const char *s, size_t n, int top, struct text *out);

/* A call of f at s[start..] (its name ends at name_end): replaced, or copied when it is not a
 * call the grader knows how to write. Returns where the scan goes on. */
static size_t rewrite_call(struct scan *sc, const struct sg_function *f, const char *s, size_t n,
                           size_t start, size_t name_end, struct text *out) {
    size_t open = skip_space(s, n, name_end), commas[2];
    int ncommas = 0;
    if (open >= n || s[open] != '(') {
        put(out, s + start, name_end - start);
        return name_end;
    }
    size_t close = match_paren(s, n, open, commas, 2, &ncommas);
    /* the arguments: between '(' and ')', split at the commas of its depth; a call that is not
     * closed or not of the function's arity is left to the compiler, which says what is wrong */
    size_t inner_start = open + 1, inner_end = close - 1;
    int nargs = 0;
    if (close != UNCLOSED)
        nargs = ncommas > 0 || skip_space(s, inner_end, inner_start) < inner_end ? ncommas + 1 : 0;
    if (close == UNCLOSED || nargs < f->min_args || nargs > f->max_args) {
        put(out, s + start, name_end - start);
        return name_end;
    }
    if (f->kind >= SG_ALL && !sc->in_body && !sc->did.outside++) { /* (it exchanges values) */
        sc->did.outside_line = 1 + (int)newlines(sc->base, (size_t)(s + start - sc->base));
        snprintf(sc->did.outside_name, sizeof sc->did.outside_name, "%s", f->name);
    }
    if (sc->depth >= MAX_DEPTH) {
        out->failed = out->too_large = 1;
        return n;
    }
    struct text args[2] = {{0}, {0}};
    sc->depth++;
    for (int a = 0; a < nargs; a++) {
        size_t from = a ? commas[a - 1] + 1 : inner_start,
               to = a + 1 < nargs ? commas[a] : inner_end;
        rewrite(sc, s + from, to - from, 0, &args[a]);
        out->failed |= args[a].failed;
        out->too_large |= args[a].too_large;
        if (!args[a].p)
            put(&args[a], "", 0);
    }
    sc->depth--;
    size_t before = out->n;
    replacement(out, f, sc->layout, sc->slots, args);
    /* the call's newlines that its replacement lacks (around its arguments, or in an argument it
     * leaves out) follow it, so that the next line keeps its number */
    if (!out->failed) {
        size_t want = newlines(s + start, close - start),
               have = newlines(out->p + before, out->n - before);
        for (; have < want; have++)
            put(out, "\n", 1);
    }
    for (int a = 0; a < nargs; a++)
        free(args[a].p);
    sc->did.calls++;
    return close;
}

/* The kernel's name at s[start..name_end): when it begins the kernel's definition, the text up
 * to its body's '{' and the exchange array after it. Returns where the scan goes on. */
static size_t kernel_body(struct scan *sc, const char *s, size_t n, size_t start, size_t name_end,
                          struct text *out) {
    size_t open = skip_space(s, n, name_end), commas[1];
    int ncommas;
    if (open < n && s[open] == '(') {
        size_t close = match_paren(s, n, open, commas, 0, &ncommas);
        size_t brace = close == UNCLOSED ? n : skip_space(s, n, close);
        if (brace < n && s[brace] == '{') {
            put(out, s + start, brace + 1 - start);
            putf(out, " __local ulong " SUB_GROUP_SLOTS "[%d];", sc->slots);
            sc->did.injected = sc->in_body = 1;
            sc->braces = 1;
            return brace + 1;
        }
    }
    put(out, s + start, name_end - start);
    return name_end;
}

/* s[0..n) into out; top: the whole text (directive lines and the kernel's body are looked for). */
static void rewrite(struct scan *sc, const char *s, size_t n, int top, struct text *out) {
    size_t i = 0;
    int line_start = 1;
    while (i < n && !out->failed) {
        char c = s[i];
        if (top && line_start && (c == ' ' || c == '\t')) {
            put(out, s + i, 1);
            i++;
            continue;
        }
        if (top && line_start && c == '#') { /* a #pragma line, whole */
            size_t end = i;
            while (end < n && s[end] != '\n')
                end++;
            put(out, s + i, end - i);
            i = end;
            continue;
        }
        line_start = c == '\n';
        if (c == '"' || c == '\'') {
            size_t end = literal_end(s, n, i);
            put(out, s + i, end - i);
            i = end;
        } else if (isdigit((unsigned char)c) ||
                   (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
            size_t end = i + 1; /* a pp-number: 1e-5f, 0x1p+3 */
            while (end < n &&
                   (ident_char(s[end]) || s[end] == '.' ||
                    ((s[end] == '+' || s[end] == '-') && s[end - 1] && strchr("eEpP", s[end - 1]))))
                end++;
            put(out, s + i, end - i);
            i = end;
        } else if (ident_start(c)) {
            size_t end = i + 1;
            while (end < n && ident_char(s[end]))
                end++;
            size_t len = end - i;
            const struct sg_function *f = NULL;
            for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
                if (strlen(functions[k].name) == len && memcmp(functions[k].name, s + i, len) == 0)
                    f = &functions[k];
            if (f)
                i = rewrite_call(sc, f, s, n, i, end, out);
            else if (top && !sc->did.injected && strlen(sc->kernel) == len &&
                     memcmp(sc->kernel, s + i, len) == 0)
                i = kernel_body(sc, s, n, i, end, out);
            else {
                put(out, s + i, len);
                i = end;
            }
        } else {
            if (top && sc->in_body && (c == '{' || c == '}'))
                sc->in_body = (sc->braces += c == '{' ? 1 : -1) > 0;
            put(out, s + i, 1);
            i++;
        }
    }
}

int grader_sub_groups_rewrite(const char *text, size_t length, const char *kernel,
                              enum grader_sub_groups layout, int slots, char **out,
                              size_t *out_length, struct grader_sub_group_text *did) {
    struct scan sc = {.kernel = kernel, .layout = layout, .slots = slots, .base = text};
    struct text t = {0};
    put(&t, "", 0);
    rewrite(&sc, text, length, 1, &t);
    if (t.failed) {
        free(t.p);
        *out = NULL;
        return t.too_large ? -2 : -1;
    }
    *out = t.p;
    *out_length = t.n;
    if (did)
        *did = sc.did;
    return 0;
}

int grader_sub_groups_file(const char *in_path, const char *out_path, const char *kernel,
                           enum grader_sub_groups layout, int slots,
                           struct grader_sub_group_text *did, char *why, size_t why_size) {
    size_t length = 0;
    char *text = clu_read_file(in_path, &length), *out = NULL;
    if (!text) {
        snprintf(why, why_size, "cannot read the canonical text (%s)", strerror(errno));
        return -1;
    }
    size_t out_length = 0;
    int rc = grader_sub_groups_rewrite(text, length, kernel, layout, slots, &out, &out_length, did);
    free(text);
    if (rc != 0) {
        snprintf(why, why_size, "%s",
                 rc == -2 ? "the kernel calls sub-group functions more often, or nested deeper, "
                            "than any device builds in time"
                          : "the grader is out of memory");
        return rc;
    }
    FILE *f = fopen(out_path, "wb");
    int ok = f && fwrite(out, 1, out_length, f) == out_length;
    if (f && fclose(f) != 0)
        ok = 0;
    free(out);
    if (!ok) {
        snprintf(why, why_size, "cannot write %s (%s)", out_path, strerror(errno));
        return -1;
    }
    return 0;
}
