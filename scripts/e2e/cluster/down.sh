#!/usr/bin/env bash
# Tears the e2e cluster down and removes every trace on the host: processes, pods' cgroups, nft
# tables, the bridge and its route, the run folder. Safe to run at any point, and more than once.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
t0=$SECONDS
pidof_file() { [[ -f $W/pids/$1.pid ]] && cat "$W/pids/$1.pid"; }
# stop NAME...: TERM, up to 15 s, then KILL.
stop() {
  local pids=() p
  for n in "$@"; do p=$(pidof_file "$n") && kill -0 "$p" 2>/dev/null && pids+=("$p"); done
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null
  for _ in $(seq 30); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.5
  done
  kill -KILL "${pids[@]}" 2>/dev/null
}
# Every process still in the node's mount namespace (containerd's shims outlive it) or in a pod cgroup.
leftovers() {
  local ns
  ns=$(cat "$W/node-ns.mnt" 2>/dev/null || true)
  if [[ -n $ns ]]; then
    for d in /proc/[0-9]*; do
      [[ $(readlink "$d/ns/mnt" 2>/dev/null) == "$ns" ]] && echo "${d#/proc/}"
    done
  fi
  for h in /sys/fs/cgroup/*/; do
    [[ -d $h/$CGROUP_ROOT ]] && find "$h/$CGROUP_ROOT" -name cgroup.procs -exec cat {} + 2>/dev/null
  done | sort -u
}

stop kube-proxy
stop node-ns
for sig in TERM KILL; do
  pids=$(leftovers)
  [[ -z $pids ]] && break
  kill "-$sig" $pids 2>/dev/null
  for _ in $(seq 20); do [[ -z $(leftovers) ]] && break; sleep 0.5; done
done
stop kube-scheduler kube-controller-manager
stop kube-apiserver
# socat forks a child per connection, which outlives its parent: the children first.
for n in socat-pg socat-redis; do p=$(pidof_file "$n") && pkill -KILL -P "$p" 2>/dev/null; done
stop etcd socat-pg socat-redis prometheus
# kube-proxy's own tables (nftables mode), then ours.
for t in "ip kube-proxy" "ip6 kube-proxy" "ip $NFT_TABLE"; do nft delete table $t 2>/dev/null; done
ip link show "$BR" >/dev/null 2>&1 && ip link delete "$BR"
# Pod cgroups, deepest first, in every hierarchy.
for h in /sys/fs/cgroup/*/; do
  [[ -d $h/$CGROUP_ROOT ]] && find "$h/$CGROUP_ROOT" -depth -type d -exec rmdir {} + 2>/dev/null
  [[ -d $h/$CGROUP_ROOT ]] && log "cgroup $h$CGROUP_ROOT could not be removed"
done
# The logs outlive the run folder, for a failed run.
if [[ -d $W/logs ]]; then rm -rf "$ROOT/.test-results/e2e-logs"; mkdir -p "$ROOT/.test-results"; cp -r "$W/logs" "$ROOT/.test-results/e2e-logs"; fi
rm -rf "$W"
log "down in $((SECONDS - t0)) s"
