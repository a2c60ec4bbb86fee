/*
 * subscribers: hold N graphql-transport-ws subscriptions and measure event fan-out latency.
 *
 * For scripts/bench-subscriptions.sh (CLIENT=c, the default; subscribers.py does the same
 * in Python). One thread, one epoll set, N non-blocking TCP connections to URL. Each
 * connection does the HTTP/1.1 WebSocket upgrade with `Sec-WebSocket-Protocol:
 * graphql-transport-ws`, sends `connection_init` and, after `connection_ack`, one
 * `subscribe` with the same document on every connection (so gqlgate shares one upstream
 * subscription among them). At most --handshakes connections are in their handshake at
 * once. Frames from the server are parsed across reads (text, continuation, ping -> pong,
 * close -> close); protocol `ping` messages are answered with `pong`.
 *
 * Once every connection is subscribed and has received one `next` (so the server has
 * registered it), the next --events events are measured: for each delivery, the time it
 * was read (CLOCK_REALTIME) minus the event's `emittedAt` (Unix seconds from
 * ticker-upstream.py on the same machine, same clock). Prints one line on stdout:
 *
 *     SUBS subscribers=N connected=N events=E deliveries=D missing=M p50_ms=.. p99_ms=.. max_ms=.. mean_ms=.. frame_bytes=F
 *
 * `frame_bytes` is the largest measured `next` as a frame on the wire (header and payload),
 * the message size of the script's floor (send-floor.c).
 *
 * `connected` counts connections that got as far as sending `subscribe`; `missing` counts
 * (subscriber, event) pairs that never arrived, those of unconnected subscribers included.
 * Exits 0 when every subscriber got every event, 1 when not, 2 on a usage error. On stderr:
 * progress, the first few connection errors, and the client's own CPU time per event while
 * measuring (it shares the machine's cores with the server it measures).
 *
 * The loop sleeps --batch-us after each epoll_wait that returned events (fewer than a full
 * batch), so that a fan-out is read in batches rather than with one wake-up per delivery:
 * wake-ups cost both sides CPU on a shared machine, subscribers elsewhere cost the server
 * none. It adds at most that much to a latency.
 *
 * usage: subscribers URL --subscribers N [--events E] [--timeout S] [--handshakes K] [--batch-us U]
 *   URL          ws://HOST:PORT/PATH
 *   --timeout    seconds for the measured events once all receive events (default 120)
 *   --handshakes connections in their handshake at once (default 200)
 *   --batch-us   microseconds to sleep between batches, 0 for none (default 250)
 *
 * Build: cc -O2 -o subscribers subscribers.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define QUERY "subscription Ticks { ticks { seq emittedAt } }"
#define SETUP_TIMEOUT_S 60.0 /* for every connection to subscribe, then for each to get an event */
#define MAX_FRAME (16u << 20)
#define READ_CHUNK 16384
#define MAX_EVENTS 1024
#define ERRORS_SHOWN 3

enum state {
    CONNECTING,   /* TCP connect in progress */
    UPGRADING,    /* upgrade request sent, reading the HTTP response */
    INITIALISING, /* connection_init sent, waiting for connection_ack */
    SUBSCRIBED,   /* subscribe sent */
    CLOSED,       /* closed, failed or ended by the server */
};

struct buffer {
    char *data;
    size_t len, cap;
};

struct conn {
    int fd;
    enum state state;
    bool subscribed;   /* got as far as sending subscribe */
    bool live;         /* got a `next`: the server has registered the subscription */
    bool done;         /* got the last measured event */
    bool watching_out; /* EPOLLOUT is in the epoll set */
    bool in_message;   /* between the first and the final frame of a fragmented message */
    struct buffer in;
    size_t out_off;
    struct buffer out;
    struct buffer message;
    uint8_t *seen; /* a bit per measured event */
};

