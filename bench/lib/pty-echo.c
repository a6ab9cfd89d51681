/* The floor of a keystroke's echo on a terminal: opens a pseudo-terminal with the line discipline shellring's terminal
 * jobs get (echo on, canonical mode off, as `stty -icanon`), then COUNT times writes one byte to the master, reads its
 * echo back from the master and drains it from the user side (where a program would read it). Prints each round
 * trip in nanoseconds, one a line. With `relay COMMAND`: the floor of a terminal job's output instead, `bash -c
 * COMMAND` on a new terminal whose master is read to end of file 64 KiB at a time, nothing kept; prints the bytes.
 * usage: pty-echo COUNT | pty-echo relay COMMAND */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int relay(const char *command) {
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    setsid();
    int slave = open(ptsname(master), O_RDWR);
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    execl("/bin/bash", "bash", "-c", command, (char *)0);
    _exit(127);
  }
  static char buf[65536];
  long long total = 0;
  for (;;) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n <= 0) break; /* EIO once the terminal's last user has gone */
    total += n;
  }
  waitpid(child, 0, 0);
  printf("%lld\n", total);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 2 && strcmp(argv[1], "relay") == 0) return relay(argv[2]);
  int count = argc > 1 ? atoi(argv[1]) : 1000;
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) return 1;
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) return 1;
  struct termios t;
  tcgetattr(slave, &t);
  t.c_lflag &= ~ICANON;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  tcsetattr(slave, TCSANOW, &t);
  char c = 'x', got;
  for (int i = 0; i < count; i++) {
    long long start = now_ns();
    if (write(master, &c, 1) != 1) return 1;
    if (read(master, &got, 1) != 1) return 1;
    long long echoed = now_ns();
    if (read(slave, &got, 1) != 1) return 1;
    printf("%lld\n", echoed - start);
  }
  return 0;
}
