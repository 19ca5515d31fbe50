# Toolchains and builds for the starter bots outside Python.
#
# Included from the top Makefile; also usable alone from the repository root:
#   make -f sample_bots/toolchains.mk toolchains bots bots-test
#
#   toolchains     install the Debian packages the C, Rust and Go bots link against
#                  (libzmq3-dev, libcjson-dev, pkg-config) when missing; needs root
#   bots           build every starter (bot-javascript bot-c bot-rust bot-go bot-java)
#   bots-test      run each starter's own tests against protocol/examples
#   bot-LANG       build one starter; bot-test-LANG runs its tests
#
# Every target is idempotent and quiet once things are built: the JavaScript and
# Java builds are guarded by stamp files, the others by their own build tools.

TC_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
TC_APT := libzmq3-dev libcjson-dev pkg-config
TC_LANGS := javascript c rust go java

.PHONY: sandbox toolchains bots bots-test $(addprefix bot-,$(TC_LANGS)) $(addprefix bot-test-,$(TC_LANGS))

# pkg-config answering for both libraries is enough (a non-Debian machine may have
# them from elsewhere); otherwise install the packages, which only root can do.
toolchains:
	@if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists libzmq libcjson; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "toolchains: installing $(TC_APT)"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq >/dev/null && apt-get install -y -qq $(TC_APT) >/dev/null; \
	else echo "toolchains: missing libzmq/libcjson; run as root or install: $(TC_APT)" >&2; exit 1; fi

# The bots' sandbox (docs/security.md): bubblewrap from Debian. Without root or apt-get it
# is left out, and the sandbox tests say so (a failure when CI=true).
sandbox:
	@if command -v bwrap >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "sandbox: installing bubblewrap"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq >/dev/null && apt-get install -y -qq bubblewrap >/dev/null; \
	else echo "sandbox: bubblewrap is missing; bots will run unsandboxed (see arena doctor)" >&2; fi

bots: $(addprefix bot-,$(TC_LANGS))

bots-test: $(addprefix bot-test-,$(TC_LANGS))

# --- JavaScript: npm `zeromq` 6 ships prebuilt binaries, so its install script
# (a from-source fallback) is not needed; --ignore-scripts keeps npm from asking.
TC_JS := $(TC_DIR)/javascript
bot-javascript: $(TC_JS)/node_modules/.arena-stamp
$(TC_JS)/node_modules/.arena-stamp: $(TC_JS)/package.json $(TC_JS)/package-lock.json
	cd $(TC_JS) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@
bot-test-javascript: bot-javascript
	cd $(TC_JS) && node --test

# --- C: libzmq + cJSON from Debian.
bot-c: toolchains
	@$(MAKE) -s -C $(TC_DIR)/c
bot-test-c: toolchains
	@$(MAKE) -s -C $(TC_DIR)/c test

# --- Rust: the `zmq` crate binds the system libzmq through pkg-config. Offline
# first, so a machine with the crates cached builds without the network.
TC_RS := $(TC_DIR)/rust
bot-rust: toolchains
	@cd $(TC_RS) && { cargo build --release --locked --offline --quiet 2>/dev/null \
	  || cargo build --release --locked --quiet; }
bot-test-rust: bot-rust
	cd $(TC_RS) && cargo test --release --locked --quiet

# --- Go: github.com/pebbe/zmq4 (cgo) binds the system libzmq.
TC_GO := $(TC_DIR)/go
bot-go: toolchains
	@cd $(TC_GO) && go build -mod=readonly -o bot .
bot-test-go: bot-go
	cd $(TC_GO) && go test -mod=readonly ./...

# --- Java: JeroMQ (pure Java) + org.json, packaged as one runnable jar.
TC_JAVA := $(TC_DIR)/java
TC_JAVA_JAR := $(TC_JAVA)/target/bot.jar
bot-java: $(TC_JAVA_JAR)
$(TC_JAVA_JAR): $(TC_JAVA)/pom.xml $(shell find $(TC_JAVA)/src/main -type f 2>/dev/null)
	cd $(TC_JAVA) && mvn -q -B -DskipTests package
bot-test-java: bot-java
	cd $(TC_JAVA) && mvn -q -B test
