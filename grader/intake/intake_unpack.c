/* intake_unpack.c - one archive of a student's upload (.zip, .tar, .tar.gz) unpacked into a folder.
 *
 * The archive is hostile: its headers may lie about sizes, types and owners, so nothing it claims
 * is trusted. Each member is checked as it streams past (libarchive): only regular files and
 * folders, no absolute path, no `..`, no control character in a name, nothing encrypted; files
 * are written here, under DIR only, with O_EXCL|O_NOFOLLOW and fixed modes (no owner or mode from
 * the archive; a file's time is its member's, which nothing believes but for a platform's own
 * download). The caps (intake.h) count what is actually written and made: bytes, members, the
 * folders a path makes (a 450-byte tar of paths a/b/c/... makes thousands), each path's depth and
 * length; the unpacking stops the moment one is passed. What was written before a refusal stays
 * in DIR: the caller discards it. A platform's class download is every participant's upload in
 * one zip: a path past one upload's caps refuses only its participant (intake_unpack_class).
 */
#define _GNU_SOURCE
#include "intake.h"

#include <archive.h>
#include <archive_entry.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

enum { UNPACK_OK = INTAKE_OK, UNPACK_REFUSED = INTAKE_REFUSED, UNPACK_ERROR = INTAKE_ERROR };

#define UNPACK_NAME_SHOWN 160 /* characters of a member name quoted in a reason */

struct unpack {
    struct archive *archive;      /* the reader, NULL once freed */
    int root;                     /* DIR, opened as a folder; every path starts from it */
    struct intake_budget *budget; /* the upload's caps and what it has used */
    int refused;                  /* a class download's folder of refused parts, or -1 */
    char reason[512];             /* the refusal or the internal error */
};

