#!/usr/bin/env bash
# Measures the reference cost `rr_op` of the rr generator (netperf TCP_RR / tbench): CPU per half
# transaction, one recv() plus one send() of a 1-byte message over a loopback TCP connection.
#
# Method: two processes ping-pong a byte, both pinned to one CPU, once over a pair of pipes and
# once over a loopback TCP connection (TCP_NODELAY). On one CPU a round trip is two half trips of
# (syscall work + a context switch), so the switch cancels in the difference:
#   rr_op = pipe_op + (tcp round trip - pipe round trip) / 2
# with pipe_op the generator's reference for one read() plus one write() of a pipe (gen_costs.hpp).
# The median of RUNS runs of each is used. Run it on a quiet machine.
#   scripts/measure-rr-op.sh [RUNS] [ROUND_TRIPS] [CPU]
set -euo pipefail
runs=${1:-5}
trips=${2:-200000}
cpu=${3:-0}
pipe_op_ns=2000   # gen_costs.hpp pipe_op
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/pp.c" <<'C'
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static long long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static void die(const char* what) { perror(what); exit(1); }
int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int tcp = strcmp(argv[1], "tcp") == 0;
  long n = atol(argv[2]);
  char c = 'x';
  int a_rd, a_wr, b_rd, b_wr;
  if (tcp) {
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in s = {0};
    s.sin_family = AF_INET;
    s.sin_addr.s_addr = htonl(0x7f000001);
    socklen_t len = sizeof s;
    if (l < 0 || bind(l, (void*)&s, sizeof s) || listen(l, 1) || getsockname(l, (void*)&s, &len)) die("listen");
    int cfd = socket(AF_INET, SOCK_STREAM, 0);
    if (cfd < 0 || connect(cfd, (void*)&s, sizeof s)) die("connect");
    int sfd = accept(l, 0, 0);
    if (sfd < 0) die("accept");
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    a_rd = a_wr = cfd;
    b_rd = b_wr = sfd;
  } else {
    int p1[2], p2[2];
    if (pipe(p1) || pipe(p2)) die("pipe");
    a_wr = p1[1]; b_rd = p1[0]; b_wr = p2[1]; a_rd = p2[0];
  }
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    for (long i = 0; i < n; i++)
      if (read(b_rd, &c, 1) != 1 || write(b_wr, &c, 1) != 1) _exit(1);
    _exit(0);
  }
  long long t0 = now();
  for (long i = 0; i < n; i++)
    if (write(a_wr, &c, 1) != 1 || read(a_rd, &c, 1) != 1) die("ping-pong");
  long long t1 = now();
  int st;
  waitpid(child, &st, 0);
  printf("%.0f\n", (double)(t1 - t0) / n);
  return 0;
}
C
cc -O2 -o "$dir/pp" "$dir/pp.c"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
pipe_rt=$(for _ in $(seq "$runs"); do taskset -c "$cpu" "$dir/pp" pipe "$trips"; done | median)
tcp_rt=$(for _ in $(seq "$runs"); do taskset -c "$cpu" "$dir/pp" tcp "$trips"; done | median)
echo "pipe round trip (one CPU): ${pipe_rt} ns (median of $runs)"
echo "tcp round trip (one CPU):  ${tcp_rt} ns (median of $runs)"
echo "rr_op = ${pipe_op_ns} + (${tcp_rt} - ${pipe_rt}) / 2 = $(( pipe_op_ns + (tcp_rt - pipe_rt) / 2 )) ns"
