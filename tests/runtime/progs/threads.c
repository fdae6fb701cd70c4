/* 1000 short-lived threads, created and joined in waves: every thread's data must be in
 * the profile (worker 1000 visits, task 3000, one location per thread plus main). */
#include <pthread.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define THREADS 1000
#define WAVE 50

static int sink; /* atomic: threads add to it, and a lost update would change the output */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

NOINLINE void task(void)
{
    pthread_mutex_lock(&lock);
    __atomic_fetch_add(&sink, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

NOINLINE void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++)
        task();
    return NULL;
}

int main(void)
{
    pthread_t t[WAVE];
    for (int w = 0; w < THREADS / WAVE; w++) {
        for (int i = 0; i < WAVE; i++)
            if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
                perror("pthread_create");
                return 1;
            }
        for (int i = 0; i < WAVE; i++)
            pthread_join(t[i], NULL);
    }
    printf("sink=%d\n", __atomic_load_n(&sink, __ATOMIC_RELAXED));
    return 0;
}
