// Command seed-broadcast-probe drives the released seed Go SDK (v1.0.3, master) against a Redis, so the Java
// runtime's broadcast can be checked against the real thing, both ways:
//
//	seed-broadcast-probe listen <host> <port> <workerID> <count>   # seed BroadcastListener; prints each message
//	seed-broadcast-probe send   <host> <port> <taskName> <json>    # seed Client.Broadcast (prefix "backstage")
//
// The seed listener is fixed to the stream backstage:broadcast, so run it against a Redis of its own.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	backstage "github.com/vyr-e/backstage/packages/backstage-go"
	"github.com/redis/go-redis/v9"
)

func main() {
	if len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: seed-broadcast-probe listen|send <host> <port> <workerID|taskName> <count|json>")
		os.Exit(2)
	}
	port, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "port must be a number:", err)
		os.Exit(2)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch os.Args[1] {
	case "listen":
		want, _ := strconv.Atoi(os.Args[5])
		rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("%s:%d", os.Args[2], port)})
		got := 0
		var listener *backstage.BroadcastListener
		listener = backstage.NewBroadcastListener(rdb, os.Args[4], func(_ context.Context, m backstage.BroadcastMessage) error {
			fmt.Printf("seed-go received id=%s taskName=%s payload=%s enqueuedAt=%d\n", m.ID, m.TaskName, m.Payload, m.EnqueuedAt)
			got++
			if got >= want {
				listener.Stop()
			}
			return nil
		}, backstage.DefaultBroadcastConfig())
		fmt.Println("seed-go listening")
		if err := listener.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "listen:", err)
			os.Exit(1)
		}
	case "send":
		var payload interface{}
		if err := json.Unmarshal([]byte(os.Args[5]), &payload); err != nil {
			fmt.Fprintln(os.Stderr, "payload must be JSON:", err)
			os.Exit(2)
		}
		cfg := backstage.DefaultConfig()
		cfg.Host = os.Args[2]
		cfg.Port = port
		client := backstage.New(cfg)
		defer client.Close()
		id, err := client.Broadcast(ctx, os.Args[4], payload)
		if err != nil {
			fmt.Fprintln(os.Stderr, "broadcast:", err)
			os.Exit(1)
		}
		fmt.Println("seed-go sent", id)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
