package server

import (
	"context"
	"time"

	"go.leasekv.dev/leasekv/backend"
	"go.leasekv.dev/leasekv/lease"
	"go.leasekv.dev/leasekv/mvcc"
	"go.leasekv.dev/leasekv/watch"
	"go.uber.org/zap"
)

// Persister keeps the backend in step with the store and the lessor: key changes arrive
// through a watcher of every key, lease grants and revocations through SaveLease and
// DeleteLease, and remaining TTLs through periodic checkpoints.
type Persister struct {
	be     *backend.Backend
	srv    *Server
	hub    *watch.Hub
	logger *zap.Logger
}

// NewPersister returns a persister of srv into be.
func NewPersister(be *backend.Backend, srv *Server, hub *watch.Hub, logger *zap.Logger) *Persister {
	return &Persister{be: be, srv: srv, hub: hub, logger: logger}
}

// Restore loads the leases, then the keys, from the backend. A lease is restored with
// the TTL it had left at the last checkpoint.
func (p *Persister) Restore() (keys, leases int, err error) {
	recs, err := p.be.Leases()
	if err != nil {
		return 0, 0, err
	}
	for _, r := range recs {
		ttl := r.Remaining
		if ttl < lease.MinLeaseTTL {
			ttl = lease.MinLeaseTTL
		}
		if _, err := p.srv.Lessor.Grant(lease.LeaseID(r.ID), ttl); err != nil {
			p.logger.Warn("cannot restore lease", zap.Int64("lease", r.ID), zap.Error(err))
			continue
		}
		leases++
	}
	byKey, order, err := p.be.Keys()
	if err != nil {
		return 0, leases, err
	}
	kvs := make([]mvcc.KeyValue, 0, len(order))
	for _, k := range order {
		r := byKey[k]
		kvs = append(kvs, mvcc.KeyValue{Key: k, Value: r.Value, CreateRevision: r.CreateRevision, ModRevision: r.ModRevision, Lease: lease.LeaseID(r.Lease)})
	}
	dropped, err := p.srv.Store.Restore(kvs, p.be.ConsistentRev())
	if err != nil {
		return 0, leases, err
	}
	if len(dropped) > 0 {
		tx := p.be.BatchTx()
		tx.Lock()
		for _, kv := range dropped {
			p.logger.Warn("dropping restored key of a missing lease", zap.String("key", kv.Key), zap.Int64("lease", int64(kv.Lease)))
			tx.UnsafeDelete(backend.BucketKey, kv.Key)
		}
		tx.Unlock()
	}
	return len(kvs) - len(dropped), leases, nil
}

// Run writes key changes to the backend until ctx is done. When the watcher is canceled
// for being slow, it rewrites every key from the store and watches again.
func (p *Persister) Run(ctx context.Context) error {
	for {
		w, err := p.hub.Watch("", true)
		if err != nil {
			return err
		}
		resync, err := p.follow(ctx, w)
		if err != nil || !resync {
			return err
		}
		p.logger.Warn("persister fell behind, rewriting all keys")
		p.resync()
	}
}

func (p *Persister) follow(ctx context.Context, w *watch.Watcher) (resync bool, err error) {
	for {
		select {
		case resp, ok := <-w.Chan():
			if !ok {
				return false, nil
			}
			if resp.Canceled {
				return resp.CancelReason == watch.ReasonSlow, nil
			}
			p.write(resp.Events)
		case <-ctx.Done():
			p.hub.Cancel(w.ID())
			return false, p.be.BatchTx().Commit()
		}
	}
}

func (p *Persister) write(evs []mvcc.Event) {
	tx := p.be.BatchTx()
	tx.Lock()
	defer tx.Unlock()
	for _, ev := range evs {
		if ev.Delete {
			tx.UnsafeDeleteKey(ev.KV.Key, ev.KV.ModRevision)
			continue
		}
		tx.UnsafePutKey(ev.KV.Key, backend.KeyRecord{
			Value:          ev.KV.Value,
			CreateRevision: ev.KV.CreateRevision,
			ModRevision:    ev.KV.ModRevision,
			Lease:          int64(ev.KV.Lease),
		})
	}
}

func (p *Persister) resync() {
	live := map[string]bool{}
	tx := p.be.BatchTx()
	tx.Lock()
	defer tx.Unlock()
	for _, kv := range p.srv.Store.Range("") {
		live[kv.Key] = true
		tx.UnsafePutKey(kv.Key, backend.KeyRecord{Value: kv.Value, CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision, Lease: int64(kv.Lease)})
	}
	var stale []string
	p.be.ForEach(backend.BucketKey, func(k string, _ []byte) error {
		if !live[k] {
			stale = append(stale, k)
		}
		return nil
	})
	for _, k := range stale {
		tx.UnsafeDelete(backend.BucketKey, k)
	}
}

// SaveLease records a granted lease.
func (p *Persister) SaveLease(l *lease.Lease) {
	tx := p.be.BatchTx()
	tx.Lock()
	tx.UnsafePutLease(backend.LeaseRecord{ID: int64(l.ID), TTL: l.TTL(), Remaining: l.TTL()})
	tx.Unlock()
}

// DeleteLease forgets a revoked lease.
func (p *Persister) DeleteLease(id lease.LeaseID) {
	tx := p.be.BatchTx()
	tx.Lock()
	tx.UnsafeDeleteLease(int64(id))
	tx.Unlock()
}

// RunCheckpoints records every lease's remaining TTL each interval, on the primary only.
func (p *Persister) RunCheckpoints(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if p.srv.Lessor.IsPrimary() {
				p.checkpoint()
			}
		case <-ctx.Done():
			return
		}
	}
}

// checkpoint records remaining TTLs and drops the records of leases that are gone:
// leases revoked on expiry are not reported to the persister one by one.
func (p *Persister) checkpoint() {
	infos := p.srv.Leases()
	recs, err := p.be.Leases()
	if err != nil {
		p.logger.Warn("cannot read lease records", zap.Error(err))
		return
	}
	tx := p.be.BatchTx()
	tx.Lock()
	defer tx.Unlock()
	for _, r := range recs {
		if p.srv.Lessor.Lookup(lease.LeaseID(r.ID)) == nil {
			tx.UnsafeDeleteLease(r.ID)
		}
	}
	for _, info := range infos {
		if !p.be.HasLease(int64(info.ID)) {
			// revoked between listing and now; do not bring it back
			continue
		}
		tx.UnsafePutLease(backend.LeaseRecord{ID: int64(info.ID), TTL: info.TTL, Remaining: info.Remaining})
	}
}
