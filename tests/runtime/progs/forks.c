/* fork(): one child ends through exit() (writes its own experiment under the parent's, as
 * fork-<pid>), one through _exit() (writes nothing), one exec's (writes nothing). The parent's
 * profile holds only the parent's calls. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink;
NOINLINE void parent_work(void) { sink++; }
NOINLINE void child_work(void) { sink++; }
NOINLINE void quick_child(void) { sink++; }

NOINLINE int spawn(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 5; i++)
            child_work();
        printf("child done\n");
        exit(7);
    }
    int status;
    waitpid(pid, &status, 0);
    return WEXITSTATUS(status);
}

NOINLINE int spawn_quick(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        quick_child();
        _exit(4);
    }
    int status;
    waitpid(pid, &status, 0);
    return WEXITSTATUS(status);
}

NOINLINE int spawn_exec(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exit 5", (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WEXITSTATUS(status);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        parent_work();
    int a = spawn();
    int b = spawn_quick();
    int c = spawn_exec();
    for (int i = 0; i < 2; i++)
        parent_work();
    printf("children exited %d %d %d\n", a, b, c);
    return 0;
}
