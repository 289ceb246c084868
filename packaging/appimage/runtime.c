/*
 * Tandem's AppImage runtime: the ELF program at the front of Tandem-<version>-x86_64.AppImage.
 *
 * The file follows the AppImage type-2 layout: this ELF executable (with "AI\x02" in the padding of
 * its ELF identification, bytes 8-10), then a SquashFS image of the AppDir starting right where the
 * ELF file ends (the end of its section header table). The usual runtime mounts that image with
 * FUSE; this one never mounts anything, it unpacks the image with libsquashfs (squashfs-tools-ng,
 * linked statically), so it runs where FUSE is missing (containers, locked-down machines):
 *
 *   IMAGE [ARGS]                          unpack once into ~/.cache/appimage-run/<key>, run AppRun
 *   IMAGE --appimage-extract [PATTERN]    unpack into ./squashfs-root (only paths matching PATTERN)
 *   IMAGE --appimage-extract-and-run ...  unpack into a fresh temporary folder, run, delete it
 *   IMAGE --appimage-offset               print where the SquashFS image starts
 *   IMAGE --appimage-version | --appimage-help
 *
 * APPIMAGE_EXTRACT_AND_RUN=1 makes a plain start behave like --appimage-extract-and-run;
 * NO_CLEANUP=1 keeps that temporary folder. AppRun gets APPIMAGE (this file), APPDIR (the unpacked
 * folder), ARGV0 and OWD (the folder it was started from), as with the usual runtime.
 *
 * Why unpack to a cache for a plain start: a double click then costs one unpack (a few seconds for
 * Tandem's ~200 MB) the first time and nothing afterwards; the key is a hash of the image's
 * super block and tables, so a new version unpacks afresh and copies of one file share a folder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include <sqfs/compressor.h>
#include <sqfs/data_reader.h>
#include <sqfs/dir_reader.h>
#include <sqfs/error.h>
#include <sqfs/id_table.h>
#include <sqfs/inode.h>
#include <sqfs/io.h>
#include <sqfs/super.h>

#define RUNTIME_VERSION "tandem-runtime 1"

static void die(const char *what) {
    fprintf(stderr, "AppImage runtime: %s\n", what);
    exit(127);
}

/* ---- the SquashFS image inside this file: a sqfs_file_t that adds the offset ---- */

typedef struct {
    sqfs_file_t base;
    sqfs_file_t *whole; /* the AppImage file itself */
    sqfs_u64 offset;    /* where the SquashFS image starts */
} offset_file_t;

static int offset_read_at(sqfs_file_t *file, sqfs_u64 where, void *buffer, size_t size) {
    offset_file_t *self = (offset_file_t *)file;
    return self->whole->read_at(self->whole, self->offset + where, buffer, size);
}

static int offset_write_at(sqfs_file_t *file, sqfs_u64 where, const void *buffer, size_t size) {
    (void)file, (void)where, (void)buffer, (void)size;
    return SQFS_ERROR_UNSUPPORTED; /* read only */
}

static sqfs_u64 offset_get_size(const sqfs_file_t *file) {
    const offset_file_t *self = (const offset_file_t *)file;
    return self->whole->get_size(self->whole) - self->offset;
}

static int offset_truncate(sqfs_file_t *file, sqfs_u64 size) {
    (void)file, (void)size;
    return SQFS_ERROR_UNSUPPORTED;
}

static void offset_destroy(sqfs_object_t *object) {
    offset_file_t *self = (offset_file_t *)object;
    sqfs_destroy(self->whole);
    free(self);
}

/* The end of the ELF file: its section header table is the last thing the linker writes. */
static sqfs_u64 elf_size(const char *path) {
    Elf64_Ehdr header;
    FILE *file = fopen(path, "rb");
    if (!file) die("cannot open the AppImage file itself");
    size_t got = fread(&header, 1, sizeof(header), file);
    fclose(file);
    if (got != sizeof(header) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64)
        die("this file does not start with a 64-bit ELF header");
    return header.e_shoff + (sqfs_u64)header.e_shentsize * header.e_shnum;
}

typedef struct {
    sqfs_file_t *file;
    sqfs_super_t super;
    sqfs_compressor_t *compressor;
    sqfs_id_table_t *ids;
    sqfs_dir_reader_t *dirs;
    sqfs_data_reader_t *data;
} image_t;

static void check(int status, const char *what) {
    if (status != 0) {
        fprintf(stderr, "AppImage runtime: %s failed (libsquashfs error %d): the file is damaged or"
                        " incomplete; download it again\n", what, status);
        exit(127);
    }
}

