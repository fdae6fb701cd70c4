/* own_thread.h — a thread of the runtime's own (the trace's converter thread). */
#ifndef INSTR_UTIL_OWN_THREAD_H
#define INSTR_UTIL_OWN_THREAD_H

#include <pthread.h>

/* Starts fn(arg) on a thread (joinable: join or detach it) with every signal blocked (a
 * signal meant for the program goes to one of its threads). 0, or the error number of
 * pthread_create. */
int instr_own_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);
/* 1 on the calling thread while it is inside instr_own_thread_start's pthread_create: for the
 * runtime's own pthread_create (sampling/threads.c), which passes such a thread straight on
 * instead of making it a sampled location. */
int instr_own_thread_starting(void);

#endif
