#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine, for testing sharded sweeps (Slurm job arrays).
#   scripts/slurm-local.sh start [STATE_DIR]   install slurm-wlm + munge if missing (root), start
#                                              munged (as the munge user), slurmctld and slurmd
#                                              with a private slurm.conf in STATE_DIR; prints
#                                              `export SLURM_CONF=...` for the caller to eval
#   scripts/slurm-local.sh stop [STATE_DIR]    stop the three daemons by the PIDs it recorded
#   scripts/slurm-local.sh status [STATE_DIR]  sinfo of the local cluster
# STATE_DIR defaults to /tmp/schedsim-slurm. Nothing outside STATE_DIR and /run/munge is written:
# the system's /etc/slurm/slurm.conf, if any, is left alone (the tools read $SLURM_CONF).
# Exit codes: 0 ok, 1 failure (the message says which daemon and where its log is),
#             77 cannot run here (not root, or a daemon cannot start in this sandbox).
set -euo pipefail

cmd=${1:-}
state=${2:-/tmp/schedsim-slurm}
conf="$state/slurm.conf"
die() { echo "slurm-local.sh: $*" >&2; exit 1; }
skip() { echo "slurm-local.sh: SKIP: $*" >&2; exit 77; }

stop_pidfile() {  # stop_pidfile FILE NAME: TERM, then KILL after 5 s; never touches another PID
  local f=$1 name=$2 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { echo "slurm-local.sh: $name ($pid) ignored TERM, killing" >&2; kill -KILL "$pid" 2>/dev/null || true; }
  fi
  rm -f "$f"
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local secs=$1 what=$2; shift 2
  for _ in $(seq $((secs * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

case "$cmd" in
  start)
    [ "$(id -u)" -eq 0 ] || skip "needs root to start munged and slurmd"
    # munged (as the munge user) opens /dev/null; a program that renamed a regular file over it
    # (as root) makes it fail with "Failed to open /dev/null: Permission denied".
    [ -c /dev/null ] || die "/dev/null is not a character device (something replaced it with a regular file); restore it: rm /dev/null && mknod -m 666 /dev/null c 1 3"
    missing=()
    for p in slurm-wlm munge; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
      echo "slurm-local.sh: installing ${missing[*]}" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install ${missing[*]} failed"
    fi
    mkdir -p "$state"/{spool,ctld,log}
    "$0" stop "$state" >/dev/null 2>&1 || true

    # munge: the key must be owned by munge and 0400; munged refuses to run as root.
    [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key >/dev/null
    chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
    install -d -o munge -g munge -m 0755 /run/munge
    install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
    if ! pgrep -u munge -x munged >/dev/null; then
      runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/schedsim-munged.pid \
        || die "munged did not start (see /var/log/munge/munged.log)"
      cp /run/munge/schedsim-munged.pid "$state/munged.pid"
    fi
    wait_for 10 munge sh -c 'munge -n | unmunge' || die "munge does not answer (see /var/log/munge/munged.log)"

    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
    cat > "$conf" <<EOF
# Written by scripts/slurm-local.sh: a one-node cluster for schedsim's sweep tests.
ClusterName=schedsim-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CryptoType=crypto/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldPort=46817
SlurmdPort=46818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MaxArraySize=10001
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$conf
    /usr/sbin/slurmctld -f "$conf" || die "slurmctld did not start (see $state/log/slurmctld.log)"
    wait_for 15 slurmctld scontrol ping || die "slurmctld does not answer (see $state/log/slurmctld.log)"
    /usr/sbin/slurmd -f "$conf" || die "slurmd did not start (see $state/log/slurmd.log)"
    if ! wait_for 30 slurmd sh -c "sinfo -h -o %T -n $host | grep -Eq '^(idle|mixed|allocated)'"; then
      scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
      wait_for 10 slurmd sh -c "sinfo -h -o %T -n $host | grep -Eq '^(idle|mixed|allocated)'" \
        || die "node $host is not idle: $(sinfo -h -o '%T %E' -n "$host") (see $state/log/slurmd.log)"
    fi
    echo "export SLURM_CONF=$conf"
    ;;
  stop)
    stop_pidfile "$state/slurmd.pid" slurmd
    stop_pidfile "$state/slurmctld.pid" slurmctld
    stop_pidfile "$state/munged.pid" munged
    ;;
  status)
    SLURM_CONF=$conf sinfo
    ;;
  *)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
