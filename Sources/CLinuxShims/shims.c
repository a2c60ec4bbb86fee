#include "CLinuxShims.h"
#include <sys/prctl.h>

void gqlgate_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

const uint32_t gqlgate_epollin = EPOLLIN;
const uint32_t gqlgate_epollout = EPOLLOUT;
const uint32_t gqlgate_epollerr = EPOLLERR;
const uint32_t gqlgate_epollhup = EPOLLHUP;
const uint32_t gqlgate_epollrdhup = EPOLLRDHUP;
const uint32_t gqlgate_epolloneshot = EPOLLONESHOT;
