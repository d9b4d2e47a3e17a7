/* /bin/cp of the agent image, the only program in it (no shell): `cp SRC DEST` copies one regular file into the
 * directory DEST (as DEST/<basename of SRC>) or onto the path DEST. The webhook's init container runs
 * `cp /streams-memory/streams-memory-agent.jar <emptyDir>/streams-memory-agent.jar`.
 * Writes a temporary name next to the target, then renames it: the application container never sees half a jar,
 * even when a restarted init container copies again. Keeps SRC's permission bits (0444 in the image).
 * Built static (gcc -Os -static) so FROM scratch is enough. Exits 1 with a message on any failure. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[PATH_MAX + 32]; /* the temporary file, removed on failure once created */

static void fail(const char *what, const char *path) {
    fprintf(stderr, "cp: %s %s: %s\n", what, path, strerror(errno));
    if (tmp[0]) unlink(tmp);
    exit(1);
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: cp SRC DEST (one regular file into a directory or onto a path)\n"); return 2; }
    const char *src = argv[1];
    char dest[PATH_MAX];
    struct stat s, d;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) fail("cannot open", src);
    if (fstat(in, &s) < 0) fail("cannot stat", src);
    if (!S_ISREG(s.st_mode)) { errno = EINVAL; fail("not a regular file:", src); }
    /* DEST is a directory (or ends with /): copy into it under SRC's base name. */
    const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
    size_t len = strlen(argv[2]);
    int n = ((stat(argv[2], &d) == 0 && S_ISDIR(d.st_mode)) || (len && argv[2][len - 1] == '/'))
            ? snprintf(dest, sizeof dest, "%s/%s", argv[2], base)
            : snprintf(dest, sizeof dest, "%s", argv[2]);
    if (n < 0 || n >= (int) sizeof dest) { errno = ENAMETOOLONG; fail("destination too long:", argv[2]); }
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", dest, (long) getpid());
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, s.st_mode & 0777);
    if (out < 0) { tmp[0] = 0; fail("cannot create", dest); }
    static char buf[1 << 16];
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0) { if (errno == EINTR) continue; fail("cannot read", src); }
        if (r == 0) break;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t) (r - off));
            if (w < 0) { if (errno == EINTR) continue; fail("cannot write", tmp); }
            off += w;
        }
    }
    /* fsync before rename: the application may start right after the init container exits. */
    if (fsync(out) < 0 && errno != EINVAL) fail("cannot sync", tmp);
    if (close(out) < 0) fail("cannot close", tmp);
    if (rename(tmp, dest) < 0) fail("cannot rename to", dest);
    return 0;
}