static int unpack_say(struct unpack *u, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Record why the unpacking stops; returns code, so callers can `return unpack_say(...)`. */
static int unpack_say(struct unpack *u, int code, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(u->reason, sizeof u->reason, format, args);
    va_end(args);
    return code;
}

/* A member name fit for a one-line reason: valid UTF-8, control characters as ?, long names cut
 * (intake_shown). */
static const char *unpack_shown(const char *name, char *out, size_t size) {
    return intake_shown(name, out, size < UNPACK_NAME_SHOWN + 4 ? size : UNPACK_NAME_SHOWN + 4);
}

/* Refuse names that could leave DIR or break the caller's one-line records. */
static int unpack_check_safe(struct unpack *u, const char *name) {
    char shown[UNPACK_NAME_SHOWN + 8];
    if (!name || !*name)
        return unpack_say(u, UNPACK_REFUSED, "a member has no readable name");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return unpack_say(u, UNPACK_REFUSED,
                              "a member name holds a line break or control character (%s)",
                              unpack_shown(name, shown, sizeof shown));
    int dotdot = 0;
    for (const char *part = name; part;) {
        const char *slash = strchr(part, '/');
        size_t length = slash ? (size_t)(slash - part) : strlen(part);
        dotdot |= length == 2 && part[0] == '.' && part[1] == '.';
        part = slash ? slash + 1 : NULL;
    }
    if (name[0] == '/' || dotdot)
        return unpack_say(u, UNPACK_REFUSED, "a member has an absolute path or .. (%s)",
                          unpack_shown(name, shown, sizeof shown));
    return UNPACK_OK;
}

/* Refuse a path past one upload's caps: its length, its depth, the length of each name. */
static int unpack_check_limits(struct unpack *u, const char *name) {
    char shown[UNPACK_NAME_SHOWN + 8];
    if (strlen(name) > INTAKE_MAX_PATH)
        return unpack_say(u, UNPACK_REFUSED, "a member's path is longer than %d bytes (%s)",
                          INTAKE_MAX_PATH, unpack_shown(name, shown, sizeof shown));
    int depth = 0;
    for (const char *part = name; part;) {
        const char *slash = strchr(part, '/');
        size_t length = slash ? (size_t)(slash - part) : strlen(part);
        depth += length > 0 && !(length == 1 && part[0] == '.');
        if (length > INTAKE_MAX_NAME)
            return unpack_say(u, UNPACK_REFUSED, "a member's name is longer than %d bytes (%s)",
                              INTAKE_MAX_NAME, unpack_shown(name, shown, sizeof shown));
        part = slash ? slash + 1 : NULL;
    }
    if (depth > INTAKE_MAX_DEPTH)
        return unpack_say(u, UNPACK_REFUSED, "a member is more than %d folders deep (%s)",
                          INTAKE_MAX_DEPTH, unpack_shown(name, shown, sizeof shown));
    return UNPACK_OK;
}

/* Why a path inside DIR could not be made: the archive's fault (two members with one name, a
 * file where a folder must go, a name too long) is a refusal; anything else is ours. */
static int unpack_path_error(struct unpack *u, const char *name, const char *what) {
    char shown[UNPACK_NAME_SHOWN + 8];
    int archive_fault = errno == EEXIST || errno == ENOTDIR || errno == EISDIR ||
                        errno == ENAMETOOLONG || errno == ELOOP;
    return unpack_say(u, archive_fault ? UNPACK_REFUSED : UNPACK_ERROR, "%s %s: %s", what,
                      unpack_shown(name, shown, sizeof shown), strerror(errno));
}

/* Drop the empty and "." components of a name, in place: "./a//b/" becomes "a/b". */
static void unpack_normalise(char *name) {
    char *out = name;
    for (char *part = name; part;) {
        char *slash = strchr(part, '/');
        size_t length = slash ? (size_t)(slash - part) : strlen(part);
        if (length > 0 && !(length == 1 && part[0] == '.')) {
            if (out != name)
                *out++ = '/';
            memmove(out, part, length);
            out += length;
        }
        part = slash ? slash + 1 : NULL;
    }
    *out = '\0';
}

/* Make the folder PART in DIR, counting it against the cap when it is new. */
static int unpack_mkdir(struct unpack *u, int dir, const char *part, const char *original,
                        const char *what) {
    if (mkdirat(dir, part, 0755) != 0)
        return errno == EEXIST ? UNPACK_OK : unpack_path_error(u, original, what);
    if (++u->budget->folders > u->budget->max_folders)
        return unpack_say(u, UNPACK_REFUSED, "it makes more than %llu folders",
                          u->budget->max_folders);
    return UNPACK_OK;
}

/* Open the folder that will hold the member `name` (normalised), making the missing folders on
 * the way without ever following a link, and point *leaf at its last component ("" for DIR
 * itself). Returns a folder descriptor the caller closes unless it is u->root, or -1 with *code
 * and u->reason set. `name` is split at its slashes. */
static int unpack_parent(struct unpack *u, char *name, const char *original, const char **leaf,
                         int *code) {
    int dir = u->root;
    char *part = name;
    for (char *slash; (slash = strchr(part, '/')); part = slash + 1) {
        *slash = '\0';
        *code = unpack_mkdir(u, dir, part, original, "cannot create a folder for");
        if (*code != UNPACK_OK)
            break;
        int inner = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (inner < 0) {
            *code = unpack_path_error(u, original, "cannot open a folder for");
            break;
        }
        if (dir != u->root)
            close(dir);
        dir = inner;
    }
    *leaf = part;
    if (*code == UNPACK_OK)
        return dir;
    if (dir != u->root)
        close(dir);
    return -1;
}

/* Copy the current member's data into the new file fd, counting every byte against the cap. */
static int unpack_copy(struct unpack *u, int fd, const char *name) {
    char shown[UNPACK_NAME_SHOWN + 8];
    long long end = 0; /* where the data written so far ends in the file */
    for (;;) {
        const void *block;
        size_t size;
        la_int64_t offset;
        int r = archive_read_data_block(u->archive, &block, &size, &offset);
        if (r == ARCHIVE_EOF)
            return UNPACK_OK;
        if (r < ARCHIVE_WARN)
            return unpack_say(u, UNPACK_REFUSED, "not a readable zip or tar (%s: %s)",
                              unpack_shown(name, shown, sizeof shown),
                              archive_error_string(u->archive));
        if (offset < end)
            return unpack_say(u, UNPACK_REFUSED, "a member's data overlaps itself (%s)",
                              unpack_shown(name, shown, sizeof shown));
        /* a hole (sparse member) counts as written: it is what the file would hold */
        u->budget->bytes += (unsigned long long)(offset - end) + size;
        if (u->budget->bytes > u->budget->max_bytes)
            return unpack_say(u, UNPACK_REFUSED, "it unpacks to more than %llu bytes",
                              u->budget->max_bytes);
        for (size_t done = 0; done < size;) {
            ssize_t wrote = pwrite(fd, (const char *)block + done, size - done, offset + done);
            if (wrote < 0)
                return unpack_say(u, UNPACK_ERROR, "cannot write %s: %s",
                                  unpack_shown(name, shown, sizeof shown), strerror(errno));
            done += (size_t)wrote;
        }
        end = offset + (long long)size;
        if (ftruncate(fd, end) != 0)
            return unpack_say(u, UNPACK_ERROR, "cannot size %s: %s",
                              unpack_shown(name, shown, sizeof shown), strerror(errno));
    }
}

/* Make one folder or write one regular file under DIR. */
static int unpack_member(struct unpack *u, const char *original, int is_dir,
                         const struct timespec *mtime) {
    char *name = strdup(original);
    if (!name)
        return unpack_say(u, UNPACK_ERROR, "out of memory");
    unpack_normalise(name);
    const char *leaf;
    int code = UNPACK_OK;
    int dir = unpack_parent(u, name, original, &leaf, &code);
    if (dir >= 0 && is_dir && *leaf) {
        code = unpack_mkdir(u, dir, leaf, original, "cannot create the folder");
        if (code == UNPACK_OK) {
            /* an existing name must be a real folder, not a file or a link */
            int check = openat(dir, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (check < 0)
                code = unpack_path_error(u, original, "cannot create the folder");
            else
                close(check);
        }
    } else if (dir >= 0 && !is_dir) {
        int fd = *leaf
                     ? openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)
                     : -1;
        if (!*leaf)
            code = unpack_say(u, UNPACK_REFUSED, "a file member has no name");
        else if (fd < 0)
            code = unpack_path_error(u, original, "cannot create the file");
        else {
            code = unpack_copy(u, fd, original);
            /* the member's time, when it has one: what the student's machine claims */
            if (code == UNPACK_OK && mtime) {
                const struct timespec times[2] = {*mtime, *mtime};
                (void)futimens(fd, times);
            }
            if (close(fd) != 0 && code == UNPACK_OK)
                code = unpack_path_error(u, original, "cannot write");
        }
    }
    if (dir >= 0 && dir != u->root)
        close(dir);
    free(name);
    return code;
}

/* The participant's part of a class download's member NAME (normalised): its first name into
 * PART, cut at a character to INTAKE_MAX_NAME bytes (the refusal's folder is named by it); the
 * rest of NAME returned ("" for a member that is the part itself). */
static const char *unpack_part(const char *name, char *part, size_t size) {
    const char *slash = strchr(name, '/');
    size_t length = slash ? (size_t)(slash - name) : strlen(name), cut = length;
    if (cut > size - 1)
        for (cut = size - 1; cut > 0 && ((unsigned char)name[cut] & 0xc0) == 0x80;)
            cut--;
    memcpy(part, name, cut);
    part[cut] = '\0';
    return slash ? slash + 1 : name + length;
}

/* Refuse the participant PART of a class download for u->reason: its folder in u->refused,
 * holding the reason, at the member's time (the platform's). */
static int unpack_refuse_part(struct unpack *u, const char *part, const struct timespec *mtime) {
    char shown[UNPACK_NAME_SHOWN + 8];
    if (mkdirat(u->refused, part, 0755) != 0)
        return unpack_say(u, UNPACK_ERROR, "cannot record the refusal of %s: %s",
                          unpack_shown(part, shown, sizeof shown), strerror(errno));
    if (++u->budget->folders > u->budget->max_folders)
        return unpack_say(u, UNPACK_REFUSED, "it makes more than %llu folders",
                          u->budget->max_folders);
    int dir = openat(u->refused, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int fd = dir < 0 ? -1
                     : openat(dir, INTAKE_REFUSED_REASON,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    int wrote = fd >= 0 && dprintf(fd, "%s\n", u->reason) > 0;
    if (wrote && mtime) {
        const struct timespec times[2] = {*mtime, *mtime};
        (void)futimens(fd, times);
    }
    if (fd >= 0 && close(fd) != 0)
        wrote = 0;
    if (dir >= 0)
        close(dir);
    if (!wrote)
        return unpack_say(u, UNPACK_ERROR, "cannot record the refusal of %s: %s",
                          unpack_shown(part, shown, sizeof shown), strerror(errno));
    u->reason[0] = '\0';
    return UNPACK_OK;
}

/* A member of a class download: one upload's caps on its path apply inside its participant's
 * part (the participant's folder is one level more than an upload has); past them, the part is
 * refused and nothing more of it written. */
static int unpack_class_member(struct unpack *u, const char *original, int is_dir,
                               const struct timespec *mtime) {
    char shown[UNPACK_NAME_SHOWN + 8];
    char *name = strdup(original);
    if (!name)
        return unpack_say(u, UNPACK_ERROR, "out of memory");
    unpack_normalise(name);
    char part[INTAKE_MAX_NAME + 1];
    const char *rest = unpack_part(name, part, sizeof part);
    size_t part_length = (size_t)(rest - name) - (*rest ? 1 : 0);
    struct stat st;
    int code;
    if (!*part)
        code = unpack_member(u, original, is_dir, mtime);
    else if (fstatat(u->refused, part, &st, AT_SYMLINK_NOFOLLOW) == 0)
        code = UNPACK_OK; /* refused already */
    else if (part_length > INTAKE_MAX_NAME) {
        unpack_say(u, UNPACK_REFUSED, "a member's name is longer than %d bytes (%s)",
                   INTAKE_MAX_NAME, unpack_shown(name, shown, sizeof shown));
        code = unpack_refuse_part(u, part, mtime);
    } else if (unpack_check_limits(u, rest) != UNPACK_OK)
        code = unpack_refuse_part(u, part, mtime);
    else
        code = unpack_member(u, original, is_dir, mtime);
    free(name);
    return code;
}

/* Check one member header, then unpack it. */
static int unpack_entry(struct unpack *u, struct archive_entry *entry) {
    char shown[UNPACK_NAME_SHOWN + 8];
    int base = archive_format(u->archive) & ARCHIVE_FORMAT_BASE_MASK;
    if (base != ARCHIVE_FORMAT_ZIP && base != ARCHIVE_FORMAT_TAR)
        return unpack_say(u, UNPACK_REFUSED, "not a zip or tar archive (%s)",
                          archive_format_name(u->archive));
    if (++u->budget->members > u->budget->max_members)
        return unpack_say(u, UNPACK_REFUSED, "it holds more than %llu members",
                          u->budget->max_members);
    const char *name = archive_entry_pathname(entry);
    int code = unpack_check_safe(u, name);
    /* a class download's caps on a path are its participants' (unpack_class_member) */
    if (code == UNPACK_OK && u->refused < 0)
        code = unpack_check_limits(u, name);
    if (code != UNPACK_OK)
        return code;
    mode_t type = archive_entry_filetype(entry);
    if (archive_entry_hardlink(entry) || archive_entry_symlink(entry) ||
        (type != AE_IFREG && type != AE_IFDIR))
        return unpack_say(u, UNPACK_REFUSED, "a member is a link or special file (%s)",
                          unpack_shown(name, shown, sizeof shown));
    if (archive_entry_is_encrypted(entry))
        return unpack_say(u, UNPACK_REFUSED, "a member is encrypted (%s)",
                          unpack_shown(name, shown, sizeof shown));
    struct timespec mtime = {archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)};
    int has_time = archive_entry_mtime_is_set(entry) && mtime.tv_sec >= 0 && mtime.tv_nsec >= 0 &&
                   mtime.tv_nsec < 1000000000L;
    if (u->refused >= 0)
        return unpack_class_member(u, name, type == AE_IFDIR, has_time ? &mtime : NULL);
    return unpack_member(u, name, type == AE_IFDIR, has_time ? &mtime : NULL);
}

/* Open the archive and unpack every member, stopping at the first refusal. */
static int unpack_run(struct unpack *u, const char *path) {
    u->archive = archive_read_new();
    if (!u->archive)
        return unpack_say(u, UNPACK_ERROR, "out of memory");
    /* zip and tar, the tar gzip-compressed or not: nothing else is even recognised */
    if (archive_read_support_filter_gzip(u->archive) != ARCHIVE_OK ||
        archive_read_support_format_zip(u->archive) != ARCHIVE_OK ||
        archive_read_support_format_tar(u->archive) != ARCHIVE_OK)
        return unpack_say(u, UNPACK_ERROR, "libarchive: %s", archive_error_string(u->archive));
    if (archive_read_open_filename(u->archive, path, 65536) != ARCHIVE_OK) {
        /* the file we were handed is missing: our error; anything else: the archive's */
        if (access(path, R_OK) != 0)
            return unpack_say(u, UNPACK_ERROR, "cannot read %s: %s", path, strerror(errno));
        return unpack_say(u, UNPACK_REFUSED, "not a zip or tar archive (%s)",
                          archive_error_string(u->archive));
    }
    for (;;) {
        struct archive_entry *entry;
        int r = archive_read_next_header(u->archive, &entry);
        if (r == ARCHIVE_EOF)
            break;
        if (r < ARCHIVE_WARN)
            return unpack_say(u, UNPACK_REFUSED, "not a readable zip or tar (%s)",
                              archive_error_string(u->archive));
        int code = unpack_entry(u, entry);
        if (code != UNPACK_OK)
            return code;
    }
    return UNPACK_OK;
}

void intake_budget_upload(struct intake_budget *budget, unsigned long long max_bytes) {
    *budget = (struct intake_budget){.max_bytes = max_bytes ? max_bytes : INTAKE_MAX_BYTES,
                                     .max_members = INTAKE_MAX_MEMBERS,
                                     .max_folders = INTAKE_MAX_FOLDERS};
}

void intake_budget_class(struct intake_budget *budget) {
    *budget = (struct intake_budget){.max_bytes = INTAKE_CLASS_MAX_BYTES,
                                     .max_members = INTAKE_CLASS_MAX_MEMBERS,
                                     .max_folders = INTAKE_CLASS_MAX_FOLDERS};
}

int intake_is_archive(const char *name) {
    static const char *const endings[] = {".zip", ".tar", ".tar.gz", ".tgz", NULL};
    size_t n = strlen(name);
    for (size_t i = 0; endings[i]; i++) {
        size_t e = strlen(endings[i]);
        if (n > e && strcasecmp(name + n - e, endings[i]) == 0)
            return 1;
    }
    return 0;
}

/* intake_unpack, and intake_unpack_class where REFUSED is not NULL. */
static int unpack_into(const char *archive, const char *dir, const char *refused,
                       struct intake_budget *budget, char *why, size_t why_size) {
    struct unpack u = {.root = -1, .refused = -1, .budget = budget};
    /* UTF-8 member names must read as names whatever the caller's locale (intake_main.c sets
     * C.UTF-8 once) */
    u.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (refused)
        u.refused = open(refused, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int code = u.root < 0 || (refused && u.refused < 0)
                   ? unpack_say(&u, UNPACK_ERROR, "cannot open the folder %s: %s",
                                u.root < 0 ? dir : refused, strerror(errno))
                   : unpack_run(&u, archive);
    if (u.archive)
        archive_read_free(u.archive);
    if (u.root >= 0)
        close(u.root);
    if (u.refused >= 0)
        close(u.refused);
    snprintf(why, why_size, "%s", code == UNPACK_OK ? "" : u.reason);
    return code;
}

int intake_unpack(const char *archive, const char *dir, struct intake_budget *budget, char *why,
                  size_t why_size) {
    return unpack_into(archive, dir, NULL, budget, why, why_size);
}

int intake_unpack_class(const char *archive, const char *dir, const char *refused,
                        struct intake_budget *budget, char *why, size_t why_size) {
    return unpack_into(archive, dir, refused, budget, why, why_size);
}
