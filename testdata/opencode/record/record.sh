#!/usr/bin/env bash
# Records an OpenCode 0.x store (the per-project layout) with the real CLI, offline.
#
#   testdata/opencode/record/record.sh VERSION [OUT_DIR [THEN_VERSION]]
#
# VERSION is an `opencode-ai` npm version that writes `project/<slug>/storage/session/…`
# (0.1.174 and 0.5.29 are the ones the registry has). OUT_DIR defaults to
# testdata/opencode/VERSION and receives local-share-opencode/, run.log and
# opencode.json.config. With THEN_VERSION (e.g. 1.0.0), that version then runs once with
# `--continue` in the git project, as a user upgrading would: its storage migration copies the
# per-project sessions into the `storage/session/<projectID>/` layout next to the old files.
#
# Everything runs against mock_anthropic.py on 127.0.0.1 in a throwaway HOME. What these old
# versions fetch at run time is supplied beforehand, pinned, or switched off:
#   - `rg`: taken from PATH, else from the distribution's ripgrep package (apt-get download);
#   - the provider SDK: 0.x and 1.0.0 install `@ai-sdk/anthropic@latest` into their cache at
#     first use, and today's latest no longer fits their AI SDK; a cache that already lists it
#     as "latest" is used as is, so the script installs the release of that time there;
#   - the default auth plugins (0.5+): OPENCODE_DISABLE_DEFAULT_PLUGINS=1 (unused with a key);
#   - anything else (the models.dev refresh) meets a closed proxy port and fails at once.
# The project directories are fixed, neutral paths: /tmp/demo-project (a git repo) and
# /tmp/demo-notes (not a repo, so OpenCode files it under its "global" project).
set -euo pipefail

VERSION=${1:?usage: record.sh VERSION [OUT_DIR [THEN_VERSION]]}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
OUT=${2:-$REPO/testdata/opencode/$VERSION}
THEN=${3:-}
PORT=${PORT:-18091}

case $VERSION in
0.1.*) SDK=1.2.12 ;; # AI SDK 4 (LanguageModelV1)
*) SDK=2.0.0 ;;      # AI SDK 5 (LanguageModelV2), also what 1.0.0 uses
esac
if [ -n "$THEN" ] && [ "$SDK" != 2.0.0 ]; then
	echo "an upgrade run needs a 0.5-style store (1.0 does not migrate 0.1.x messages)" >&2
	exit 2
fi

# install VERSION: the CLI, pinned, installed once under target/; prints its binary.
install() {
	local cache=$REPO/target/agents/opencode-$1
	if [ ! -x "$cache/node_modules/opencode-linux-x64/bin/opencode" ]; then
		mkdir -p "$cache"
		(cd "$cache" && npm install --no-audit --no-fund --no-package-lock "opencode-ai@$1" >/dev/null 2>&1)
	fi
	echo "$cache/node_modules/opencode-linux-x64/bin/opencode"
}
OPENCODE=$(install "$VERSION")
NEXT=""
[ -z "$THEN" ] || NEXT=$(install "$THEN")

if ! command -v rg >/dev/null; then
	RG=$REPO/target/agents/ripgrep
	if [ ! -x "$RG/usr/bin/rg" ]; then
		mkdir -p "$RG"
		(cd "$RG" && apt-get download ripgrep >/dev/null 2>&1 && dpkg -x ripgrep_*.deb .)
	fi
	export PATH=$RG/usr/bin:$PATH
fi

# --- a throwaway home ------------------------------------------------------------------------
WORK=$(mktemp -d)
export HOME=$WORK/home TMPDIR=$WORK/tmp
export XDG_DATA_HOME=$HOME/.local/share XDG_CONFIG_HOME=$HOME/.config
export XDG_CACHE_HOME=$HOME/.cache XDG_STATE_HOME=$HOME/.local/state
mkdir -p "$TMPDIR" "$XDG_CACHE_HOME/opencode"
(cd "$XDG_CACHE_HOME/opencode" &&
	npm install --no-audit --no-fund --no-package-lock "@ai-sdk/anthropic@$SDK" >/dev/null 2>&1 &&
	printf '{\n  "dependencies": {\n    "@ai-sdk/anthropic": "latest"\n  }\n}\n' >package.json)
