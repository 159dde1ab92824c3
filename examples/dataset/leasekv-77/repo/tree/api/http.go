package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"go.leasekv.dev/leasekv/lease"
	"go.leasekv.dev/leasekv/metrics"
	"go.leasekv.dev/leasekv/mvcc"
	"go.leasekv.dev/leasekv/server"
	"go.leasekv.dev/leasekv/watch"
	"go.uber.org/zap"
)

// Handler serves the API of one server.
type Handler struct {
	Server *server.Server
	// Persister records lease grants and revocations; nil in tests without a backend.
	Persister       *server.Persister
	Hub             *watch.Hub
	IDs             *server.IDGenerator
	MaxRequestBytes int64
	Logger          *zap.Logger
}

// Routes returns the API's mux.
func (h *Handler) Routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/kv/put", h.call("kv_put", h.put))
	mux.HandleFunc("POST /v1/kv/range", h.call("kv_range", h.rangeKeys))
	mux.HandleFunc("POST /v1/kv/deleterange", h.call("kv_delete", h.deleteKey))
	mux.HandleFunc("POST /v1/lease/grant", h.call("lease_grant", h.grant))
	mux.HandleFunc("POST /v1/lease/revoke", h.call("lease_revoke", h.revoke))
	mux.HandleFunc("POST /v1/lease/keepalive", h.call("lease_keepalive", h.keepAlive))
	mux.HandleFunc("POST /v1/lease/timetolive", h.call("lease_timetolive", h.timeToLive))
	mux.HandleFunc("POST /v1/lease/leases", h.call("lease_leases", h.leases))
	mux.HandleFunc("POST /v1/watch", h.watch)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"health":"true"}`+"\n")
	})
	return mux
}

// call adapts a typed handler: decode the body into a fresh request, encode the
// response or the error, and count the request.
func (h *Handler) call(name string, fn func(r *http.Request, decode func(any) error) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		body := http.MaxBytesReader(w, r.Body, h.MaxRequestBytes)
		decode := func(v any) error {
			dec := json.NewDecoder(body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(v); err != nil {
				var tooLarge *http.MaxBytesError
				if errors.As(err, &tooLarge) {
					return ErrRequestTooLarge
				}
				return &badRequest{err}
			}
			return nil
		}
		resp, err := fn(r, decode)
		code := http.StatusOK
		if err != nil {
			code = statusOf(err)
			var br *badRequest
			if errors.As(err, &br) {
				code = http.StatusBadRequest
			}
			writeJSON(w, code, &ErrorResponse{Error: err.Error(), Code: code})
		} else {
			writeJSON(w, code, resp)
		}
		metrics.RequestsTotal.With(name, strconv.Itoa(code)).Add(1)
		metrics.RequestSeconds.Observe(time.Since(start).Seconds())
	}
}

type badRequest struct{ err error }

func (b *badRequest) Error() string { return "malformed request: " + b.err.Error() }

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func toAPI(kv mvcc.KeyValue) KeyValue {
	return KeyValue{Key: kv.Key, Value: kv.Value, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision, Lease: int64(kv.Lease)}
}

func (h *Handler) put(r *http.Request, decode func(any) error) (any, error) {
	var req PutRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if req.Key == "" {
		return nil, ErrKeyEmpty
	}
	rev, err := h.Server.PutWithLease(req.Key, req.Value, lease.LeaseID(req.Lease))
	if err != nil {
		return nil, err
	}
	return &PutResponse{Revision: rev}, nil
}

func (h *Handler) rangeKeys(r *http.Request, decode func(any) error) (any, error) {
	var req RangeRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	resp := &RangeResponse{KVs: []KeyValue{}}
	if !req.Prefix {
		if kv, ok := h.Server.Get(req.Key); ok {
			resp.KVs = append(resp.KVs, toAPI(kv))
		}
		resp.Count = len(resp.KVs)
		return resp, nil
	}
	kvs, more := h.Server.Range(req.Key, req.Limit)
	for _, kv := range kvs {
		resp.KVs = append(resp.KVs, toAPI(kv))
	}
	resp.More, resp.Count = more, len(resp.KVs)
	return resp, nil
}

func (h *Handler) deleteKey(r *http.Request, decode func(any) error) (any, error) {
	var req DeleteRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if req.Key == "" {
		return nil, ErrKeyEmpty
	}
	rev := h.Server.DeleteKey(req.Key)
	resp := &DeleteResponse{Revision: rev}
	if rev != 0 {
		resp.Deleted = 1
	}
	return resp, nil
}

func (h *Handler) grant(r *http.Request, decode func(any) error) (any, error) {
	var req LeaseGrantRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	id := lease.LeaseID(req.ID)
	if id == lease.NoLease {
		id = h.IDs.Next()
	}
	l, err := h.Server.Grant(id, req.TTL)
	if err != nil {
		return nil, err
	}
	if h.Persister != nil {
		h.Persister.SaveLease(l)
	}
	metrics.LeaseOpsTotal.With("grant").Add(1)
	return &LeaseGrantResponse{ID: int64(l.ID), TTL: l.TTL()}, nil
}

func (h *Handler) revoke(r *http.Request, decode func(any) error) (any, error) {
	var req LeaseIDRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	if err := h.Server.RevokeLease(lease.LeaseID(req.ID)); err != nil {
		return nil, err
	}
	if h.Persister != nil {
		h.Persister.DeleteLease(lease.LeaseID(req.ID))
	}
	metrics.LeaseOpsTotal.With("revoke").Add(1)
	return &LeaseIDRequest{ID: req.ID}, nil
}

func (h *Handler) keepAlive(r *http.Request, decode func(any) error) (any, error) {
	var req LeaseIDRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	ttl, err := h.Server.KeepAlive(lease.LeaseID(req.ID))
	if err != nil {
		return nil, err
	}
	metrics.LeaseOpsTotal.With("keepalive").Add(1)
	return &LeaseKeepAliveResponse{ID: req.ID, TTL: ttl}, nil
}

func (h *Handler) timeToLive(r *http.Request, decode func(any) error) (any, error) {
	var req LeaseTimeToLiveRequest
	if err := decode(&req); err != nil {
		return nil, err
	}
	info, err := h.Server.TimeToLive(lease.LeaseID(req.ID), req.Keys)
	if err != nil {
		return nil, err
	}
	return &LeaseTimeToLiveResponse{ID: int64(info.ID), TTL: info.Remaining, GrantedTTL: info.TTL, Keys: info.Keys}, nil
}

func (h *Handler) leases(r *http.Request, decode func(any) error) (any, error) {
	resp := &LeaseListResponse{Leases: []LeaseTimeToLiveResponse{}}
	for _, info := range h.Server.Leases() {
		resp.Leases = append(resp.Leases, LeaseTimeToLiveResponse{ID: int64(info.ID), TTL: info.Remaining, GrantedTTL: info.TTL})
	}
	return resp, nil
}

// watch streams the watcher's responses as JSON lines until the client goes away or
// the watcher is canceled.
func (h *Handler) watch(w http.ResponseWriter, r *http.Request) {
	var req WatchRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, h.MaxRequestBytes)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, &ErrorResponse{Error: err.Error(), Code: http.StatusBadRequest})
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, &ErrorResponse{Error: "streaming unsupported", Code: 500})
		return
	}
	wt, err := h.Hub.Watch(req.Key, req.Prefix)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, &ErrorResponse{Error: err.Error(), Code: 503})
		return
	}
	defer h.Hub.Cancel(wt.ID())
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	// the first line carries the watch id, so the client can tell it is registered
	enc := json.NewEncoder(w)
	enc.Encode(&WatchResponse{WatchID: int64(wt.ID())})
	flusher.Flush()
	for {
		select {
		case resp, ok := <-wt.Chan():
			if !ok {
				return
			}
			out := &WatchResponse{WatchID: int64(resp.WatchID), Revision: resp.Revision, Canceled: resp.Canceled, CancelReason: resp.CancelReason}
			for _, ev := range resp.Events {
				typ := "PUT"
				if ev.Delete {
					typ = "DELETE"
				}
				out.Events = append(out.Events, WatchEvent{Type: typ, KV: toAPI(ev.KV)})
				metrics.WatchEventsTotal.With(typ).Add(1)
			}
			if err := enc.Encode(out); err != nil {
				h.Logger.Debug("watch client went away", zap.Int64("watch", int64(wt.ID())), zap.Error(err))
				return
			}
			flusher.Flush()
			if resp.Canceled {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}
