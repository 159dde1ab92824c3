package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/raftkv/raftkv/kv"
	"github.com/raftkv/raftkv/raft"
	"go.uber.org/zap"
)

func main() {
	id := flag.Uint64("id", 1, "node id")
	peers := flag.String("peers", "1=localhost:7001", "id=addr,...")
	tick := flag.Duration("tick", 100*time.Millisecond, "raft tick")
	inflight := flag.Int("max-inflight", 8, "max append messages in flight per follower")
	flag.Parse()

	logger, _ := zap.NewProduction()
	defer logger.Sync()

	var ids []uint64
	addrs := map[uint64]string{}
	for _, p := range strings.Split(*peers, ",") {
		parts := strings.SplitN(p, "=", 2)
		n, err := strconv.ParseUint(parts[0], 10, 64)
		if err != nil || len(parts) != 2 {
			logger.Fatal("bad --peers", zap.String("value", p))
		}
		ids = append(ids, n)
		addrs[n] = parts[1]
	}

	node := raft.StartNode(&raft.Config{ID: *id, Peers: ids, ElectionTick: 10, HeartbeatTick: 1, MaxInflight: *inflight, Logger: logger})
	store := kv.NewStore(logger)
	transport := kv.NewTCPTransport(*id, addrs, node, logger)
	server := kv.NewServer(node, store, transport, logger)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go node.RunTicker(ctx, *tick)
	go transport.Listen(ctx)
	server.Run(ctx)
}