static void image_open(image_t *image, const char *path, sqfs_u64 offset) {
    offset_file_t *file = calloc(1, sizeof(*file));
    if (!file) die("out of memory");
    file->whole = sqfs_open_file(path, SQFS_FILE_OPEN_READ_ONLY);
    if (!file->whole) die("cannot open the AppImage file itself");
    file->offset = offset;
    file->base.base.destroy = offset_destroy;
    file->base.read_at = offset_read_at;
    file->base.write_at = offset_write_at;
    file->base.get_size = offset_get_size;
    file->base.truncate = offset_truncate;
    image->file = &file->base;

    check(sqfs_super_read(&image->super, image->file), "reading the SquashFS super block");
    sqfs_compressor_config_t config;
    check(sqfs_compressor_config_init(&config, image->super.compression_id, image->super.block_size,
                                      SQFS_COMP_FLAG_UNCOMPRESS), "setting up the decompressor");
    check(sqfs_compressor_create(&config, &image->compressor), "creating the decompressor");
    if (image->super.flags & SQFS_FLAG_COMPRESSOR_OPTIONS) {
        int got = image->compressor->read_options(image->compressor, image->file);
        if (got < 0) check(got, "reading the compressor options");
    }
    image->ids = sqfs_id_table_create(0);
    if (!image->ids) die("out of memory");
    check(sqfs_id_table_read(image->ids, image->file, &image->super, image->compressor), "reading the ID table");
    image->dirs = sqfs_dir_reader_create(&image->super, image->compressor, image->file, 0);
    image->data = sqfs_data_reader_create(image->file, image->super.block_size, image->compressor, 0);
    if (!image->dirs || !image->data) die("out of memory");
    check(sqfs_data_reader_load_fragment_table(image->data, &image->super), "reading the fragment table");
}

/* ---- unpacking ---- */

static int make_parents(char *path) {
    for (char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        int failed = mkdir(path, 0755) != 0 && errno != EEXIST;
        *slash = '/';
        if (failed) return -1;
    }
    return 0;
}

static int write_file(image_t *image, const sqfs_inode_generic_t *inode, const char *target, mode_t mode) {
    static char buffer[1 << 20];
    sqfs_u64 size = 0, done = 0;
    sqfs_inode_get_file_size(inode, &size);
    unlink(target); /* a rerun replaces what an earlier extraction left */
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    while (done < size) {
        sqfs_u32 want = size - done < sizeof(buffer) ? (sqfs_u32)(size - done) : (sqfs_u32)sizeof(buffer);
        sqfs_s32 got = sqfs_data_reader_read(image->data, inode, done, buffer, want);
        if (got <= 0) {
            close(fd);
            errno = EIO;
            return -1;
        }
        for (sqfs_s32 written = 0; written < got;) {
            ssize_t n = write(fd, buffer + written, (size_t)(got - written));
            if (n < 0) {
                close(fd);
                return -1;
            }
            written += (sqfs_s32)n;
        }
        done += (sqfs_u64)got;
    }
    if (fchmod(fd, mode) != 0 || close(fd) != 0) return -1;
    return 0;
}

/* Unpack node (and its subtree) under dest; with a pattern, only paths that match it (and their
 * folders). Returns the number of failures. */
