/* The ceiling of any relay between two TCP connections on this machine: accepts on a loopback port (printed on its
 * first line), dials 127.0.0.1:TARGET for each connection, and copies both ways with blocking reads and writes of
 * 128 KiB on a thread per direction, as the domain network mode's proxy does; no judging, no parsing.
 * usage: tcp-relay TARGET */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK (128 * 1024)

/* Both directions of one connection; the one that ends last closes both sockets. */
struct connection {
  int client, server;
  int running;
};

struct direction {
  int from, to;
  struct connection *connection;
};

static void *copy(void *arg) {
  struct direction *d = arg;
  char *buffer = malloc(CHUNK);
  for (;;) {
    ssize_t n = read(d->from, buffer, CHUNK);
    if (n <= 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t m = write(d->to, buffer + done, n - done);
      if (m <= 0) goto out;
      done += m;
    }
  }
out:
  shutdown(d->to, SHUT_WR);
  free(buffer);
  struct connection *c = d->connection;
  if (__atomic_sub_fetch(&c->running, 1, __ATOMIC_ACQ_REL) == 0) {
    close(c->client);
    close(c->server);
    free(c);
  }
  free(d);
  return NULL;
}

static void start(struct connection *c, int from, int to) {
  struct direction *d = malloc(sizeof *d);
  d->from = from;
  d->to = to;
  d->connection = c;
  pthread_t thread;
  pthread_create(&thread, NULL, copy, d);
  pthread_detach(thread);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  socklen_t length = sizeof address;
  if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 64) ||
      getsockname(listener, (struct sockaddr *)&address, &length))
    return 1;
  printf("%d\n", ntohs(address.sin_port));
  fflush(stdout);
  struct sockaddr_in target = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  for (;;) {
    int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (client < 0) continue;
    int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connect(server, (struct sockaddr *)&target, sizeof target)) {
      close(client);
      close(server);
      continue;
    }
    struct connection *c = malloc(sizeof *c);
    c->client = client;
    c->server = server;
    c->running = 2;
    start(c, client, server);
    start(c, server, client);
  }
}
