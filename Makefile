# The two commands the README promises: `make run` and `make test`. Both install what is
# missing first (scripts/setup.sh), so they work on a fresh Debian machine.
BUILD ?= build
TYPE ?= Release
JOBS ?= $(shell nproc)
# Most test entries wait on round trips between a client and two servers: at one entry
# per core, a third of the CPU idled (2 cores: ctest 264 s at -j 2, 202 s at -j 4).
TEST_JOBS ?= $(shell echo $$(( 2 * $$(nproc) )))

.PHONY: run test setup build bench clean

setup:
	@bash scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(TYPE) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/ringcache --bind 127.0.0.1 --port 6379

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) --timeout 600

# The 5 rounds of docs/PERFORMANCE.md's table.
bench: build
	BUILD=$(BUILD) bash bench/vs_redis.sh --rounds 5

clean:
	rm -rf $(BUILD) build-*
