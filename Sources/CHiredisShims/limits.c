#include "CHiredisShims.h"

#include <stddef.h>

/// hiredis' own object functions (the same table for every reader), which the checks hand on to.
/// Written by every reader made (the same pointer each time), read by every reply: atomically.
static redisReplyObjectFunctions *hiredis_functions;

static redisReplyObjectFunctions *hiredis(void) {
    return __atomic_load_n(&hiredis_functions, __ATOMIC_ACQUIRE);
}

static gqlgate_redis_reply_limits *limits_of(const redisReadTask *task) {
    gqlgate_redis_reply_limits *limits = task->privdata;
    if (task->parent == NULL) {  // the top-level object: a new reply
        limits->elements = 0;
        limits->bytes = 0;
    }
    return limits;
}

static void *checked_string(const redisReadTask *task, char *text, size_t length) {
    gqlgate_redis_reply_limits *limits = limits_of(task);
    limits->bytes += (long long)length;
    if (limits->bytes > limits->max_bytes) {
        limits->exceeded = 1;
        return NULL;
    }
    return hiredis()->createString(task, text, length);
}

static void *checked_array(const redisReadTask *task, int elements) {
    gqlgate_redis_reply_limits *limits = limits_of(task);
    limits->elements += elements;
    if (elements < 0 || limits->elements > limits->max_elements) {
        limits->exceeded = 1;
        return NULL;
    }
    return hiredis()->createArray(task, elements);
}

static void *checked_integer(const redisReadTask *task, long long value) {
    (void)limits_of(task);
    return hiredis()->createInteger(task, value);
}

static void *checked_nil(const redisReadTask *task) {
    (void)limits_of(task);
    return hiredis()->createNil(task);
}

static void free_object(void *object) {
    hiredis()->freeObject(object);
}

static redisReplyObjectFunctions checked_functions = {
    checked_string, checked_array, checked_integer, checked_nil, free_object,
};

void gqlgate_redis_limit_reader(redisReader *reader, gqlgate_redis_reply_limits *limits) {
    if (reader->fn != &checked_functions) {
        // Every reader starts with hiredis' one static table: storing it again stores the same pointer.
        __atomic_store_n(&hiredis_functions, reader->fn, __ATOMIC_RELEASE);
        reader->fn = &checked_functions;
    }
    reader->privdata = limits;
}
