module seedclusterprobe

go 1.22

require (
	github.com/redis/go-redis/v9 v9.17.2
	github.com/vyr-e/backstage/packages/backstage-go v1.0.3
)

// The seed is not served by the Go module proxy: point SEED_GO_DIR at a checkout of Vyr-e/backstage
// (commit 01089f24550cbb71ae35f34fb4c3aec846f99f6c) with `go mod edit -replace` (see run.sh).
