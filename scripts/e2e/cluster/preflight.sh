#!/usr/bin/env bash
# Says what the e2e tier needs and is missing on this machine: Debian packages and the cached
# Kubernetes binaries. Exit 1 when anything is missing.
#   preflight.sh                  everything
#   preflight.sh --packages       the Debian packages only
#   preflight.sh --list-packages  print the missing packages' names (for apt-get install), exit 0
set -uo pipefail
source "$(dirname "$0")/lib.sh"
missing=()
need() { command -v "$1" >/dev/null 2>&1 || [[ -x $1 ]] || missing+=("$2"); }
need containerd containerd
need ctr containerd
need containerd-shim-runc-v2 containerd
need runc runc
need /usr/lib/cni/bridge containernetworking-plugins
need /usr/lib/cni/host-local containernetworking-plugins
need /usr/lib/cni/loopback containernetworking-plugins
need nft nftables
need socat socat
need podman podman
need mmdebstrap mmdebstrap
need prometheus prometheus
need promtool prometheus
need ip iproute2
need openssl openssl
need unshare util-linux
need psql postgresql-client
need redis-cli redis-tools
if [[ ${1:-} == --list-packages ]]; then
  ((${#missing[@]})) && printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' '
  exit 0
fi
status=0
if ((${#missing[@]})); then
  pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  echo "missing Debian packages: $pkgs(apt-get update && apt-get install -y --no-install-recommends $pkgs)" >&2
  status=1
fi
[[ ${1:-} == --packages ]] && exit $status
bins=()
for b in kube-apiserver kube-controller-manager etcd kubectl helm; do [[ -x $KUBE_BIN/$b ]] || bins+=("$b"); done
for b in kubelet kube-scheduler kube-proxy pause; do [[ -x $NODE_BIN/$b ]] || bins+=("$b"); done
if ((${#bins[@]})); then
  echo "missing Kubernetes binaries: ${bins[*]} (make kube-tools builds the control plane into $KUBE_BIN; node scripts/e2e/node-tools.mjs the node's into $NODE_BIN)" >&2
  status=1
fi
[[ $(id -u) == 0 ]] || { echo "the e2e tier needs root (bridge, nft, mounts, cgroups)" >&2; status=1; }
exit $status
