/* io_c.c — known I/O per function (tests/io/check.py has the numbers): POSIX descriptors
 * (open, write, pwrite, writev, pwritev, fsync, read to the end of the file, pread, readv,
 * preadv, lseek, dup, creat, unlink, mmap of a file, the stat family, failing calls, and
 * mappings and allocations that are no I/O), C streams (fopen, fprintf, fputs, fwrite, fputc,
 * fflush, fgets, a short fread at the end of the file, fgetc at the end, fseek, a failing
 * fopen), threads writing at once, a signal handler that writes, and a fork and exec. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 4

static char buf[8192];
static int null_fd = -1;

NOINLINE void posix_write(void)
{
    int fd = open("data.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, 1000) != 1000)
            abort();
    if (pwrite(fd, buf, 500, 3000) != 500)
        abort();
    struct iovec v[2] = {{buf, 100}, {buf, 200}};
    if (writev(fd, v, 2) != 300)
        abort();
    struct iovec w[2] = {{buf, 40}, {buf, 60}};
    if (pwritev(fd, w, 2, 0) != 100) /* rewrites 0..100 */
        abort();
    fsync(fd);
    close(fd);
}

NOINLINE void posix_read(void)
{
    int fd = open("data.bin", O_RDONLY);
    while (read(fd, buf, 1024) > 0) /* 1024 1024 1024 728, then 0 at the end */
        ;
    if (pread(fd, buf, 100, 0) != 100)
        abort();
    lseek(fd, 0, SEEK_SET);
    struct iovec v[2] = {{buf, 50}, {buf + 50, 50}};
    if (readv(fd, v, 2) != 100)
        abort();
    int fd2 = dup(fd);
    if (read(fd2, buf, 10) != 10)
        abort();
    close(fd2);
    close(fd);
}

NOINLINE void posix_fail(void)
{
    if (open("no/such/file", O_RDONLY) != -1)
        abort();
    if (read(-1, buf, 10) != -1)
        abort();
    if (close(12345) != -1)
        abort();
}

/* What programs built against a C library before 2.33 call for stat (_STAT_VER 1). */
int __xstat(int ver, const char *path, struct stat *st);

NOINLINE void posix_map_stat(void)
{
    struct stat st;
    int fd = open("data.bin", O_RDONLY);
    if (fstat(fd, &st) != 0 || st.st_size != 3500)
        abort();
    const char *p = mmap(NULL, 3500, PROT_READ, MAP_PRIVATE, fd, 0); /* 3500 bytes mapped */
    if (p == MAP_FAILED || p[3499] != 'a')
        abort();
    munmap((void *)p, 3500);
    struct stat64 st64; /* the 64 names: the same functions on 64-bit systems */
    p = mmap64(NULL, 100, PROT_READ, MAP_SHARED, fd, 0); /* 100 bytes mapped */
    if (p == MAP_FAILED || fstat64(fd, &st64) != 0 || st64.st_size != 3500)
        abort();
    munmap((void *)p, 100);
    if (stat("data.bin", &st) != 0 || lstat("data.bin", &st) != 0 ||
        fstatat(AT_FDCWD, "data.bin", &st, 0) != 0 || fstatat(fd, "", &st, AT_EMPTY_PATH) != 0 ||
        __xstat(1, "data.bin", &st) != 0)
        abort();
    char a[30], b[70];
    struct iovec v[2] = {{a, 30}, {b, 70}};
    if (preadv(fd, v, 2, 100) != 100)
        abort();
    if (stat("no/such/file", &st) != -1)
        abort();
    if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, -1, 0) != MAP_FAILED) /* not a descriptor */
        abort();
    close(fd);
    /* No I/O: an anonymous mapping, and an allocation the C library maps itself. */
    void *m = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *volatile big = malloc(8 << 20);
    if (m == MAP_FAILED || !big)
        abort();
    big[0] = 1;
    free(big);
    munmap(m, 1 << 16);
}

NOINLINE void posix_unlink(void)
{
    int fd = creat("scratch.tmp", 0644);
    close(fd);
    unlink("scratch.tmp");
}

NOINLINE void stdio_write(void)
{
    FILE *f = fopen("text.txt", "w");
    fprintf(f, "%d %s\n", 42, "abc"); /* 7 bytes */
    fputs("hello\n", f);              /* 6 */
    fwrite(buf, 10, 5, f);            /* 50 */
    fputc('x', f);                    /* 1 */
    fflush(f);
    fclose(f);
}

NOINLINE void stdio_read(void)
{
    FILE *f = fopen("text.txt", "r");
    char line[100];
    if (!fgets(line, sizeof line, f))  /* "42 abc\n": 7 */
        abort();
    if (fread(buf, 1, 100, f) != 57)  /* the rest, short at the end of the file */
        abort();
    if (fgetc(f) != EOF)              /* at the end: no byte, not a failure */
        abort();
    fseek(f, 0, SEEK_SET);
    if (fgetc(f) != '4')              /* 1 */
        abort();
    fclose(f);
}

NOINLINE void stdio_fail(void)
{
    if (fopen("no/such/file", "r") != NULL)
        abort();
}

NOINLINE void *io_thread(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "thread%ld.bin", (long)arg);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 100; i++)
        if (write(fd, buf, 64) != 64)
            abort();
    close(fd);
    return NULL;
}

NOINLINE void on_signal(int sig)
{
    (void)sig;
    if (write(null_fd, buf, 16) != 16)
        abort();
}

NOINLINE void fork_exec(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        abort();
}

int main(void)
{
    memset(buf, 'a', sizeof buf);
    posix_write();
    posix_read();
    posix_fail();
    posix_map_stat();
    posix_unlink();
    stdio_write();
    stdio_read();
    stdio_fail();
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, io_thread, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    null_fd = open("/dev/null", O_WRONLY); /* main: 1 open */
    signal(SIGUSR1, on_signal);
    raise(SIGUSR1);
    fork_exec();
    printf("done %d\n", NTHREADS); /* main: 7 bytes */
    return 0;
}