static int unpack(image_t *image, const sqfs_tree_node_t *node, const char *dest, const char *pattern,
                  int verbose) {
    char *inner = NULL;
    check(sqfs_tree_node_get_path(node, &inner), "reading a path"); /* rejects "..", "/" in names */
    char target[PATH_MAX];
    if (snprintf(target, sizeof(target), "%s%s", dest, strcmp(inner, "/") == 0 ? "" : inner) >= (int)sizeof(target))
        die("a path in the image is too long");
    int is_root = strcmp(inner, "/") == 0;
    int wanted = !pattern || (!is_root && fnmatch(pattern, inner + 1, 0) == 0);
    if (pattern && !wanted && node->children == NULL) {
        sqfs_free(inner);
        return 0;
    }
    sqfs_free(inner);
    mode_t mode = node->inode->base.mode & 07777;
    int failures = 0;
    switch (node->inode->base.type) {
    case SQFS_INODE_DIR:
    case SQFS_INODE_EXT_DIR:
        wanted = wanted || is_root; /* the destination folder itself is always made */
        if (wanted && (make_parents(target) != 0 || (mkdir(target, 0700) != 0 && errno != EEXIST))) {
            perror(target);
            return 1;
        }
        if (wanted) chmod(target, 0700); /* an earlier extraction may have left it read-only */
        for (const sqfs_tree_node_t *child = node->children; child; child = child->next)
            failures += unpack(image, child, dest, wanted && !is_root ? NULL : pattern, verbose);
        /* Permissions last: a folder without write permission could not receive its files. */
        if (wanted && chmod(target, mode ? mode : 0755) != 0) failures++;
        return failures;
    case SQFS_INODE_FILE:
    case SQFS_INODE_EXT_FILE:
        if (make_parents(target) != 0 || write_file(image, node->inode, target, mode) != 0) {
            perror(target);
            return 1;
        }
        break;
    case SQFS_INODE_SLINK:
    case SQFS_INODE_EXT_SLINK: {
        sqfs_u32 length = node->inode->base.type == SQFS_INODE_SLINK ? node->inode->data.slink.target_size
                                                                      : node->inode->data.slink_ext.target_size;
        char link[PATH_MAX];
        if (length >= sizeof(link)) die("a symbolic link in the image is too long");
        memcpy(link, node->inode->extra, length);
        link[length] = '\0';
        unlink(target);
        if (make_parents(target) != 0 || symlink(link, target) != 0) {
            perror(target);
            return 1;
        }
        break;
    }
    default: /* devices, fifos and sockets are filtered out when the tree is read */
        return 0;
    }
    if (verbose) printf("%s\n", target);
    return failures;
}

static void extract(image_t *image, const char *dest, const char *pattern, int verbose) {
    sqfs_tree_node_t *root = NULL;
    check(sqfs_dir_reader_get_full_hierarchy(image->dirs, image->ids, NULL,
                                             SQFS_TREE_NO_DEVICES | SQFS_TREE_NO_SOCKETS | SQFS_TREE_NO_FIFO, &root),
          "reading the directory tree");
    int failures = unpack(image, root, dest, pattern, verbose);
    sqfs_dir_tree_destroy(root);
    if (failures) {
        fprintf(stderr, "AppImage runtime: %d entries could not be written under %s\n", failures, dest);
        exit(127);
    }
}

/* ---- running AppRun ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 && errno != ENOENT;
}

static void remove_tree(const char *path) { nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS); }

static void set_environment(const char *image_path, const char *appdir, const char *argv0) {
    char cwd[PATH_MAX];
    setenv("APPIMAGE", image_path, 1);
    setenv("APPDIR", appdir, 1);
    setenv("ARGV0", argv0, 1);
    if (getcwd(cwd, sizeof(cwd))) setenv("OWD", cwd, 1);
}

static void exec_apprun(const char *appdir, int argc, char **argv) {
    char apprun[PATH_MAX];
    snprintf(apprun, sizeof(apprun), "%s/AppRun", appdir);
    char **args = calloc((size_t)argc + 1, sizeof(char *));
    if (!args) die("out of memory");
    args[0] = apprun;
    for (int i = 1; i < argc; i++) args[i] = argv[i];
    execv(apprun, args);
    perror(apprun);
    exit(127);
}

static volatile pid_t child_pid = 0;

static void forward_signal(int sig) {
    if (child_pid > 0) kill(child_pid, sig);
}

static int extract_and_run(image_t *image, const char *image_path, int argc, char **argv, int skip) {
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s/appimage_extracted_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) die("cannot create a temporary folder to unpack into");
    extract(image, dir, NULL, 0);
    set_environment(image_path, dir, argv[0]);
    /* The folder is removed once the app exits, so wait for it instead of replacing this process. */
    struct sigaction forward = {.sa_handler = forward_signal};
    sigaction(SIGTERM, &forward, NULL);
    sigaction(SIGHUP, &forward, NULL);
    signal(SIGINT, SIG_IGN); /* the terminal sends it to the app as well; clean up after it exits */
    pid_t pid = fork();
    if (pid < 0) die("cannot start the app (fork failed)");
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        argv[skip] = argv[0];
        exec_apprun(dir, argc - skip, argv + skip);
    }
    child_pid = pid;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    const char *keep = getenv("NO_CLEANUP");
    if (!keep || strcmp(keep, "1") != 0) remove_tree(dir);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* A key for this image: FNV-1a over its super block and the last MiB (inode, directory, fragment
 * and ID tables live at the end), plus its size. */
