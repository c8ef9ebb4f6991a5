/* A crew of host threads for one call of the host path: the caller and up to
 * TKHI_CREW_MAX - 1 helpers run each task together, each on its own part. */
#ifndef TOKITAI_HIP_CREW_H
#define TOKITAI_HIP_CREW_H

#include <pthread.h>

#include "tokitai_hip/export.h"

#define TKHI_CREW_MAX 32

/* Does part 'part' of 'parts' of the work behind 'arg'. */
typedef void (*tkhi_task)(void *arg, unsigned part, unsigned parts);

typedef struct tkhi_crew tkhi_crew;

typedef struct tkhi_crew_member {
    tkhi_crew *crew;
    unsigned part;
} tkhi_crew_member;

struct tkhi_crew {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    unsigned size;        /* threads working, the caller included */
    unsigned generation;  /* bumped for each task */
    unsigned pending;     /* helpers still on the current task */
    int quit;
    tkhi_task task;
    void *arg;
    pthread_t helpers[TKHI_CREW_MAX];
    tkhi_crew_member members[TKHI_CREW_MAX];
};

/* How many threads the host path uses: TOKITAI_HIP_HOST_THREADS when set to 1..32, else
 * the processors online, at most 16. */
TKH_HIDDEN unsigned tkhi_crew_default_size(void);

/* Starts up to size - 1 helpers; crew->size says how many threads there are (1 when none
 * could be started: the caller then does everything, which is still correct). */
TKH_HIDDEN void tkhi_crew_start(tkhi_crew *crew, unsigned size);

/* Runs 'task' on every thread of the crew and returns when all parts are done. */
TKH_HIDDEN void tkhi_crew_run(tkhi_crew *crew, tkhi_task task, void *arg);

TKH_HIDDEN void tkhi_crew_stop(tkhi_crew *crew);

#endif
