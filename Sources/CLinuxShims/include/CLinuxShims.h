/// Linux interfaces the event loops and the HTTP server's connection watch need and Glibc's Swift module lacks:
/// epoll, eventfd and timerfd (re-exported here), epoll's flags as constants,
/// and thread names (prctl is varargs).
#ifndef CLINUX_SHIMS_H
#define CLINUX_SHIMS_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

/// Names the calling thread (at most 15 bytes are kept), for `top -H` and `perf`.
void gqlgate_set_thread_name(const char *name);
extern const uint32_t gqlgate_epollin;
extern const uint32_t gqlgate_epollout;
extern const uint32_t gqlgate_epollerr;
extern const uint32_t gqlgate_epollhup;
extern const uint32_t gqlgate_epollrdhup;
extern const uint32_t gqlgate_epolloneshot;

#endif