static struct {
    const char *host, *port, *path;
    struct addrinfo *address;
    int subscribers, events, handshakes, batch_us;
    double timeout;
    int epoll;
    struct conn *conns;
    int started, in_handshake, subscribed, live;
    bool opening; /* still opening connections */
    bool measuring;
    double start;        /* measured events are those emitted after this */
    long long first_seq; /* the first measured event's seq, -1 until one arrives */
    double read_at;      /* CLOCK_REALTIME of the read being parsed */
    double *latencies;
    size_t deliveries;
    size_t frame_bytes; /* the largest measured `next`, header and payload */
    int errors;
} run = {.events = 10, .timeout = 120, .handshakes = 200, .batch_us = 250, .first_seq = -1};

/* CPU time (user and system) this process has used, in seconds. */
static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("subscribers: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xrealloc(void *p, size_t size) {
    p = realloc(p, size);
    if (!p) die("out of memory");
    return p;
}

static void buffer_reserve(struct buffer *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->len + extra) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

static void buffer_append(struct buffer *b, const void *bytes, size_t n) {
    buffer_reserve(b, n);
    memcpy(b->data + b->len, bytes, n);
    b->len += n;
}

static void buffer_free(struct buffer *b) {
    free(b->data);
    *b = (struct buffer){0};
}

/* ------------------------------------------------------------------ connections */

static void set_events(struct conn *c, bool want_out) {
    if (c->watching_out == want_out) return;
    struct epoll_event ev = {.events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.ptr = c};
    if (epoll_ctl(run.epoll, EPOLL_CTL_MOD, c->fd, &ev) != 0) die("epoll_ctl: %s", strerror(errno));
    c->watching_out = want_out;
}

static void conn_close(struct conn *c) {
    if (c->state == CLOSED) return;
    if (c->state != SUBSCRIBED) run.in_handshake--;
    c->state = CLOSED;
    close(c->fd);
    buffer_free(&c->in);
    buffer_free(&c->out);
    buffer_free(&c->message);
}

/* Closes c and reports why: the first few reasons go to stderr. */
static void conn_fail(struct conn *c, const char *fmt, ...) {
    if (c->state == CLOSED) return;
    if (run.errors++ < ERRORS_SHOWN) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "subscribers: connection %s: ", c->subscribed ? "ended" : "failed");
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    conn_close(c);
}

/* Writes what is queued; what the socket does not take waits for EPOLLOUT. */
static void conn_flush(struct conn *c) {
    while (c->out_off < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->out_off, c->out.len - c->out_off, MSG_NOSIGNAL);
        if (n > 0) {
            c->out_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_events(c, true);
            return;
        } else {
            conn_fail(c, "send: %s", strerror(errno));
            return;
        }
    }
    c->out.len = c->out_off = 0;
    set_events(c, false);
}

/* Queues one masked client frame (RFC 6455 5.3). */
static void send_frame(struct conn *c, uint8_t opcode, const void *payload, size_t n) {
    uint8_t header[14];
    size_t h = 0;
    header[h++] = 0x80 | opcode;
    if (n < 126) {
        header[h++] = 0x80 | (uint8_t)n;
    } else if (n <= 0xffff) {
        header[h++] = 0x80 | 126;
        header[h++] = (uint8_t)(n >> 8);
        header[h++] = (uint8_t)n;
    } else {
        header[h++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8) header[h++] = (uint8_t)((uint64_t)n >> shift);
    }
    uint32_t key = (uint32_t)random();
    memcpy(header + h, &key, 4);
    const uint8_t *mask = header + h;
    h += 4;
    buffer_append(&c->out, header, h);
    buffer_reserve(&c->out, n);
    uint8_t *dst = (uint8_t *)c->out.data + c->out.len;
    for (size_t i = 0; i < n; i++) dst[i] = ((const uint8_t *)payload)[i] ^ mask[i & 3];
    c->out.len += n;
    conn_flush(c);
}

static void send_text(struct conn *c, const char *text) { send_frame(c, 0x1, text, strlen(text)); }

static void send_upgrade(struct conn *c) {
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char key[25]; /* base64 of 16 random bytes: 21 characters of 6 random bits, one of 2, "==" */
    for (int i = 0; i < 21; i++) key[i] = alphabet[random() & 63];
    key[21] = "AQgw"[random() & 3]; /* 2 random bits, then the zero padding bits */
    memcpy(key + 22, "==", 3);
    char request[1024];
    int n = snprintf(request, sizeof request,
                     "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n",
                     run.path, run.host, run.port, key);
    if (n <= 0 || (size_t)n >= sizeof request) die("URL too long");
    buffer_append(&c->out, request, (size_t)n);
    c->state = UPGRADING;
    conn_flush(c);
}

