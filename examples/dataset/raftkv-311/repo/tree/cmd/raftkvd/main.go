package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/raftkv/raftkv/api"
	"github.com/raftkv/raftkv/config"
	"github.com/raftkv/raftkv/kv"
	"github.com/raftkv/raftkv/metrics"
	"github.com/raftkv/raftkv/raft"
	"github.com/raftkv/raftkv/rpc"
	"go.uber.org/zap"
)

func main() {
	cfg, err := loadConfig(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftkvd:", err)
		os.Exit(2)
	}
	logger := newLogger(cfg.LogLevel)
	defer logger.Sync()
	logger.Info("starting raftkvd",
		zap.Uint64("id", cfg.ID),
		zap.Stringer("peers", cfg.Peers),
		zap.Int("max-inflight", cfg.MaxInflight),
		zap.Duration("election-timeout", cfg.ElectionTimeout()))

	node := raft.StartNode(&raft.Config{ID: cfg.ID, Peers: cfg.Peers.IDs(), ElectionTick: cfg.ElectionTicks, HeartbeatTick: cfg.HeartbeatTicks, MaxInflight: cfg.MaxInflight, Logger: logger})
	store := kv.NewStore(logger)
	transport := kv.NewTCPTransport(cfg.ID, cfg.Peers, node, logger)
	server := kv.NewServer(node, store, transport, logger)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go serveAPI(ctx, cfg, server, logger)
	go serveMetrics(ctx, cfg.MetricsAddr, logger)
	go node.RunTicker(ctx, cfg.TickInterval)
	go transport.Listen(ctx)
	server.Run(ctx)
}

// loadConfig applies the defaults, then the config file, then the flags, and validates.
func loadConfig(args []string) (*config.Config, error) {
	cfg := config.Default()
	if path := configFileArg(args); path != "" {
		if err := cfg.LoadFile(path); err != nil {
			return nil, err
		}
	}
	fs := flag.NewFlagSet("raftkvd", flag.ExitOnError)
	fs.String("config", "", "file of key = value lines; flags win over it")
	cfg.RegisterFlags(fs)
	fs.Parse(args)
	return cfg, cfg.Validate()
}

// configFileArg finds --config before flag parsing, so that the file is loaded first and
// the other flags override it.
func configFileArg(args []string) string {
	for i, a := range args {
		switch {
		case a == "--config" || a == "-config":
			if i+1 < len(args) {
				return args[i+1]
			}
		case strings.HasPrefix(a, "--config="):
			return strings.TrimPrefix(a, "--config=")
		case strings.HasPrefix(a, "-config="):
			return strings.TrimPrefix(a, "-config=")
		}
	}
	return ""
}

func newLogger(level string) *zap.Logger {
	zc := zap.NewProductionConfig()
	if err := zc.Level.UnmarshalText([]byte(level)); err != nil {
		fatal(err)
	}
	logger, err := zc.Build()
	if err != nil {
		fatal(err)
	}
	return logger
}

// serveAPI serves the client API until ctx is done, then drains calls for a second.
func serveAPI(ctx context.Context, cfg *config.Config, server *kv.Server, logger *zap.Logger) {
	svc := api.NewService(cfg.ID, server, cfg.Peers, cfg.RequestTimeout, metrics.Default, logger)
	srv := rpc.NewServer(rpc.ServerOptions{Interceptor: svc.Intercept, Logger: logger})
	svc.Register(srv)
	ln, err := net.Listen("tcp", cfg.ClientAddr)
	if err != nil {
		logger.Fatal("client API listen", zap.String("addr", cfg.ClientAddr), zap.Error(err))
	}
	go func() {
		<-ctx.Done()
		srv.Stop(time.Second)
	}()
	logger.Info("serving client API", zap.String("addr", cfg.ClientAddr))
	if err := srv.Serve(ln); err != nil {
		logger.Error("client API stopped", zap.Error(err))
	}
}

func serveMetrics(ctx context.Context, addr string, logger *zap.Logger) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", metrics.Default.Handler())
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	hs := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		logger.Warn("metrics server stopped", zap.Error(err))
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "raftkvd:", err)
	os.Exit(2)
}
