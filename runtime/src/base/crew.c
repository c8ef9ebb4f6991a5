/* The host path's threads. Started per call (tens of microseconds, against the
 * milliseconds of the inputs that use them), so nothing outlives a call. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include <stdlib.h>
#include <unistd.h>

#include "crew.h"

unsigned tkhi_crew_default_size(void)
{
    const char *env = getenv("TOKITAI_HIP_HOST_THREADS");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        unsigned long v = strtoul(env, &end, 10);
        if (*end == '\0' && v >= 1 && v <= TKHI_CREW_MAX)
            return (unsigned)v;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online < 1 ? 1u : online > 16 ? 16u : (unsigned)online;
}

static void *helper(void *p)
{
    const tkhi_crew_member *me = p;
    tkhi_crew *crew = me->crew;
    unsigned seen = 0;
    pthread_mutex_lock(&crew->lock);
    for (;;) {
        while (crew->generation == seen && !crew->quit)
            pthread_cond_wait(&crew->go, &crew->lock);
        if (crew->quit)
            break;
        seen = crew->generation;
        tkhi_task task = crew->task;
        void *arg = crew->arg;
        const unsigned parts = crew->size;
        pthread_mutex_unlock(&crew->lock);
        task(arg, me->part, parts);
        pthread_mutex_lock(&crew->lock);
        if (--crew->pending == 0)
            pthread_cond_signal(&crew->done);
    }
    pthread_mutex_unlock(&crew->lock);
    return NULL;
}

void tkhi_crew_start(tkhi_crew *crew, unsigned size)
{
    crew->size = 1;
    crew->generation = 0;
    crew->pending = 0;
    crew->quit = 0;
    /* The static initializers cannot fail. */
    crew->lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
    crew->go = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    crew->done = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
    if (size > TKHI_CREW_MAX)
        size = TKHI_CREW_MAX;
    for (unsigned part = 1; part < size; ++part) {
        crew->members[part] = (tkhi_crew_member){ crew, part };
        pthread_mutex_lock(&crew->lock);
        const int err = pthread_create(&crew->helpers[part], NULL, helper, &crew->members[part]);
        if (err == 0)
            crew->size = part + 1; /* the helper reads size only for a task, under the lock */
        pthread_mutex_unlock(&crew->lock);
        if (err != 0)
            break;
    }
}

void tkhi_crew_run(tkhi_crew *crew, tkhi_task task, void *arg)
{
    if (crew->size == 1) {
        task(arg, 0, 1);
        return;
    }
    pthread_mutex_lock(&crew->lock);
    crew->task = task;
    crew->arg = arg;
    crew->pending = crew->size - 1;
    ++crew->generation;
    pthread_cond_broadcast(&crew->go);
    pthread_mutex_unlock(&crew->lock);
    task(arg, 0, crew->size);
    pthread_mutex_lock(&crew->lock);
    while (crew->pending > 0)
        pthread_cond_wait(&crew->done, &crew->lock);
    pthread_mutex_unlock(&crew->lock);
}

void tkhi_crew_stop(tkhi_crew *crew)
{
    pthread_mutex_lock(&crew->lock);
    crew->quit = 1;
    pthread_cond_broadcast(&crew->go);
    pthread_mutex_unlock(&crew->lock);
    for (unsigned part = 1; part < crew->size; ++part)
        pthread_join(crew->helpers[part], NULL);
    pthread_cond_destroy(&crew->go);
    pthread_cond_destroy(&crew->done);
    pthread_mutex_destroy(&crew->lock);
}
