#!/usr/bin/env bash
# Builds the project's Dockerfile with podman (Debian's package).
#
#   scripts/e2e/image.sh                 FROM node:24-slim (the Dockerfile's default base; needs a registry)
#   scripts/e2e/image.sh --local-base    FROM a local Debian bookworm + Node 24 base, built here once:
#                                        no image registry is reached (the e2e tier uses this)
#   scripts/e2e/image.sh --local-base --save
#                                        also writes the image and the node's pause image as archives
#                                        for containerd (only when an image's ID changed)
#   scripts/e2e/image.sh --local-base --save --context DIR --archive NAME
#                                        builds DIR's Dockerfile (another release's tree, e.g. from
#                                        `git archive`) and saves it as NAME.tar beside the others
#
# Caches live outside the clone ($MAPINTEL_CACHE_DIR, else $XDG_CACHE_HOME/mapintel, else
# ~/.cache/mapintel): the Debian base archive (mmdebstrap, minutes) and the saved archives.
# Builds use --network=host for `npm ci` (the npm registry), so podman makes no network of its own.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${MAPINTEL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mapintel}
IMAGES=$CACHE/images
IMAGE=${MAPINTEL_IMAGE:-localhost/mapintel:dev}
LOCAL_BASE=localhost/mapintel-node-base:24
DEBIAN_BASE=localhost/mapintel-debian-base:bookworm
local_base=0
save=0
context=$ROOT
archive=mapintel
while (($#)); do
  case $1 in
    --local-base) local_base=1 ;;
    --save) save=1 ;;
    --context) context=$(cd "$2" && pwd); shift ;;
    --archive) archive=$2; shift ;;
    *) echo "image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$IMAGES"
say() { echo "image: $*" >&2; }
# No CAP_SYS_RESOURCE here: podman's default raised rlimits would fail every RUN step.
ULIMITS=(--ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
command -v podman >/dev/null || { echo "image.sh: podman is missing (apt-get install podman)" >&2; exit 1; }

debian_base() {
  podman image exists "$DEBIAN_BASE" && return
  local tar=$IMAGES/debian-bookworm-minbase.tar
  if [[ ! -s $tar ]]; then
    command -v mmdebstrap >/dev/null || { echo "image.sh: mmdebstrap is missing (apt-get install mmdebstrap)" >&2; exit 1; }
    say "building the Debian bookworm base with mmdebstrap (once: several minutes)"
    # The output's format follows its name's extension: keep .tar last.
    mmdebstrap --quiet --variant=minbase --include=ca-certificates bookworm "${tar%.tar}.partial.tar"
    mv "${tar%.tar}.partial.tar" "$tar"
  fi
  podman import --quiet "$tar" "$DEBIAN_BASE" >/dev/null
}

node_base() {
  podman image exists "$LOCAL_BASE" && return
  debian_base
  local node ctx
  node=$(command -v node)
  [[ $("$node" -p 'process.versions.node.split(".")[0]') == 24 ]] || { echo "image.sh: Node 24 is needed on PATH (make node)" >&2; exit 1; }
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' RETURN
  say "building $LOCAL_BASE: $DEBIAN_BASE plus Node $("$node" --version) and npm from the npm registry"
  cp "$(readlink -f "$node")" "$ctx/node"
  (cd "$ctx" && npm pack --silent npm@11 >/dev/null && mkdir npm && tar -xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz)
  cat >"$ctx/Containerfile" <<EOF
FROM $DEBIAN_BASE
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
CMD ["node"]
EOF
  podman build --quiet --network=none "${ULIMITS[@]}" -t "$LOCAL_BASE" "$ctx" >/dev/null
}

pause_image() {
  podman image exists localhost/pause:local && return
  local ctx bin
  bin=$(node "$ROOT/scripts/e2e/node-tools.mjs" --path pause)
  ctx=$(mktemp -d)
  trap 'rm -rf "$ctx"' RETURN
  cp "$bin" "$ctx/pause"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$ctx/Containerfile"
  podman build --quiet --network=none -t localhost/pause:local "$ctx" >/dev/null
}

# Saves an image as a docker-archive for `ctr images import`, only when its ID changed.
save_image() {
  local name=$1 file=$2 id
  id=$(podman image inspect --format '{{.Id}}' "$name")
  if [[ -s $file && -f $file.id && $(cat "$file.id") == "$id" ]]; then return; fi
  podman save --quiet --format docker-archive -o "$file.partial" "$name"
  mv "$file.partial" "$file"
  echo "$id" >"$file.id"
}

started=$SECONDS
args=(build --network=host "${ULIMITS[@]}" -t "$IMAGE" -f "$context/Dockerfile")
if ((local_base)); then
  node_base
  args+=(--build-arg "BASE=$LOCAL_BASE")
fi
# A machine whose npm trusts an extra CA (a TLS-inspecting egress proxy) lends it to the build's `npm ci`
# steps through a mounted global npmrc: nothing of it is committed to the image.
cafile=$(npm config get cafile 2>/dev/null || true)
[[ -f $cafile ]] || cafile=${NODE_EXTRA_CA_CERTS:-}
if [[ -n $cafile && -f $cafile ]]; then
  npmrc_dir=$(mktemp -d)
  trap 'rm -rf "$npmrc_dir"' EXIT
  echo "cafile=/etc/ssl/npm-build-ca.crt" >"$npmrc_dir/npmrc"
  args+=(--volume "$cafile:/etc/ssl/npm-build-ca.crt:ro" --volume "$npmrc_dir/npmrc:/usr/local/etc/npmrc:ro")
fi
say "building $IMAGE from the Dockerfile${local_base:+ }$( ((local_base)) && echo "(base $LOCAL_BASE)")"
podman "${args[@]}" "$context" >"$IMAGES/build-$archive.log" 2>&1 || { tail -30 "$IMAGES/build-$archive.log" >&2; echo "image.sh: podman build failed (whole log: $IMAGES/build-$archive.log)" >&2; exit 1; }
if ((save)); then
  pause_image
  save_image "$IMAGE" "$IMAGES/$archive.tar"
  save_image localhost/pause:local "$IMAGES/pause.tar"
fi
say "$IMAGE $(podman image inspect --format '{{.Id}}' "$IMAGE" | cut -c1-12) in $((SECONDS - started)) s"