static void conn_start(struct conn *c) {
    struct addrinfo *a = run.address;
    *c = (struct conn){.state = CONNECTING, .watching_out = true};
    c->seen = calloc((size_t)(run.events + 7) / 8, 1);
    if (!c->seen) die("out of memory");
    run.started++;
    run.in_handshake++;
    c->fd = socket(a->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        conn_fail(c, "socket: %s", strerror(errno));
        return;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
    if (epoll_ctl(run.epoll, EPOLL_CTL_ADD, c->fd, &ev) != 0) die("epoll_ctl: %s", strerror(errno));
    if (connect(c->fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS)
        conn_fail(c, "connect: %s", strerror(errno));
}

/* ------------------------------------------------------------------ JSON */

/* The value after `"key":` in a JSON text, at nesting depth `depth` (1: the top-level
 * object) or at any depth when depth is 0; NULL when absent. Strings are skipped whole,
 * so a key's name inside a string value never matches. */
static const char *json_value(const char *s, const char *end, const char *key, int depth) {
    size_t key_len = strlen(key);
    int d = 0;
    for (const char *p = s; p < end; p++) {
        if (*p == '{' || *p == '[') {
            d++;
        } else if (*p == '}' || *p == ']') {
            d--;
        } else if (*p == '"') {
            const char *name = p + 1, *q = name;
            while (q < end && *q != '"') q += (*q == '\\') ? 2 : 1;
            if (q >= end) return NULL;
            p = q;
            if ((depth == 0 || d == depth) && (size_t)(q - name) == key_len && memcmp(name, key, key_len) == 0) {
                for (q++; q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'); q++) {}
                if (q >= end || *q != ':') continue;
                for (q++; q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'); q++) {}
                return q < end ? q : NULL;
            }
        }
    }
    return NULL;
}

static bool json_string_is(const char *v, const char *end, const char *s) {
    size_t n = strlen(s);
    return v && (size_t)(end - v) >= n + 2 && v[0] == '"' && memcmp(v + 1, s, n) == 0 && v[n + 1] == '"';
}

/* The number at v, or NAN. */
static double json_number(const char *v, const char *end) {
    char text[64];
    size_t n = 0;
    if (!v) return NAN;
    while (v + n < end && n < sizeof text - 1 && v[n] && strchr("+-0123456789.eE", v[n])) n++;
    if (n == 0) return NAN;
    memcpy(text, v, n);
    text[n] = 0;
    return strtod(text, NULL);
}

/* ------------------------------------------------------------------ messages */

static bool conn_measured(const struct conn *c) { return c->state == SUBSCRIBED && !c->done; }

static void on_next(struct conn *c, const char *m, const char *end) {
    if (!c->live) {
        c->live = true;
        run.live++;
    }
    if (!run.measuring || c->done) return;
    double emitted = json_number(json_value(m, end, "emittedAt", 0), end);
    double seq_number = json_number(json_value(m, end, "seq", 0), end);
    if (isnan(emitted) || isnan(seq_number)) {
        conn_fail(c, "a next without ticks.seq and ticks.emittedAt: %.*s", (int)(end - m), m);
        return;
    }
    if (emitted <= run.start) return;
    long long seq = (long long)seq_number;
    if (run.first_seq < 0) run.first_seq = seq;
    long long index = seq - run.first_seq;
    if (index >= 0 && index < run.events && !(c->seen[index / 8] & (1u << (index % 8)))) {
        c->seen[index / 8] |= (uint8_t)(1u << (index % 8));
        run.latencies[run.deliveries++] = run.read_at - emitted;
        size_t n = (size_t)(end - m), frame = n + (n < 126 ? 2 : n < 65536 ? 4 : 10);  /* unfragmented, unmasked */
        if (frame > run.frame_bytes) run.frame_bytes = frame;
    }
    if (index >= run.events - 1) c->done = true;
}

static void on_message(struct conn *c, const char *m, size_t n) {
    const char *end = m + n, *type = json_value(m, end, "type", 1);
    if (json_string_is(type, end, "next")) {
        on_next(c, m, end);
    } else if (json_string_is(type, end, "ping")) {
        send_text(c, "{\"type\":\"pong\"}");
    } else if (json_string_is(type, end, "connection_ack") && c->state == INITIALISING) {
        send_text(c, "{\"id\":\"1\",\"type\":\"subscribe\",\"payload\":{\"query\":\"" QUERY "\"}}");
        if (c->state == INITIALISING) {
            c->state = SUBSCRIBED;
            c->subscribed = true;
            run.in_handshake--;
            run.subscribed++;
        }
    } else if (json_string_is(type, end, "error") || json_string_is(type, end, "complete")) {
        conn_fail(c, "%.*s", (int)(n > 300 ? 300 : n), m);
    }
}

/* One complete frame; control frames may come between the fragments of a message. */
static void on_frame(struct conn *c, bool fin, uint8_t opcode, const char *payload, size_t n) {
    switch (opcode) {
    case 0x0: /* continuation */
        if (!c->in_message) {
            conn_fail(c, "continuation frame outside a message");
            return;
        }
        buffer_append(&c->message, payload, n);
        if (fin) {
            c->in_message = false;
            on_message(c, c->message.data, c->message.len);
            c->message.len = 0;
        }
        return;
    case 0x1: /* text */
    case 0x2: /* binary */
        if (c->in_message) {
            conn_fail(c, "data frame inside a fragmented message");
            return;
        }
        if (fin) {
            on_message(c, payload, n);
            return;
        }
        c->in_message = true;
        buffer_append(&c->message, payload, n);
        return;
    case 0x8: { /* close: answer with the same code, then hang up */
        unsigned code = n >= 2 ? ((unsigned)(uint8_t)payload[0] << 8 | (uint8_t)payload[1]) : 1005;
        send_frame(c, 0x8, payload, n >= 2 ? 2 : 0);
        conn_fail(c, "closed by the server: %u %.*s", code, (int)(n > 2 ? n - 2 : 0), payload + 2);
        return;
    }
    case 0x9: /* ping */
        send_frame(c, 0xA, payload, n);
        return;
    case 0xA: /* pong */
        return;
    default:
        conn_fail(c, "frame with opcode %u", opcode);
        return;
    }
}

/* Parses every whole frame in c->in and keeps the rest for the next read. */
static void parse_frames(struct conn *c) {
    size_t pos = 0;
    while (c->state != CLOSED) {
        uint8_t *p = (uint8_t *)c->in.data + pos;
        size_t avail = c->in.len - pos;
        if (avail < 2) break;
        uint64_t n = p[1] & 0x7f;
        size_t header = 2;
        if (n == 126) {
            if (avail < 4) break;
            n = (uint64_t)p[2] << 8 | p[3];
            header = 4;
        } else if (n == 127) {
            if (avail < 10) break;
            n = 0;
            for (int i = 0; i < 8; i++) n = n << 8 | p[2 + i];
            header = 10;
        }
        bool masked = p[1] & 0x80;
        if (masked) header += 4;
        if (n > MAX_FRAME) {
            conn_fail(c, "frame of %llu bytes", (unsigned long long)n);
            return;
        }
        if (avail < header + n) break;
        if (masked)
            for (size_t i = 0; i < n; i++) p[header + i] ^= p[header - 4 + (i & 3)];
        pos += header + n;
        on_frame(c, p[0] & 0x80, p[0] & 0x0f, (const char *)p + header, (size_t)n);
    }
    if (c->state == CLOSED) return;
    memmove(c->in.data, c->in.data + pos, c->in.len - pos);
    c->in.len -= pos;
}

/* The HTTP answer to the upgrade request, once it is whole; frames after it stay in c->in. */
static void parse_upgrade(struct conn *c) {
    char *end = memmem(c->in.data, c->in.len, "\r\n\r\n", 4);
    if (!end) {
        if (c->in.len > 16384) conn_fail(c, "upgrade answer over 16 KiB");
        return;
    }
    *end = 0;
    char *line_end = strstr(c->in.data, "\r\n");
    int line_len = line_end ? (int)(line_end - c->in.data) : (int)strlen(c->in.data);
    if (strncmp(c->in.data, "HTTP/1.1 101", 12) != 0) {
        conn_fail(c, "upgrade answered %.*s", line_len, c->in.data);
        return;
    }
    if (!strcasestr(c->in.data, "\r\nSec-WebSocket-Protocol: graphql-transport-ws")) {
        conn_fail(c, "upgrade answered without Sec-WebSocket-Protocol: graphql-transport-ws");
        return;
    }
    size_t used = (size_t)(end + 4 - c->in.data);
    memmove(c->in.data, c->in.data + used, c->in.len - used);
    c->in.len -= used;
    c->state = INITIALISING;
    send_text(c, "{\"type\":\"connection_init\",\"payload\":{}}");
    parse_frames(c);
}

/* ------------------------------------------------------------------ events */

static void on_readable(struct conn *c) {
    buffer_reserve(&c->in, READ_CHUNK);
    ssize_t n = recv(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n < 0) {
        conn_fail(c, "recv: %s", strerror(errno));
        return;
    }
    if (n == 0) {
        conn_fail(c, "closed by the server without a close frame");
        return;
    }
    run.read_at = now();
    c->in.len += (size_t)n;
    if (c->state == UPGRADING) parse_upgrade(c);
    else parse_frames(c);
}

static void on_connected(struct conn *c) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error) {
        conn_fail(c, "connect: %s", strerror(error));
        return;
    }
    send_upgrade(c);
}

/* Handles socket events until `until` or `deadline`, opening connections as handshake slots free. */
static void loop(bool (*until)(void), double deadline) {
    struct epoll_event events[MAX_EVENTS];
    while (!until() && now() < deadline) {
        while (run.opening && run.started < run.subscribers && run.in_handshake < run.handshakes)
            conn_start(&run.conns[run.started]);
        int n = epoll_wait(run.epoll, events, MAX_EVENTS, 100);
        if (n < 0 && errno != EINTR) die("epoll_wait: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            struct conn *c = events[i].data.ptr;
            if (c->state == CONNECTING) {
                on_connected(c);
                continue;
            }
            if (c->state != CLOSED && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) on_readable(c);
            if (c->state != CLOSED && (events[i].events & EPOLLOUT)) conn_flush(c);
        }
        if (n > 0 && n < MAX_EVENTS && run.batch_us > 0) usleep((useconds_t)run.batch_us);
    }
}

static bool all_handshakes_done(void) { return run.started == run.subscribers && run.in_handshake == 0; }

static bool all_live(void) {
    int open_not_live = 0;
    for (int i = 0; i < run.started; i++) open_not_live += run.conns[i].state == SUBSCRIBED && !run.conns[i].live;
    return open_not_live == 0;
}

static bool all_measured(void) {
    for (int i = 0; i < run.started; i++)
        if (conn_measured(&run.conns[i])) return false;
    return true;
}

/* ------------------------------------------------------------------ set-up and report */

static void parse_url(char *url) {
    if (strncmp(url, "ws://", 5) != 0) die("URL must be ws://HOST:PORT/PATH, not %s", url);
    char *host = url + 5, *slash = strchr(host, '/'), *colon;
    run.path = slash ? strdup(slash) : "/";
    if (slash) *slash = 0;
    colon = strrchr(host, ':');
    if (!colon) die("URL has no port: %s", url);
    *colon = 0;
    run.host = host;
    run.port = colon + 1;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int rc = getaddrinfo(run.host, run.port, &hints, &run.address);
    if (rc != 0) die("%s:%s: %s", run.host, run.port, gai_strerror(rc));
}

/* Every connection is a descriptor: raise the soft limit as far as the hard one allows. */
static void raise_open_files(void) {
    struct rlimit limit;
    rlim_t wanted = (rlim_t)run.subscribers + 64;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= wanted) return;
    limit.rlim_cur = limit.rlim_max == RLIM_INFINITY || limit.rlim_max > wanted ? wanted : limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    if (limit.rlim_cur < wanted)
        fprintf(stderr, "subscribers: open-files limit %llu is below %llu, some connections will fail\n",
                (unsigned long long)limit.rlim_cur, (unsigned long long)wanted);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile_ms(double p) {
    if (run.deliveries == 0) return NAN;
    size_t i = (size_t)((double)run.deliveries * p / 100);
    return run.latencies[i < run.deliveries ? i : run.deliveries - 1] * 1000;
}

static void usage(void) {
    fprintf(stderr, "usage: subscribers URL --subscribers N [--events E] [--timeout S] [--handshakes K] [--batch-us U]\n");
    exit(2);
}

int main(int argc, char **argv) {
    static const struct option options[] = {
        {"subscribers", required_argument, NULL, 'n'}, {"events", required_argument, NULL, 'e'},
        {"timeout", required_argument, NULL, 't'},     {"handshakes", required_argument, NULL, 'k'},
        {"batch-us", required_argument, NULL, 'b'},
        {NULL, 0, NULL, 0},
    };
    for (int o; (o = getopt_long(argc, argv, "", options, NULL)) != -1;) {
        if (o == 'n') run.subscribers = atoi(optarg);
        else if (o == 'e') run.events = atoi(optarg);
        else if (o == 't') run.timeout = atof(optarg);
        else if (o == 'k') run.handshakes = atoi(optarg);
        else if (o == 'b') run.batch_us = atoi(optarg);
        else usage();
    }
    if (optind != argc - 1 || run.subscribers <= 0 || run.events <= 0 || run.timeout <= 0 || run.handshakes <= 0 ||
        run.batch_us < 0)
        usage();
    parse_url(argv[optind]);
    raise_open_files();
    srandom((unsigned)getpid() ^ (unsigned)time(NULL));

    run.conns = calloc((size_t)run.subscribers, sizeof *run.conns);
    run.latencies = calloc((size_t)run.subscribers * (size_t)run.events, sizeof *run.latencies);
    if (!run.conns || !run.latencies) die("out of memory");
    run.epoll = epoll_create1(EPOLL_CLOEXEC);
    if (run.epoll < 0) die("epoll_create1: %s", strerror(errno));

    double began = now();
    run.opening = true;
    loop(all_handshakes_done, began + SETUP_TIMEOUT_S);
    run.opening = false;
    for (int i = 0; i < run.started; i++)
        if (run.conns[i].state != SUBSCRIBED) conn_fail(&run.conns[i], "not subscribed within %.0f s", SETUP_TIMEOUT_S);
    fprintf(stderr, "subscribers: %d/%d subscribed in %.1f s\n", run.subscribed, run.subscribers, now() - began);

    loop(all_live, now() + SETUP_TIMEOUT_S);
    fprintf(stderr, "subscribers: %d/%d receiving events\n", run.live, run.subscribers);
    run.measuring = true;
    run.start = now();
    double cpu_before = cpu_seconds();
    loop(all_measured, run.start + run.timeout);
    fprintf(stderr, "subscribers: own CPU while measuring: %.1f ms per event\n", (cpu_seconds() - cpu_before) * 1000 / run.events);

    long long missing = 0;
    for (int i = 0; i < run.subscribers; i++) {
        int seen = 0;
        for (int e = 0; e < run.events && i < run.started; e++) seen += (run.conns[i].seen[e / 8] >> (e % 8)) & 1;
        missing += run.events - seen;
    }
    qsort(run.latencies, run.deliveries, sizeof *run.latencies, compare_doubles);
    double sum = 0;
    for (size_t i = 0; i < run.deliveries; i++) sum += run.latencies[i];
    printf("SUBS subscribers=%d connected=%d events=%d deliveries=%zu missing=%lld p50_ms=%.2f p99_ms=%.2f max_ms=%.2f "
           "mean_ms=%.2f frame_bytes=%zu\n",
           run.subscribers, run.subscribed, run.events, run.deliveries, missing, percentile_ms(50), percentile_ms(99),
           run.deliveries ? run.latencies[run.deliveries - 1] * 1000 : NAN,
           run.deliveries ? sum / (double)run.deliveries * 1000 : NAN, run.frame_bytes);
    return run.subscribed == run.subscribers && missing == 0 ? 0 : 1;
}