# 0.5 and 1.0 empty their cache at start unless `version` holds their CACHE_VERSION (both "9").
CACHE_VERSION=$(grep -a -o -m1 'CACHE_VERSION = "[0-9]*"' "$OPENCODE" | grep -o '[0-9][0-9]*' || true)
[ -z "$CACHE_VERSION" ] || printf %s "$CACHE_VERSION" >"$XDG_CACHE_HOME/opencode/version"

CONFIG=$(
	cat <<EOF
{
  "\$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-20250514",
  "autoupdate": false,
  "provider": {"anthropic": {"options": {"baseURL": "http://127.0.0.1:$PORT/v1", "apiKey": "sk-ant-mock"}, "models": {"claude-sonnet-4-20250514": {}}}}
}
EOF
)
mkdir -p "$XDG_CONFIG_HOME/opencode"
# 0.1.x reads config.json there; later versions opencode.json. Both are the same file.
echo "$CONFIG" >"$XDG_CONFIG_HOME/opencode/config.json"
echo "$CONFIG" >"$XDG_CONFIG_HOME/opencode/opencode.json"

rm -rf /tmp/demo-project /tmp/demo-notes
mkdir -p /tmp/demo-project /tmp/demo-notes
(cd /tmp/demo-project && git init -q && echo "# demo" >README.md && git add README.md &&
	git -c user.name=demo -c user.email=demo@example.invalid commit -qm init)
echo "buy milk" >/tmp/demo-notes/todo.txt

export OPENCODE_DISABLE_DEFAULT_PLUGINS=1
export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost
python3 "$HERE/mock_anthropic.py" "$PORT" "$WORK/requests.jsonl" &
MOCK=$!
trap 'kill $MOCK 2>/dev/null || true' EXIT
sleep 1

