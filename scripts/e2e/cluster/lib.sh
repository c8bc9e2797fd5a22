# Settings of the e2e tier's single-node cluster (sourced by up.sh, node-ns.sh, down.sh, snapshot.sh).
# Every name is the project's own, so nothing here can collide with another cluster on the machine.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
CACHE=${MAPINTEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mapintel}
W=${E2E_RUN_DIR:-/tmp/mapintel-e2e}          # per-run folder: pki, configs, etcd, logs, pids; removed by down.sh
P=$W/pki
IMAGES=$CACHE/images
CONTAINERD_ROOT=$CACHE/containerd-root       # kept between runs: imported images stay
KUBE_BIN=$(node "$ROOT/scripts/e2e/node-tools.mjs" --path kube-apiserver | xargs dirname)
NODE_BIN=$(node "$ROOT/scripts/e2e/node-tools.mjs" --path kubelet | xargs dirname)
BR=mapintel0                                 # the node's bridge; its address is the node IP
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SVC_CIDR=10.96.0.0/24
NODE_NAME=mapintel-e2e
CGROUP_ROOT=mapintel-e2e                     # kubelet cgroupRoot, in every cgroup hierarchy
NFT_TABLE=mapintel-e2e                       # our own nft table (forward drop off the bridge)
ETCD_PORT=23790
ETCD_PEER_PORT=23800
PG_PORT=15432                                # socat on the node IP to the host's PostgreSQL (127.0.0.1:5432)
REDIS_PORT=16379                             # likewise Redis (127.0.0.1:6379)
KUBECONFIG_ADMIN=$W/admin.kubeconfig

log() { echo "cluster: $*" >&2; }
die() { echo "cluster: $*" >&2; exit 1; }

# Starts a background process with its log and pid file: start NAME cmd args...
start() {
  local name=$1; shift
  mkdir -p "$W/logs" "$W/pids"
  nohup "$@" >"$W/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$W/pids/$name.pid"
}

# Waits until a command succeeds: wait_for SECONDS what cmd args...
wait_for() {
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < end)) || die "$what not ready after $secs s (logs in $W/logs)"
    sleep 0.5
  done
}
