/*
 * bare-answer: the cheapest answer from memory the gqlgate stack can give, for the
 * benchmark's cache workload (M).
 *
 * One libmicrohttpd epoll thread, 16 KiB of memory per connection as gqlgate gives it
 * (server.max_header_bytes), the POST body collected (a cache needs it for its key), and one
 * fixed GraphQL answer handed over without a copy. No lookup, no key, no Swift: whatever a cache hit in gqlgate costs, it
 * costs at least this. gqlgate cache / M is then what gqlgate's cache path adds, and
 * M / nginx proxy_cache is how low libmicrohttpd lets a cache hit go on this machine.
 *
 * `GET /answered` answers how many answers were sent before it (for a benchmark that counts
 * requests from outside, as scripts/bench-instructions.sh does).
 *
 * With --hit-fields (the MF row), it also does what libmicrohttpd must do for the header
 * fields of a gqlgate cache hit, and nothing else: it reads each of the request's header
 * fields once, and answers with the fields a hit carries (the upstream's Server, Date and
 * Content-Type, Age, X-Cache and a fresh 32-digit X-Request-Id). M with those fields is the
 * floor of libmicrohttpd's work under a hit, whatever the code above it.
 *
 * usage: bare-answer [--hit-fields] LISTEN_PORT   (listens on 127.0.0.1)
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char answer[] = "{\"data\":{\"hello\":\"world\"}}";
static unsigned long answered; /* one server thread: no lock */
static int hit_fields;           /* --hit-fields */
static uint64_t id_state = 0x9E3779B97F4A7C15u;

/* Visited for each request header field: libmicrohttpd hands each over once, as a server that passes them on must ask it to. */
static enum MHD_Result read_field(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                  const char *value, size_t value_size) {
    (void)cls; (void)kind; (void)key; (void)key_size; (void)value; (void)value_size;
    return MHD_YES;
}

/* A fresh request id: 32 lower-case hex digits of two xorshift64 draws. */
static void next_request_id(char id[33]) {
    static const char digits[] = "0123456789abcdef";
    for (int half = 0; half < 2; half++) {
        id_state ^= id_state << 13;
        id_state ^= id_state >> 7;
        id_state ^= id_state << 17;
        uint64_t bits = id_state;
        for (int i = 0; i < 16; i++, bits >>= 4) id[half * 16 + i] = digits[bits & 15];
    }
    id[32] = '\0';
}

/* The fields of a gqlgate cache hit, as the bench's upstream (nginx) gave them. */
static void add_hit_fields(struct MHD_Response *response) {
    char id[33];
    next_request_id(id);
    MHD_add_response_header(response, "Server", "nginx");
    MHD_add_response_header(response, "Date", "Sun, 29 Nov 2026 10:00:00 GMT");
    MHD_add_response_header(response, "Content-Type", "application/json");
    MHD_add_response_header(response, "Age", "0");
    MHD_add_response_header(response, "X-Cache", "HIT");
    MHD_add_response_header(response, "X-Request-Id", id);
}

struct body {
    size_t length, capacity;
    char *bytes;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **request) {
    (void)cls; (void)version;
    struct body *body = *request;
    if (body == NULL) {
        body = calloc(1, sizeof *body);
        if (body == NULL) return MHD_NO;
        *request = body;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        size_t count = *upload_size;
        if (body->length + count > body->capacity) {
            size_t wanted = (body->length + count) * 2;
            char *grown = realloc(body->bytes, wanted);
            if (grown == NULL) return MHD_NO;
            body->bytes = grown;
            body->capacity = wanted;
        }
        memcpy(body->bytes + body->length, upload, count);
        body->length += count;
        *upload_size = 0;
        return MHD_YES;
    }
    if (method[0] == 'G' && strcmp(url, "/answered") == 0) {
        char count[32];
        int length = snprintf(count, sizeof count, "%lu\n", answered);
        struct MHD_Response *counted = MHD_create_response_from_buffer((size_t)length, count, MHD_RESPMEM_MUST_COPY);
        if (counted == NULL) return MHD_NO;
        enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, counted);
        MHD_destroy_response(counted);
        return queued;
    }
    answered++;
    if (hit_fields) MHD_get_connection_values_n(connection, MHD_HEADER_KIND, read_field, NULL);
    struct MHD_Response *response =
        MHD_create_response_from_buffer(sizeof answer - 1, (void *)answer, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    if (hit_fields) {
        add_hit_fields(response);
    } else {
        MHD_add_response_header(response, "Content-Type", "application/json");
    }
    enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return queued;
}

static void on_completed(void *cls, struct MHD_Connection *connection, void **request,
                         enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    struct body *body = *request;
    if (body != NULL) free(body->bytes);
    free(body);
    *request = NULL;
}

int main(int argc, char **argv) {
    hit_fields = argc == 3 && strcmp(argv[1], "--hit-fields") == 0;
    if (argc != 2 + hit_fields) {
        fprintf(stderr, "usage: %s [--hit-fields] LISTEN_PORT\n", argv[0]);
        return 2;
    }
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_port = htons((uint16_t)atoi(argv[argc - 1]));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_TURBO, 0, NULL, NULL, on_request, NULL,
        MHD_OPTION_SOCK_ADDR, &address, MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
        MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)16384, MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "bare-answer: cannot listen on 127.0.0.1:%s\n", argv[argc - 1]);
        return 1;
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int received;
    sigwait(&signals, &received);
    MHD_stop_daemon(daemon);
    return 0;
}
