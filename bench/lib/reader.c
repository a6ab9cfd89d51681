/* The trivial reader shellring's capture is measured against: grows a pipe to PIPE_BYTES, runs `bash -c COMMAND`
 * with stdout on it, and reads READ_BYTES at a time until end-of-file, writing each read to OUT unless OUT is -.
 * Prints the byte count. usage: reader PIPE_BYTES READ_BYTES OUT|- COMMAND */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 5) return 2;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return 3;
  fcntl(fds[0], F_SETPIPE_SZ, atoi(argv[1]));
  size_t size = (size_t)atol(argv[2]);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    execl("/bin/bash", "bash", "-c", argv[4], (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  int out = strcmp(argv[3], "-") == 0 ? -1 : open(argv[3], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  char *buf = malloc(size);
  long long total = 0;
  for (;;) {
    ssize_t n = read(fds[0], buf, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += n;
    for (ssize_t at = 0; out >= 0 && at < n;) {
      ssize_t w = write(out, buf + at, (size_t)(n - at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return 4;
      at += w;
    }
  }
  if (out >= 0 && close(out) != 0) return 5;
  int status = 0;
  waitpid(pid, &status, 0);
  printf("%lld\n", total);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
