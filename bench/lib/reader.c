/* The readers shellring's capture is measured against, each doing less work than it: grows a pipe to PIPE_BYTES,
 * runs `bash -c COMMAND` with stdout on it, and drains it until end-of-file, READ_BYTES at a time, into OUT (a new
 * file) or, with OUT -, nowhere. MODE read: blocking read(2) into one buffer (then write(2) to OUT); MODE splice:
 * splice(2) from the pipe to OUT or /dev/null, no copy through user space at all; MODE direct: splice(2) into OUT
 * opened with O_DIRECT, so the disk takes the pipe's pages without a copy into the page cache (an unaligned end is
 * written buffered); MODE relay: splice(2) of all the pipe holds into a second pipe of PIPE_BYTES, then from it to
 * OUT or /dev/null READ_BYTES at a time, so the pipe's writer waits only while pages are handed over, never while
 * they are freed or copied into the page cache, and refills its pipe meanwhile; into a file, its blocks are
 * allocated ahead of the writes (fallocate(2), size kept), as far ahead as the file holds and at most 16 MiB, as
 * shellring's spill files are. Prints the byte count and the reader's own CPU (user +
 * system, microseconds, the command's processes not counted).
 * usage: reader PIPE_BYTES READ_BYTES read|splice|direct|relay OUT|- COMMAND */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Blocking reads; each read written out in full unless out < 0. */
static long long by_read(int in, int out, size_t size) {
  char *buf = malloc(size);
  long long total = 0;
  for (;;) {
    ssize_t n = read(in, buf, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return total;
    total += n;
    for (ssize_t at = 0; out >= 0 && at < n;) {
      ssize_t w = write(out, buf + at, (size_t)(n - at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return -1;
      at += w;
    }
  }
}

/* Pages moved from the pipe to `out` by the kernel. An O_DIRECT `out` refuses a run that is not block-aligned
 * (EINVAL): from there on it is written buffered. */
static long long by_splice(int in, int out, size_t size) {
  long long total = 0;
  for (;;) {
    ssize_t n = splice(in, NULL, out, NULL, size, SPLICE_F_MOVE);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL && (fcntl(out, F_GETFL) & O_DIRECT)) {
      fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_DIRECT);
      continue;
    }
    if (n < 0) return -1;
    if (n == 0) return total;
    total += n;
  }
}

/* Pages moved from the pipe into `relay` (as many as it holds), then from `relay` to `out` `size` bytes at a time;
 * a file's blocks allocated ahead. */
static long long by_relay(int in, int relay[2], int out, int file, size_t size) {
  long long total = 0, reserved = 0;
  size_t room = (size_t)fcntl(relay[0], F_GETPIPE_SZ);
  for (;;) {
    ssize_t n = splice(in, NULL, relay[1], NULL, room, SPLICE_F_MOVE);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return total;
    if (file && total + n > reserved) {
      long long ahead = total < 16 << 20 ? total : 16 << 20;
      long long to = total + n + ahead;
      if (fallocate(out, FALLOC_FL_KEEP_SIZE, reserved, to - reserved) == 0) reserved = to;
    }
    total += n;
    for (ssize_t left = n; left > 0;) {
      ssize_t m = splice(relay[0], NULL, out, NULL, (size_t)left < size ? (size_t)left : size, SPLICE_F_MOVE);
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) return -1;
      left -= m;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 6) return 2;
  int direct = strcmp(argv[3], "direct") == 0;
  int relaying = strcmp(argv[3], "relay") == 0;
  int splicing = direct || relaying || strcmp(argv[3], "splice") == 0;
  if (!splicing && strcmp(argv[3], "read") != 0) return 2;
  int relay[2];
  if (relaying && pipe2(relay, O_CLOEXEC) != 0) return 3;
  if (relaying) fcntl(relay[0], F_SETPIPE_SZ, atoi(argv[1]));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return 3;
  fcntl(fds[0], F_SETPIPE_SZ, atoi(argv[1]));
  size_t size = (size_t)atol(argv[2]);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    execl("/bin/bash", "bash", "-c", argv[5], (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  int discard = strcmp(argv[4], "-") == 0;
  int out = discard ? (splicing ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1)
                    : open(argv[4], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | (direct ? O_DIRECT : 0), 0600);
  if (!discard && out < 0) return 4;
  long long total = relaying ? by_relay(fds[0], relay, out, !discard, size)
                  : splicing ? by_splice(fds[0], out, size)
                             : by_read(fds[0], out, size);
  if (total < 0) return 4;
  /* Gives back the blocks allocated past the end, as a spill file's close does. */
  if (relaying && !discard && ftruncate(out, total) != 0) return 5;
  if (out >= 0 && close(out) != 0) return 5;
  struct rusage self;
  getrusage(RUSAGE_SELF, &self);
  long long cpu_us = (self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1000000LL + self.ru_utime.tv_usec +
                     self.ru_stime.tv_usec;
  int status = 0;
  waitpid(pid, &status, 0);
  printf("%lld %lld\n", total, cpu_us);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
