#!/usr/bin/env bash
# Runs inside `unshare --mount --propagation private --fork` (up.sh): hides the paths the kubelet,
# containerd and the CNI plugins hard-code behind tmpfs mounts of this namespace, masks the kernel
# tunables the kubelet would rewrite host-wide, then runs containerd, imports the images and runs the kubelet.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
# /run: containerd's shim sockets and runc state; /var/lib: kubelet device plugins, libcni's result cache;
# /var/log: the kubelet's /var/log/containers links.
for d in /run /var/lib /var/log; do mount -t tmpfs -o mode=0755 tmpfs "$d"; done
# Each tunable the kubelet (or the bridge plugin) would write: it reads the value it wants and writes nothing.
mask() {
  local path=/proc/sys/$1 want=$2
  [[ $(cat "$path") == "$want" ]] && return
  echo "$want" >"$W/sysctl/${1//\//.}"
  mount --bind "$W/sysctl/${1//\//.}" "$path"
}
mask vm/overcommit_memory 1
mask vm/panic_on_oom 0
mask kernel/panic 10
mask kernel/panic_on_oops 1
mask kernel/keys/root_maxkeys 1000000
mask kernel/keys/root_maxbytes 25000000
mask net/ipv4/ip_forward 1
readlink /proc/self/ns/mnt >"$W/node-ns.mnt"

stop() {
  [[ -n ${kubelet:-} ]] && kill -TERM "$kubelet" 2>/dev/null
  wait "${kubelet:-}" 2>/dev/null
  [[ -n ${containerd:-} ]] && kill -TERM "$containerd" 2>/dev/null
  wait "${containerd:-}" 2>/dev/null
  exit 0
}
trap stop TERM INT

# Any pull fails at once, locally: nothing is ever fetched from a registry.
HTTP_PROXY=http://127.0.0.1:1 HTTPS_PROXY=http://127.0.0.1:1 NO_PROXY= containerd --config "$W/containerd.toml" >"$W/logs/containerd.log" 2>&1 &
containerd=$!
CTR=(ctr --address "$W/containerd/containerd.sock" -n k8s.io)
wait_for 60 containerd "${CTR[@]}" version
# Import an archive only when its image ID changed since the last import into the kept root.
for name in pause mapintel mapintel-previous; do
  tar=$IMAGES/$name.tar stamp=$CONTAINERD_ROOT/imported-$name.id
  [[ -s $tar ]] || continue
  if [[ ! -f $stamp || $(cat "$stamp") != $(cat "$tar.id") ]]; then
    "${CTR[@]}" images import "$tar" >>"$W/logs/import.log" 2>&1
    cp "$tar.id" "$stamp"
  fi
done
"$NODE_BIN/kubelet" --config="$W/kubelet.yaml" --kubeconfig="$W/kubelet.kubeconfig" --root-dir="$W/kubelet" \
  --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" >"$W/logs/kubelet.log" 2>&1 &
kubelet=$!
wait "$kubelet" || true
stop
