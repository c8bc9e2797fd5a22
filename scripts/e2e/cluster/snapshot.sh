#!/usr/bin/env bash
# Prints the host state the e2e tier must leave as it found it: links, addresses, routes, nft tables,
# iptables, mounts, cgroups, the sysctls a node touches, and the paths a kubelet, containerd or CNI
# would create. run.mjs diffs one taken before `up` with one taken after `down`.
set -uo pipefail
echo "## links"; ip -o link show | awk '{print $2, $3}' | sed 's/@[^:]*:/:/' | sort
echo "## addresses"; ip -o addr show | awk '{print $2, $3, $4}' | sort
echo "## routes"; ip route show table all | grep -v '^local\|^broadcast\|^multicast\|^ff00\|^fe80' | sort
echo "## rules"; ip rule show; ip -6 rule show
echo "## nft"; nft list ruleset 2>&1
echo "## iptables"
for t in iptables-save ip6tables-save; do command -v $t >/dev/null && $t 2>/dev/null | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]//'; done
echo "## mounts"; awk '{print $5, $9, $10}' /proc/self/mountinfo | sort
echo "## cgroups"; for h in /sys/fs/cgroup/*/; do find "$h" -maxdepth 1 -mindepth 1 -type d; done | sort
echo "## netns"; ls /run/netns /var/run/netns 2>/dev/null
echo "## sysctls"
sysctl -a 2>/dev/null | grep -E '^(net\.ipv4\.ip_forward|net\.ipv4\.conf\.(all|default|lo|eth0)\.|net\.ipv6\.conf\.(all|default|lo|eth0)\.|net\.bridge\.|net\.netfilter\.nf_conntrack_(max|tcp_timeout|udp_timeout)|vm\.(overcommit|panic)|kernel\.(panic|keys\.root)|fs\.inotify\.|net\.ipv4\.vs\.)' | sort
echo "## paths"
for p in /var/lib/kubelet /var/lib/cni /var/log/pods /var/log/containers /run/containerd /run/netns /usr/libexec/kubernetes /etc/cni/net.d /etc/kubernetes /var/lib/containerd /opt/cni; do
  [[ -e $p ]] && echo "$p $(find "$p" | wc -l)"
done
echo "## listeners"; ss -Hltn 2>/dev/null | awk '{print $4}' | grep -E '^(10\.244\.|127\.0\.0\.1:(2379|23790|23800|6443|10248|10249|10250|10256|10257|10259|1[56]379|15432|9090))' | sort
echo "## processes of a cluster"; pgrep -af 'mapintel-e2e|10\.244\.0\.1' | cut -d' ' -f2- | sort
exit 0
