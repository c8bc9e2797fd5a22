#!/usr/bin/env bash
# Certificates and kubeconfigs of the e2e cluster: one CA (EC P-256, 7 days), serving certs for the
# apiserver and the kubelet, client certs for every component and the admin. Seconds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
mkdir -p "$P"
cd "$P"
key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1.key" 2>/dev/null; }
key ca
openssl req -x509 -new -key ca.key -subj /CN=mapintel-e2e-ca -days 7 -out ca.crt 2>/dev/null
# cert NAME SUBJECT [SANS]
cert() {
  key "$1"
  openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=digitalSignature,keyEncipherment"
    if [[ -n ${3:-} ]]; then echo "extendedKeyUsage=serverAuth,clientAuth"; echo "subjectAltName=$3"; else echo "extendedKeyUsage=clientAuth"; fi
  } >"$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 7 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
cert apiserver /CN=kube-apiserver "IP:$NODE_IP,IP:127.0.0.1,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost"
cert kubelet-server "/CN=system:node:$NODE_NAME" "IP:$NODE_IP,DNS:$NODE_NAME"
cert admin /O=system:masters/CN=admin
cert apiserver-kubelet-client /O=system:masters/CN=kube-apiserver-kubelet-client
cert controller-manager /CN=system:kube-controller-manager
cert scheduler /CN=system:kube-scheduler
cert kube-proxy /CN=system:kube-proxy
cert kubelet "/O=system:nodes/CN=system:node:$NODE_NAME"
key sa
openssl ec -in sa.key -pubout -out sa.pub 2>/dev/null
kubeconfig() {
  cat >"$W/$1.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://$NODE_IP:6443", certificate-authority: "$P/ca.crt"}
users:
- name: $1
  user: {client-certificate: "$P/$2.crt", client-key: "$P/$2.key"}
contexts:
- name: e2e
  context: {cluster: e2e, user: $1, namespace: default}
current-context: e2e
KC
}
for c in admin controller-manager scheduler kube-proxy kubelet; do kubeconfig "$c" "$c"; done
