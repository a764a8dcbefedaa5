// Command seed-cluster-probe drives the released seed Go SDK (v1.0.3) against a Redis Cluster through a key prefix
// that is a hash tag ({backstage}): every seed key then hashes to one slot, so the seed's single-node go-redis
// client can talk to the one primary that owns that slot.
//
//	seed-cluster-probe owner   <host:port> <key>                        # prints host:port of the primary owning key's slot
//	seed-cluster-probe enqueue <host:port> <prefix> <queue> <n> <delayed> # seed Client.Enqueue n jobs, and delayed ones due in 1 s
//	seed-cluster-probe consume <host:port> <prefix> <queue> <n> <seconds> # seed worker: runs jobs until n ran and none is pending
//
// tools/seed-cluster-probe/run.sh builds it and runs dev.backstage.runtime.redis.SeedClusterInterop, which drives it.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	backstage "github.com/vyr-e/backstage/packages/backstage-go"
)

func main() {
	if len(os.Args) < 4 {
		fail(2, "usage: seed-cluster-probe owner|enqueue|consume <host:port> ...")
	}
	ctx := context.Background()
	addr := os.Args[2]
	switch os.Args[1] {
	case "owner":
		fmt.Println(owner(ctx, addr, os.Args[3]))
	case "enqueue":
		need(7)
		enqueue(ctx, addr, os.Args[3], os.Args[4], number(os.Args[5]), number(os.Args[6]))
	case "consume":
		need(7)
		consume(ctx, addr, os.Args[3], os.Args[4], number(os.Args[5]), number(os.Args[6]))
	default:
		fail(2, "unknown mode "+os.Args[1])
	}
}

// owner asks one cluster node for the slot map and returns the primary serving key's slot.
func owner(ctx context.Context, addr, key string) string {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	slot, err := rdb.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		fail(1, "CLUSTER KEYSLOT: "+err.Error())
	}
	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil {
		fail(1, "CLUSTER SLOTS: "+err.Error())
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr
		}
	}
	fail(1, fmt.Sprintf("no node serves slot %d", slot))
	return ""
}

// seed returns a seed client on addr: the seed's own constructor, a single-node go-redis client.
func seed(addr, prefix string, queues []string) *backstage.Client {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		fail(2, "address must be host:port: "+err.Error())
	}
	cfg := backstage.DefaultConfig()
	cfg.Host = host
	cfg.Port = number(portText)
	cfg.Prefix = prefix
	cfg.WorkerID = "seed-go"
	cfg.Queues = queues
	return backstage.New(cfg)
}

func enqueue(ctx context.Context, addr, prefix, queue string, n, delayed int) {
	client := seed(addr, prefix, nil)
	defer client.Close()
	for i := 0; i < n+delayed; i++ {
		opts := backstage.EnqueueOptions{Queue: queue}
		if i >= n {
			opts.Delay = time.Second
		}
		if _, err := client.Enqueue(ctx, "probe.fromSeed", map[string]int{"n": i}, opts); err != nil {
			fail(1, "enqueue: "+err.Error())
		}
	}
	fmt.Printf("seed-go enqueued %d jobs and %d delayed on %s:%s\n", n, delayed, prefix, queue)
}

func consume(ctx context.Context, addr, prefix, queue string, want, seconds int) {
	client := seed(addr, prefix, []string{queue})
	var mu sync.Mutex
	seen := map[int]int{}
	client.On("probe.fromJava", func(_ context.Context, payload json.RawMessage) (*backstage.WorkflowInstruction, error) {
		var p struct{ N int }
		if err := json.Unmarshal(payload, &p); err != nil {
			return nil, err
		}
		mu.Lock()
		seen[p.N]++
		mu.Unlock()
		return nil, nil
	})
	cfg := backstage.DefaultConsumerConfig()
	cfg.BlockTimeout = time.Second
	go func() {
		if err := client.Start(ctx, cfg); err != nil {
			fail(1, "start: "+err.Error())
		}
	}()
	check := redis.NewClient(&redis.Options{Addr: addr})
	stream := prefix + ":" + queue
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		distinct, runs := len(seen), 0
		for _, c := range seen {
			runs += c
		}
		mu.Unlock()
		pending, err := check.XPending(ctx, stream, "backstage-workers").Result()
		if err == nil && distinct >= want && pending.Count == 0 {
			fmt.Printf("seed-go ran %d distinct jobs (%d runs) from %s, XPENDING %d\n", distinct, runs, stream, pending.Count)
			os.Exit(0)
		}
		time.Sleep(100 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	fail(1, fmt.Sprintf("seed-go ran %d of %d jobs from %s within %d s", len(seen), want, stream, seconds))
}

func need(args int) {
	if len(os.Args) != args {
		fail(2, "wrong number of arguments; see the usage at the top of main.go")
	}
}

func number(text string) int {
	n, err := strconv.Atoi(text)
	if err != nil {
		fail(2, "not a number: "+text)
	}
	return n
}

func fail(code int, message string) {
	fmt.Fprintln(os.Stderr, "seed-cluster-probe:", message)
	os.Exit(code)
}
