package lease

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"
)

var (
	ErrNotPrimary    = errors.New("not a primary lessor")
	ErrLeaseNotFound = errors.New("lease not found")
	ErrLeaseExists   = errors.New("lease already exists")
	ErrLeaseTTLShort = errors.New("lease TTL is too short")
)

// MinLeaseTTL is the shortest TTL a lease may have, in seconds.
const MinLeaseTTL = 2

// TxnDelete deletes keys in one store transaction.
type TxnDelete interface {
	DeleteRange(key, end []byte) (n, rev int64)
	End()
}

// RangeDeleter opens a delete transaction on the store.
type RangeDeleter func() TxnDelete

// Lessor owns the leases: grant, renew, attach keys, revoke, and find expired ones.
type Lessor struct {
	mu sync.RWMutex

	leaseMap map[LeaseID]*Lease
	itemMap  map[LeaseItem]LeaseID

	rd       RangeDeleter
	primary  bool
	expiredC chan []*Lease
	stopC    chan struct{}
	doneC    chan struct{}

	checkInterval time.Duration
	logger        *zap.Logger
}

// NewLessor returns a lessor; call SetRangeDeleter before revoking.
func NewLessor(logger *zap.Logger, checkInterval time.Duration) *Lessor {
	le := &Lessor{
		leaseMap:      make(map[LeaseID]*Lease),
		itemMap:       make(map[LeaseItem]LeaseID),
		expiredC:      make(chan []*Lease, 16),
		stopC:         make(chan struct{}),
		doneC:         make(chan struct{}),
		checkInterval: checkInterval,
		logger:        logger,
	}
	go le.runLoop()
	return le
}

// SetRangeDeleter sets how revocation deletes keys.
func (le *Lessor) SetRangeDeleter(rd RangeDeleter) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.rd = rd
}

// Promote makes this lessor the primary: leases start to expire, after a grace extension.
func (le *Lessor) Promote(extend time.Duration) {
	le.mu.Lock()
	defer le.mu.Unlock()
	le.primary = true
	for _, l := range le.leaseMap {
		l.refresh(extend)
	}
}

// Demote stops expiry: only the primary expires leases.
func (le *Lessor) Demote() {
	le.mu.Lock()
	defer le.mu.Unlock()
	for _, l := range le.leaseMap {
		l.forever()
	}
	le.primary = false
}

// Grant creates a lease.
func (le *Lessor) Grant(id LeaseID, ttl int64) (*Lease, error) {
	if id == NoLease {
		return nil, ErrLeaseNotFound
	}
	if ttl < MinLeaseTTL {
		return nil, ErrLeaseTTLShort
	}
	l := newLease(id, ttl)
	le.mu.Lock()
	defer le.mu.Unlock()
	if _, ok := le.leaseMap[id]; ok {
		return nil, ErrLeaseExists
	}
	if le.primary {
		l.refresh(0)
	} else {
		l.forever()
	}
	le.leaseMap[id] = l
	return l, nil
}

// Renew extends a lease by its TTL. Only the primary renews.
func (le *Lessor) Renew(id LeaseID) (int64, error) {
	le.mu.RLock()
	defer le.mu.RUnlock()
	if !le.primary {
		return -1, ErrNotPrimary
	}
	l := le.leaseMap[id]
	if l == nil {
		return -1, ErrLeaseNotFound
	}
	l.refresh(0)
	return l.ttl, nil
}

// Lookup returns the lease with this id, or nil.
func (le *Lessor) Lookup(id LeaseID) *Lease {
	le.mu.RLock()
	defer le.mu.RUnlock()
	return le.leaseMap[id]
}

// Revoke deletes a lease and every key attached to it.
func (le *Lessor) Revoke(id LeaseID) error {
	le.mu.Lock()
	l := le.leaseMap[id]
	le.mu.Unlock()
	if l == nil {
		return ErrLeaseNotFound
	}
	defer close(l.revokec)

	if le.rd == nil {
		return nil
	}
	keys := l.Keys()
	txn := le.rd()
	for _, key := range keys {
		txn.DeleteRange([]byte(key), nil)
	}

	le.mu.Lock()
	delete(le.leaseMap, l.ID)
	for _, key := range keys {
		delete(le.itemMap, LeaseItem{Key: key})
	}
	le.mu.Unlock()
	txn.End()
	le.logger.Info("revoked lease", zap.Int64("lease", int64(id)), zap.Int("keys", len(keys)))
	return nil
}

// Attach attaches keys to a lease; a revoked lease takes them with it.
func (le *Lessor) Attach(id LeaseID, items []LeaseItem) error {
	le.mu.RLock()
	l := le.leaseMap[id]
	le.mu.RUnlock()
	if l == nil {
		return ErrLeaseNotFound
	}

	l.mu.Lock()
	for _, it := range items {
		l.itemSet[it] = struct{}{}
	}
	l.mu.Unlock()

	le.mu.Lock()
	for _, it := range items {
		le.itemMap[it] = id
	}
	le.mu.Unlock()
	return nil
}

// Detach removes keys from a lease (the key was overwritten without the lease or deleted).
func (le *Lessor) Detach(id LeaseID, items []LeaseItem) error {
	le.mu.Lock()
	defer le.mu.Unlock()
	l := le.leaseMap[id]
	if l == nil {
		return ErrLeaseNotFound
	}
	l.mu.Lock()
	for _, it := range items {
		delete(l.itemSet, it)
		delete(le.itemMap, it)
	}
	l.mu.Unlock()
	return nil
}

// GetLease returns the lease a key is attached to.
func (le *Lessor) GetLease(item LeaseItem) LeaseID {
	le.mu.RLock()
	defer le.mu.RUnlock()
	return le.itemMap[item]
}

// ExpiredLeasesC delivers batches of expired leases to revoke.
func (le *Lessor) ExpiredLeasesC() <-chan []*Lease { return le.expiredC }

func (le *Lessor) runLoop() {
	defer close(le.doneC)
	ticker := time.NewTicker(le.checkInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			le.revokeExpiredLeases()
		case <-le.stopC:
			return
		}
	}
}

func (le *Lessor) revokeExpiredLeases() {
	le.mu.RLock()
	if !le.primary {
		le.mu.RUnlock()
		return
	}
	var expired []*Lease
	for _, l := range le.leaseMap {
		if l.expired() {
			expired = append(expired, l)
		}
	}
	le.mu.RUnlock()
	if len(expired) == 0 {
		return
	}
	select {
	case le.expiredC <- expired:
	case <-le.stopC:
	}
}

// Stop stops the expiry loop.
func (le *Lessor) Stop() {
	close(le.stopC)
	<-le.doneC
}
