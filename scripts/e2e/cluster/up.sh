#!/usr/bin/env bash
# Starts the e2e tier's single-node cluster (shared/REAL-CLUSTER.md has the reasons for each step):
# bridge + nft belt, etcd, kube-apiserver, kube-controller-manager, kube-scheduler on the host;
# containerd and the kubelet in a private mount namespace (node-ns.sh); kube-proxy in nftables mode;
# socat from the node IP to the host's PostgreSQL and Redis. Run down.sh afterwards, even on failure.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bash "$(dirname "$0")/preflight.sh"
[[ ! -e $W ]] || die "$W exists: a cluster is running or was not torn down (scripts/e2e/cluster/down.sh)"
ip link show "$BR" >/dev/null 2>&1 && die "link $BR exists: run scripts/e2e/cluster/down.sh first"
mkdir -p "$W"/{logs,pids,cni/net.d,cni/ipam,containerd,kubelet,pod-logs,volume-plugins,flexvolume,etcd,sysctl}
t0=$SECONDS
bash "$(dirname "$0")/pki.sh"

# Network first: the apiserver binds to the node IP and the kubelet's --node-ip must exist.
ip link add "$BR" type bridge
ip addr add "$NODE_IP/24" dev "$BR"
ip link set "$BR" up
ip route add "$SVC_CIDR" dev "$BR"             # a ClusterIP with no rule dies here, not on the default route
sysctl -qw "net.ipv4.conf.$BR.forwarding=1"    # pod -> ClusterIP -> pod only; host-wide ip_forward stays as it is
nft -f - <<NFT
table ip $NFT_TABLE {
  chain forward {
    type filter hook forward priority -10; policy accept;
    iifname "$BR" oifname != "$BR" drop
    oifname "$BR" iifname != "$BR" drop
  }
}
NFT
cat >"$W/cni/net.d/10-mapintel.conflist" <<JSON
{"cniVersion": "1.0.0", "name": "mapintel-e2e", "plugins": [
  {"type": "bridge", "bridge": "$BR", "isGateway": true, "isDefaultGateway": false, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$W/cni/ipam",
            "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$NODE_IP"}]], "routes": [{"dst": "$SVC_CIDR"}]}}]}
JSON

# Host services for the pods (they listen on 127.0.0.1 only).
start socat-pg socat "TCP-LISTEN:$PG_PORT,bind=$NODE_IP,fork,reuseaddr" TCP:127.0.0.1:5432
start socat-redis socat "TCP-LISTEN:$REDIS_PORT,bind=$NODE_IP,fork,reuseaddr" TCP:127.0.0.1:6379

start etcd "$KUBE_BIN/etcd" --name=e2e --data-dir="$W/etcd" --listen-client-urls="http://127.0.0.1:$ETCD_PORT" \
  --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
  --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster="e2e=http://127.0.0.1:$ETCD_PEER_PORT" \
  --listen-metrics-urls= --unsafe-no-fsync --log-level=warn
start kube-apiserver "$KUBE_BIN/kube-apiserver" --etcd-servers="http://127.0.0.1:$ETCD_PORT" --bind-address="$NODE_IP" \
  --advertise-address="$NODE_IP" --secure-port=6443 --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" \
  --client-ca-file="$P/ca.crt" --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" --service-cluster-ip-range="$SVC_CIDR" \
  --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction --allow-privileged=true \
  --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
  --kubelet-certificate-authority="$P/ca.crt" --kubelet-preferred-address-types=InternalIP
K() { "$KUBE_BIN/kubectl" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }
wait_for 120 kube-apiserver K get --raw /readyz
log "apiserver ready after $((SECONDS - t0)) s"
start kube-controller-manager "$KUBE_BIN/kube-controller-manager" --kubeconfig="$W/controller-manager.kubeconfig" \
  --authentication-kubeconfig="$W/controller-manager.kubeconfig" --authorization-kubeconfig="$W/controller-manager.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port=10257 --leader-elect=false --use-service-account-credentials=true \
  --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" --cluster-signing-cert-file="$P/ca.crt" \
  --cluster-signing-key-file="$P/ca.key" --service-cluster-ip-range="$SVC_CIDR" --allocate-node-cidrs=false \
  --flex-volume-plugin-dir="$W/flexvolume"
start kube-scheduler "$NODE_BIN/kube-scheduler" --kubeconfig="$W/scheduler.kubeconfig" \
  --authentication-kubeconfig="$W/scheduler.kubeconfig" --authorization-kubeconfig="$W/scheduler.kubeconfig" \
  --bind-address=127.0.0.1 --secure-port=10259 --leader-elect=false

# The kubelet's cgroupRoot must exist in every hierarchy (cpuset: with the parent's cpus and mems).
for h in /sys/fs/cgroup/*/; do
  [[ -d $h/$CGROUP_ROOT ]] || mkdir "$h/$CGROUP_ROOT"
  if [[ -f $h/cpuset.cpus ]]; then
    cat "$h/cpuset.cpus" >"$h/$CGROUP_ROOT/cpuset.cpus"
    cat "$h/cpuset.mems" >"$h/$CGROUP_ROOT/cpuset.mems"
  fi
done

cat >"$W/containerd.toml" <<TOML
version = 2
root = "$CONTAINERD_ROOT"
state = "$W/containerd/state"
[grpc]
  address = "$W/containerd/containerd.sock"
[ttrpc]
  address = "$W/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:local"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  disable_apparmor = true
  enable_cdi = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        BinaryName = "$(command -v runc)"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$W/cni/net.d"
[plugins."io.containerd.internal.v1.opt"]
  path = "$W/containerd/opt"
TOML
cat >"$W/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
containerRuntimeEndpoint: unix://$W/containerd/containerd.sock
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 0
tlsCertFile: $P/kubelet-server.crt
tlsPrivateKeyFile: $P/kubelet-server.key
authentication: {anonymous: {enabled: false}, webhook: {enabled: true}, x509: {clientCAFile: $P/ca.crt}}
authorization: {mode: Webhook}
clusterDomain: cluster.local
resolvConf: ""
podLogsDir: $W/pod-logs
volumePluginDir: $W/volume-plugins
oomScoreAdj: 0
evictionHard: {memory.available: 100Mi, nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
makeIPTablesUtilChains: false
serializeImagePulls: false
YAML
cat >"$W/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
clientConnection: {kubeconfig: $W/kube-proxy.kubeconfig}
hostnameOverride: $NODE_NAME
clusterCIDR: $POD_CIDR
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
nodePortAddresses: ["$NODE_IP/32"]
oomScoreAdj: 0
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s, udpTimeout: 0s, udpStreamTimeout: 0s}
YAML

# containerd and the kubelet share one private mount namespace: none of their mounts reach the host.
start node-ns unshare --mount --propagation private --fork -- bash "$(dirname "$0")/node-ns.sh"
start kube-proxy "$NODE_BIN/kube-proxy" --config="$W/kube-proxy.yaml"
node_ready() { [[ $(K get node "$NODE_NAME" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null) == True ]]; }
wait_for 240 "node $NODE_NAME" node_ready
log "node Ready after $((SECONDS - t0)) s"