static uint64_t image_key(image_t *image) {
    static unsigned char tail[1 << 20];
    uint64_t hash = 1469598103934665603ULL;
    const unsigned char *super = (const unsigned char *)&image->super;
    for (size_t i = 0; i < sizeof(image->super); i++) hash = (hash ^ super[i]) * 1099511628211ULL;
    sqfs_u64 used = image->super.bytes_used, length = used < sizeof(tail) ? used : sizeof(tail);
    check(image->file->read_at(image->file, used - length, tail, (size_t)length), "reading the image");
    for (sqfs_u64 i = 0; i < length; i++) hash = (hash ^ tail[i]) * 1099511628211ULL;
    return hash ^ used;
}

static int run_cached(image_t *image, const char *image_path, int argc, char **argv) {
    const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char root[PATH_MAX - 64], dir[PATH_MAX], marker[PATH_MAX + 16], partial[PATH_MAX + 32];
    if (cache && *cache == '/')
        snprintf(root, sizeof(root), "%s/appimage-run", cache);
    else if (home && *home == '/')
        snprintf(root, sizeof(root), "%s/.cache/appimage-run", home);
    else
        return extract_and_run(image, image_path, argc, argv, 0);
    snprintf(dir, sizeof(dir), "%s/%016llx", root, (unsigned long long)image_key(image));
    snprintf(marker, sizeof(marker), "%s/.unpacked", dir);
    if (access(marker, F_OK) != 0) {
        /* Unpack beside, then rename: a second start meanwhile, or a crash, never sees half a tree. */
        snprintf(partial, sizeof(partial), "%s.partial-%ld", dir, (long)getpid());
        if (make_parents(partial) != 0 || mkdir(partial, 0700) != 0)
            return extract_and_run(image, image_path, argc, argv, 0); /* read-only home: still start */
        extract(image, partial, NULL, 0);
        char done[PATH_MAX + 48];
        snprintf(done, sizeof(done), "%s/.unpacked", partial);
        int fd = open(done, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) close(fd);
        if (rename(partial, dir) != 0) remove_tree(partial); /* another start won the race: use its copy */
        if (access(marker, F_OK) != 0) die("cannot unpack into the cache folder");
    }
    set_environment(image_path, dir, argv[0]);
    exec_apprun(dir, argc, argv);
    return 127;
}

int main(int argc, char **argv) {
    char image_path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", image_path, sizeof(image_path) - 1);
    if (n <= 0) die("cannot find the AppImage file (/proc/self/exe)");
    image_path[n] = '\0';
    sqfs_u64 offset = elf_size(image_path);
    const char *option = argc > 1 ? argv[1] : "";

    if (strcmp(option, "--appimage-offset") == 0) {
        printf("%llu\n", (unsigned long long)offset);
        return 0;
    }
    if (strcmp(option, "--appimage-version") == 0) {
        printf("%s (self-extracting, no FUSE; libsquashfs)\n", RUNTIME_VERSION);
        return 0;
    }
    if (strcmp(option, "--appimage-help") == 0) {
        printf("Options of this AppImage's runtime:\n"
               "  --appimage-extract [PATTERN]  unpack into ./squashfs-root (only paths matching PATTERN)\n"
               "  --appimage-extract-and-run    unpack into a temporary folder, run, then delete it\n"
               "  --appimage-offset             print the offset of the SquashFS image\n"
               "  --appimage-version            print the runtime's version\n"
               "Without them the app is unpacked once into ~/.cache/appimage-run and started from there.\n");
        return 0;
    }
    if (strncmp(option, "--appimage-", 11) == 0 && strcmp(option, "--appimage-extract") != 0 &&
        strcmp(option, "--appimage-extract-and-run") != 0) {
        fprintf(stderr, "AppImage runtime: unknown option %s (see --appimage-help)\n", option);
        return 2;
    }

    image_t image;
    image_open(&image, image_path, offset);
    if (strcmp(option, "--appimage-extract") == 0) {
        char dest[PATH_MAX];
        if (!getcwd(dest, sizeof(dest) - 16)) die("cannot read the current folder");
        strcat(dest, "/squashfs-root");
        extract(&image, dest, argc > 2 ? argv[2] : NULL, 1);
        return 0;
    }
    if (strcmp(option, "--appimage-extract-and-run") == 0)
        return extract_and_run(&image, image_path, argc, argv, 1);
    const char *always = getenv("APPIMAGE_EXTRACT_AND_RUN");
    if (always && strcmp(always, "1") == 0) return extract_and_run(&image, image_path, argc, argv, 0);
    return run_cached(&image, image_path, argc, argv);
}