LOG=$WORK/run.log
: >"$LOG"
logs() { ls "$XDG_DATA_HOME"/opencode/log/*.log 2>/dev/null || true; } # names sort by time
# run BINARY DIR ARGS...: one `opencode run`, logged with its output and exit code. 0.1.x does
# not exit on its own after answering (its git file watcher stays open), so once OpenCode's log
# shows its own shutdown line the process is stopped by pid, and the log says so.
run() {
	local bin=$1 dir=$2 pid i stopped="" before rc
	shift 2
	echo "### $("$bin" --version 2>/dev/null | tail -n 1): (cd $dir) run $*" >>"$LOG"
	before=$(logs | wc -l)
	(cd "$dir" && exec "$bin" run "$@" </dev/null >>"$LOG" 2>&1) &
	pid=$!
	for i in $(seq 1 360); do
		kill -0 "$pid" 2>/dev/null || break
		if [ "$(logs | wc -l)" -gt "$before" ] &&
			grep -q 'service=app name=mcp shutdown' "$(logs | tail -n 1)"; then
			sleep 2
			kill "$pid" 2>/dev/null && stopped=" (stopped after its shutdown log line)"
			break
		fi
		sleep 0.5
	done
	if [ -z "$stopped" ] && kill "$pid" 2>/dev/null; then
		stopped=" (timed out)"
	fi
	set +e
	wait "$pid"
	rc=$?
	set -e
	printf '\nrc=%s%s\n' "$rc" "$stopped" >>"$LOG"
}
# The newest session of a project folder (ids sort by creation time, descending).
newest() {
	ls "$XDG_DATA_HOME"/opencode/project/"$1"/storage/session/info | sort | head -1 | sed 's/\.json$//'
}

run "$OPENCODE" /tmp/demo-project "TOOL List the files here and show README.md"
S1=$(newest tmp-demo-project)
run "$OPENCODE" /tmp/demo-project --session "$S1" "CHAT what did you find?"
run "$OPENCODE" /tmp/demo-project "THINK give me a short answer"
run "$OPENCODE" /tmp/demo-project "EDIT create and edit hello.txt"
if [[ $VERSION != 0.1.* ]]; then # 0.1.x has no task tool
	run "$OPENCODE" /tmp/demo-project "SUBAGENT please delegate counting lines in README.md"
fi
run "$OPENCODE" /tmp/demo-notes "TOOL List the notes here and show todo.txt"
run "$OPENCODE" /tmp/demo-notes --continue "CHAT and now?"
if [ -n "$NEXT" ]; then
	run "$NEXT" /tmp/demo-project --continue "CHAT after the upgrade"
fi

# --- OpenCode's own view, the tests' oracle ---------------------------------------------------
ORACLE=$WORK/oracle
mkdir -p "$ORACLE"
# serve_dump DIR NAME: the version's own server (`opencode serve`) in DIR; its session list and
# each session's messages go to server/NAME/. Stopped by pid afterwards.
serve_dump() {
	local dir=$1 out=$ORACLE/server/$2 sport=$((PORT + 1)) pid i id
	mkdir -p "$out"
	(cd "$dir" && exec "$OPENCODE" serve --port "$sport" --hostname 127.0.0.1 </dev/null >/dev/null 2>&1) &
	pid=$!
	for i in $(seq 1 60); do
		curl -sf "http://127.0.0.1:$sport/session" -o "$out/sessions.json" && break
		sleep 0.5
	done
	for id in $(python3 -c 'import json,sys; [print(s["id"]) for s in json.load(open(sys.argv[1]))]' "$out/sessions.json"); do
		curl -sf "http://127.0.0.1:$sport/session/$id/message" -o "$out/$id.json"
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	echo "### $("$OPENCODE" --version | tail -n 1): (cd $dir) serve: GET /session and /session/<id>/message -> server/$2/" >>"$LOG"
}
if [ -z "$NEXT" ]; then
	serve_dump /tmp/demo-project demo-project
	serve_dump /tmp/demo-notes demo-notes
else
	# 1.0 has `export`; it sees the sessions its migration copied (the git project's only).
	mkdir -p "$ORACLE/exports"
	for f in "$XDG_DATA_HOME"/opencode/storage/session/*/*.json; do
		id=$(basename "$f" .json)
		echo "### $("$NEXT" --version | tail -n 1): (cd /tmp/demo-project) export $id" >>"$LOG"
		(cd /tmp/demo-project && "$NEXT" export "$id" </dev/null >"$ORACLE/exports/$id.json" 2>>"$LOG") &&
			echo "rc=0" >>"$LOG" || echo "rc=$?" >>"$LOG"
	done
fi

# --- the fixture: the store minus logs, binaries and snapshot repos (git objects of the
# project, which no reader needs) ------------------------------------------------------------
rm -rf "$OUT/local-share-opencode"
mkdir -p "$OUT"
cp -r "$XDG_DATA_HOME/opencode" "$OUT/local-share-opencode"
rm -rf "$OUT/local-share-opencode/log" "$OUT/local-share-opencode/bin" \
	"$OUT/local-share-opencode/snapshot" "$OUT"/local-share-opencode/project/*/snapshots
sed -e "s#$WORK#\$WORK#g" "$LOG" >"$OUT/run.log"
rm -rf "$OUT/server" "$OUT/exports"
cp -r "$ORACLE"/* "$OUT/"
echo "$CONFIG" >"$OUT/opencode.json.config"
if find "$OUT/local-share-opencode" -name 'auth.json' | grep -q .; then
	echo "auth.json in the store: not saving it" >&2
	exit 1
fi
echo "recorded $VERSION${THEN:+ then $THEN} into $OUT (requests the mock saw: $WORK/requests.jsonl)"
