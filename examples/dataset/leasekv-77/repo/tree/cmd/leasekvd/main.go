// leasekvd is the leasekv server.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"go.leasekv.dev/leasekv/api"
	"go.leasekv.dev/leasekv/backend"
	"go.leasekv.dev/leasekv/config"
	"go.leasekv.dev/leasekv/metrics"
	"go.leasekv.dev/leasekv/server"
	"go.leasekv.dev/leasekv/watch"
	"go.uber.org/zap"
)

func main() {
	configPath := flag.String("config", "", "JSON config file")
	flag.Parse()
	cfg, err := config.Load(*configPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "leasekvd:", err)
		os.Exit(2)
	}
	zc := zap.NewProductionConfig()
	zc.Level.UnmarshalText([]byte(cfg.LogLevel))
	logger, err := zc.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "leasekvd:", err)
		os.Exit(2)
	}
	defer logger.Sync()
	if err := run(cfg, logger); err != nil {
		logger.Fatal("leasekvd stopped", zap.Error(err))
	}
}

func run(cfg *config.Config, logger *zap.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := os.MkdirAll(filepath.Dir(cfg.BackendPath()), 0o700); err != nil {
		return err
	}
	be, err := backend.Open(backend.Config{
		Path:          cfg.BackendPath(),
		BatchInterval: cfg.BackendBatchInterval.Std(),
		BatchLimit:    cfg.BackendBatchLimit,
		Logger:        logger,
	})
	if err != nil {
		return err
	}
	defer be.Close()

	srv := server.New(logger)
	hub := watch.NewHub(srv.Store.Watch(), cfg.WatchBufferSize, logger)
	persister := server.NewPersister(be, srv, hub, logger)
	keys, leases, err := persister.Restore()
	if err != nil {
		return fmt.Errorf("restore from %s: %w", cfg.BackendPath(), err)
	}
	logger.Info("restored state", zap.Int("keys", keys), zap.Int("leases", leases), zap.Int64("revision", srv.Store.Rev()))

	go hub.Run(ctx, cfg.ProgressNotifyInterval.Std())
	go func() {
		if err := persister.Run(ctx); err != nil {
			logger.Error("persister stopped", zap.Error(err))
		}
	}()
	go persister.RunCheckpoints(ctx, cfg.CheckpointInterval.Std())
	if cfg.AuditInterval > 0 {
		go audit(ctx, server.NewAuditor(srv, cfg.AuditPrefix, logger), cfg.AuditInterval.Std())
	}
	registerGauges(srv, hub, be)

	h := &api.Handler{
		Server:          srv,
		Persister:       persister,
		Hub:             hub,
		IDs:             server.NewIDGenerator(cfg.MemberID, time.Now()),
		MaxRequestBytes: cfg.MaxRequestBytes,
		Logger:          logger,
	}
	stopAPI := serve(ctx, cfg.ClientURL, h.Routes(), logger)
	defer stopAPI()
	if cfg.MetricsURL != "" {
		mux := http.NewServeMux()
		mux.Handle("/metrics", metrics.Handler())
		defer serve(ctx, cfg.MetricsURL, mux, logger)()
	}

	logger.Info("became primary lessor", zap.Stringer("extend", cfg.PromoteExtend.Std()))
	srv.Run(ctx, cfg.PromoteExtend.Std())
	return nil
}

// serve runs an HTTP server in the background and returns its shutdown function.
func serve(ctx context.Context, addr string, h http.Handler, logger *zap.Logger) func() {
	hs := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		logger.Info("serving", zap.String("addr", addr))
		if err := hs.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			logger.Fatal("listen", zap.String("addr", addr), zap.Error(err))
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}
}

func audit(ctx context.Context, a *server.Auditor, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			a.Check()
		case <-ctx.Done():
			return
		}
	}
}

func registerGauges(srv *server.Server, hub *watch.Hub, be *backend.Backend) {
	metrics.RegisterStateGauges(metrics.StateSource{
		Leases:       func() int { return len(srv.Lessor.Leases()) },
		Keys:         func() int { return len(srv.Store.Range("")) },
		Watchers:     func() int { n, _, _ := hub.Stats(); return n },
		BackendBytes: func() int64 { return be.Stats().Size },
		BackendInUse: func() int64 { return be.Stats().SizeInUse },
		Revision:     srv.Store.Rev,
		IsPrimary:    srv.Lessor.IsPrimary,
	})
}
