// SPDX-License-Identifier: Apache-2.0
// peak_rss FD COMMAND [ARG...]: runs COMMAND and writes
// "<exit code> <peak RSS in KiB> <CPU time in microseconds (user + system)>" to FD.
//
// A child's ru_maxrss counts the memory of the process it was forked from (Linux keeps the
// high-water mark across exec), so a child of a Python interpreter never reads below the
// interpreter's own ~15 MiB. Forked from this small launcher instead, the floor is ~1 MiB.
// The command's stdin, stdout and stderr are this program's.
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: peak_rss FD COMMAND [ARG...]\n");
    return 2;
  }
  FILE* report = fdopen(atoi(argv[1]), "w");
  if (report == NULL) {
    perror("peak_rss: the report's file descriptor");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    perror("peak_rss: fork");
    return 2;
  }
  if (pid == 0) {
    fclose(report);
    execvp(argv[2], argv + 2);
    perror("peak_rss: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("peak_rss: wait4");
    return 2;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const long long cpu_us =
      (long long)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000LL +
      usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
  fprintf(report, "%d %ld %lld\n", code, usage.ru_maxrss, cpu_us);
  fclose(report);
  return 0;
}
