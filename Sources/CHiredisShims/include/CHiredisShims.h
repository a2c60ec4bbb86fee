/// Bounds on what one Redis reply may make hiredis allocate, checked before
/// it allocates: hiredis 0.14's reader takes an array's announced length
/// (`*1000000000`) and allocates for it at once. The reader's object
/// functions are wrapped: each reply (counted from its top-level object)
/// may hold at most `max_elements` array elements and `max_bytes` of
/// strings; past either the wrapper refuses the object, and hiredis fails
/// the reply and the connection.
#ifndef CHIREDIS_SHIMS_H
#define CHIREDIS_SHIMS_H

#include <hiredis/hiredis.h>

typedef struct gqlgate_redis_reply_limits {
    long long max_elements;
    long long max_bytes;
    /// What the reply being read holds so far.
    long long elements;
    long long bytes;
    /// Set when a reply went past a bound (the reader's error then says "Out of memory").
    int exceeded;
} gqlgate_redis_reply_limits;

/// Makes `reader` check `limits` (which must outlive it).
void gqlgate_redis_limit_reader(redisReader *reader, gqlgate_redis_reply_limits *limits);

#endif
