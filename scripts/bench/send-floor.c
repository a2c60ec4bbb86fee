/*
 * send-floor: how fast this machine can fan one small message out to N loopback TCP
 * sockets with nothing but write(2), for the subscription fan-out benchmark's floor.
 *
 * N connections over 127.0.0.1 (TCP_NODELAY on the sending side, as gqlgate sets it);
 * WRITERS threads split the server-side sockets and write one BYTES-byte message to each
 * (scripts/bench-subscriptions.sh passes the size of gqlgate's `next` frames); one reader
 * thread drains the client side with epoll and notes when each socket's message arrived.
 * Prints, per round, how long the writes took and the delivery latency p50/p99/max
 * measured from the first write, then one line over the deliveries of every round:
 *
 *     FLOOR sockets=N writers=W rounds=R bytes=B p50_ms=.. p99_ms=.. max_ms=..
 *
 * No framing, no JSON, no bookkeeping: a fan-out by one thread cannot beat the WRITERS=1
 * figures, nor one by two threads the WRITERS=2 ones.
 *
 * usage: send-floor N [WRITERS] [ROUNDS] [BYTES]     (N sockets need 2N + 8 open files)
 */
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define MAX_MESSAGE_BYTES 65536
#define MAX_WRITERS 16

static int count;
static int *client_fds, *server_fds;
static double *arrived_ms;
static int epoll_fd;
static char message[MAX_MESSAGE_BYTES];
static int message_bytes = 160;

struct slice {
    int from, to;
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void *read_all(void *unused) {
    (void)unused;
    int *received = calloc((size_t)count, sizeof *received);
    int complete = 0;
    struct epoll_event events[256];
    char buffer[4096];
    while (complete < count) {
        int ready = epoll_wait(epoll_fd, events, 256, 5000);
        if (ready <= 0) {
            fprintf(stderr, "send-floor: %d of %d messages arrived\n", complete, count);
            exit(1);
        }
        for (int i = 0; i < ready; i++) {
            int k = (int)events[i].data.u32;
            ssize_t n = read(client_fds[k], buffer, sizeof buffer);
            if (n <= 0) continue;
            int before = received[k];
            received[k] += (int)n;
            if (before < message_bytes && received[k] >= message_bytes) {
                arrived_ms[k] = now_ms();
                complete++;
            }
        }
    }
    free(received);
    return NULL;
}

static void *write_slice(void *argument) {
    struct slice *slice = argument;
    for (int i = slice->from; i < slice->to; i++) {
        if (write(server_fds[i], message, (size_t)message_bytes) != message_bytes) perror("write");
    }
    return NULL;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s N [WRITERS] [ROUNDS] [BYTES]\n", argv[0]);
        return 2;
    }
    count = atoi(argv[1]);
    int writers = argc > 2 ? atoi(argv[2]) : 1;
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    if (argc > 4) message_bytes = atoi(argv[4]);
    if (count < 1 || writers < 1 || writers > MAX_WRITERS || rounds < 1 || message_bytes < 1 ||
        message_bytes > MAX_MESSAGE_BYTES) {
        fprintf(stderr, "send-floor: N >= 1, 1 <= WRITERS <= %d, ROUNDS >= 1, 1 <= BYTES <= %d\n", MAX_WRITERS,
                MAX_MESSAGE_BYTES);
        return 2;
    }
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    if ((rlim_t)(2 * count + 8) > limit.rlim_cur) {
        fprintf(stderr, "send-floor: %d sockets need %d open files, the limit is %llu\n", count, 2 * count + 8,
                (unsigned long long)limit.rlim_cur);
        return 1;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    client_fds = calloc((size_t)count, sizeof *client_fds);
    server_fds = calloc((size_t)count, sizeof *server_fds);
    arrived_ms = calloc((size_t)count, sizeof *arrived_ms);
    double *all_ms = calloc((size_t)count * (size_t)rounds, sizeof *all_ms);
    memset(message, 'x', sizeof message);

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {0};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) != 0 || listen(listener, 4096) != 0) {
        perror("send-floor: listen");
        return 1;
    }
    epoll_fd = epoll_create1(0);
    for (int i = 0; i < count; i++) {
        client_fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(client_fds[i], (struct sockaddr *)&address, sizeof address) != 0) {
            perror("send-floor: connect");
            return 1;
        }
        server_fds[i] = accept(listener, NULL, NULL);
        int on = 1;
        setsockopt(server_fds[i], IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, client_fds[i], &event);
    }

    for (int round = 1; round <= rounds; round++) {
        pthread_t reader;
        pthread_create(&reader, NULL, read_all, NULL);
        usleep(100 * 1000);  // the reader is waiting in epoll_wait
        pthread_t threads[MAX_WRITERS];
        struct slice slices[MAX_WRITERS];
        double started = now_ms();
        for (int w = 0; w < writers; w++) {
            slices[w] = (struct slice){count * w / writers, count * (w + 1) / writers};
            pthread_create(&threads[w], NULL, write_slice, &slices[w]);
        }
        for (int w = 0; w < writers; w++) pthread_join(threads[w], NULL);
        double written = now_ms();
        pthread_join(reader, NULL);
        for (int i = 0; i < count; i++) arrived_ms[i] -= started;
        qsort(arrived_ms, (size_t)count, sizeof *arrived_ms, by_value);
        printf("round %d: %d sockets, %d writer(s): writes %.1f ms; delivery p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
               round, count, writers, written - started, arrived_ms[count / 2], arrived_ms[count * 99 / 100],
               arrived_ms[count - 1]);
        memcpy(all_ms + (size_t)count * (size_t)(round - 1), arrived_ms, (size_t)count * sizeof *arrived_ms);
        sleep(1);
    }
    size_t total = (size_t)count * (size_t)rounds;
    qsort(all_ms, total, sizeof *all_ms, by_value);
    printf("FLOOR sockets=%d writers=%d rounds=%d bytes=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f\n", count, writers, rounds,
           message_bytes, all_ms[total / 2], all_ms[total * 99 / 100], all_ms[total - 1]);
    return 0;
}
