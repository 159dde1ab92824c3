package api

import (
	"context"
	"errors"
	"time"

	"github.com/raftkv/raftkv/kv"
	"github.com/raftkv/raftkv/metrics"
	"github.com/raftkv/raftkv/rpc"
	"go.uber.org/zap"
)

// Version is reported by kv.Status; the release script sets it with -ldflags.
var Version = "dev"

// Service serves the KV methods on top of a kv.Server.
type Service struct {
	id      uint64
	server  *kv.Server
	peers   map[uint64]string
	timeout time.Duration
	logger  *zap.Logger

	requests map[string]*metrics.Counter
	failures map[string]*metrics.Counter
	latency  map[string]*metrics.Histogram
}

// NewService returns the KV service of node id. timeout bounds each write.
func NewService(id uint64, server *kv.Server, peers map[uint64]string, timeout time.Duration, reg *metrics.Registry, logger *zap.Logger) *Service {
	s := &Service{
		id: id, server: server, peers: peers, timeout: timeout, logger: logger,
		requests: map[string]*metrics.Counter{},
		failures: map[string]*metrics.Counter{},
		latency:  map[string]*metrics.Histogram{},
	}
	for _, m := range []string{MethodPut, MethodGet, MethodDelete, MethodStatus} {
		l := metrics.Labels{"method": m}
		s.requests[m] = reg.Counter("raftkv_api_requests_total", "Client API calls received.", l)
		s.failures[m] = reg.Counter("raftkv_api_failures_total", "Client API calls that failed.", l)
		s.latency[m] = reg.Histogram("raftkv_api_request_seconds", "Client API call latency.", l, nil)
	}
	return s
}

// Register adds the service's methods to an rpc server.
func (s *Service) Register(srv *rpc.Server) {
	srv.Register(MethodPut, s.put)
	srv.Register(MethodGet, s.get)
	srv.Register(MethodDelete, s.delete)
	srv.Register(MethodStatus, s.status)
}

// Intercept records metrics and logs slow or failed calls; pass it in rpc.ServerOptions.
func (s *Service) Intercept(ctx context.Context, method string, next func(context.Context) (any, error)) (any, error) {
	start := time.Now()
	resp, err := next(ctx)
	took := time.Since(start)
	if c, ok := s.requests[method]; ok {
		c.Inc()
		s.latency[method].Observe(took.Seconds())
		if err != nil {
			s.failures[method].Inc()
		}
	}
	if err != nil && rpc.CodeOf(err) != rpc.InvalidArgument {
		s.logger.Debug("api call failed", zap.String("method", method), zap.Duration("took", took), zap.Error(err))
	} else if took > time.Second {
		s.logger.Info("slow api call", zap.String("method", method), zap.Duration("took", took))
	}
	return resp, err
}

func checkKey(key string) error {
	if key == "" {
		return rpc.Errorf(rpc.InvalidArgument, "empty key")
	}
	if len(key) > MaxKeySize {
		return rpc.Errorf(rpc.InvalidArgument, "key of %d bytes exceeds %d", len(key), MaxKeySize)
	}
	return nil
}

// writeError maps the errors of a write to status codes. A proposal that is not applied
// in time usually means this node is not the leader: raft drops proposals on followers.
func writeError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return rpc.Errorf(rpc.DeadlineExceeded, "not applied in time (is this node the leader?)")
	case errors.Is(err, context.Canceled):
		return rpc.Errorf(rpc.Canceled, "canceled by the client")
	default:
		return rpc.Errorf(rpc.Internal, "%v", err)
	}
}

func (s *Service) put(ctx context.Context, decode func(any) error) (any, error) {
	var req PutRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	if len(req.Value) > MaxValueSize {
		return nil, rpc.Errorf(rpc.InvalidArgument, "value of %d bytes exceeds %d", len(req.Value), MaxValueSize)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.server.Put(ctx, req.Key, req.Value); err != nil {
		return nil, writeError(err)
	}
	return &PutResponse{AppliedIndex: s.server.Status().LastApplied}, nil
}

func (s *Service) get(ctx context.Context, decode func(any) error) (any, error) {
	var req GetRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	v, ok := s.server.Get(req.Key)
	return &GetResponse{Value: v, Found: ok, AppliedIndex: s.server.Status().LastApplied}, nil
}

func (s *Service) delete(ctx context.Context, decode func(any) error) (any, error) {
	var req DeleteRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if err := checkKey(req.Key); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := s.server.Delete(ctx, req.Key); err != nil {
		return nil, writeError(err)
	}
	return &DeleteResponse{AppliedIndex: s.server.Status().LastApplied}, nil
}

func (s *Service) status(ctx context.Context, decode func(any) error) (any, error) {
	var req StatusRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	st := s.server.Status()
	resp := &StatusResponse{ID: s.id, Version: Version, LastApplied: st.LastApplied, Keys: st.Keys}
	if req.IncludePeers {
		resp.Peers = s.peers
	}
	return resp, nil
}
