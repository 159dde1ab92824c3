package backend

import (
	"encoding/binary"
	"errors"
	"strconv"
)

// What leasekv keeps in its buckets:
//
//	key    user key            -> KeyRecord
//	lease  lease id (16 hex)   -> LeaseRecord
//	meta   "consistent_rev"    -> the store revision the buckets reflect
const metaConsistentRev = "consistent_rev"

var errShortRecord = errors.New("backend: record too short")

// KeyRecord is a stored key's value and metadata.
type KeyRecord struct {
	Value          []byte
	CreateRevision int64
	ModRevision    int64
	Lease          int64
}

func (r KeyRecord) encode() []byte {
	b := make([]byte, 24, 24+len(r.Value))
	binary.BigEndian.PutUint64(b[0:8], uint64(r.CreateRevision))
	binary.BigEndian.PutUint64(b[8:16], uint64(r.ModRevision))
	binary.BigEndian.PutUint64(b[16:24], uint64(r.Lease))
	return append(b, r.Value...)
}

func decodeKeyRecord(b []byte) (KeyRecord, error) {
	if len(b) < 24 {
		return KeyRecord{}, errShortRecord
	}
	return KeyRecord{
		CreateRevision: int64(binary.BigEndian.Uint64(b[0:8])),
		ModRevision:    int64(binary.BigEndian.Uint64(b[8:16])),
		Lease:          int64(binary.BigEndian.Uint64(b[16:24])),
		Value:          b[24:],
	}, nil
}

// LeaseRecord is a granted lease. Remaining is the TTL left at the last checkpoint, so
// that a restarted primary does not hand every lease its full TTL again.
type LeaseRecord struct {
	ID        int64
	TTL       int64
	Remaining int64
}

func leaseKey(id int64) string { return strconv.FormatUint(uint64(id), 16) }

func (r LeaseRecord) encode() []byte {
	b := make([]byte, 24)
	binary.BigEndian.PutUint64(b[0:8], uint64(r.ID))
	binary.BigEndian.PutUint64(b[8:16], uint64(r.TTL))
	binary.BigEndian.PutUint64(b[16:24], uint64(r.Remaining))
	return b
}

func decodeLeaseRecord(b []byte) (LeaseRecord, error) {
	if len(b) != 24 {
		return LeaseRecord{}, errShortRecord
	}
	return LeaseRecord{
		ID:        int64(binary.BigEndian.Uint64(b[0:8])),
		TTL:       int64(binary.BigEndian.Uint64(b[8:16])),
		Remaining: int64(binary.BigEndian.Uint64(b[16:24])),
	}, nil
}

// UnsafePutKey stores a key record and the revision it was written at.
func (t *BatchTx) UnsafePutKey(key string, r KeyRecord) {
	t.UnsafePut(BucketKey, key, r.encode())
	t.unsafeSetRev(r.ModRevision)
}

// UnsafeDeleteKey deletes a key at revision rev.
func (t *BatchTx) UnsafeDeleteKey(key string, rev int64) {
	t.UnsafeDelete(BucketKey, key)
	t.unsafeSetRev(rev)
}

func (t *BatchTx) unsafeSetRev(rev int64) {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(rev))
	t.UnsafePut(BucketMeta, metaConsistentRev, b)
}

// UnsafePutLease stores a lease record.
func (t *BatchTx) UnsafePutLease(r LeaseRecord) { t.UnsafePut(BucketLease, leaseKey(r.ID), r.encode()) }

// UnsafeDeleteLease deletes a lease record.
func (t *BatchTx) UnsafeDeleteLease(id int64) { t.UnsafeDelete(BucketLease, leaseKey(id)) }

// HasLease tells whether a lease record exists.
func (b *Backend) HasLease(id int64) bool {
	_, ok := b.Get(BucketLease, leaseKey(id))
	return ok
}

// ConsistentRev returns the store revision the buckets reflect.
func (b *Backend) ConsistentRev() int64 {
	v, ok := b.Get(BucketMeta, metaConsistentRev)
	if !ok || len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// Keys returns every stored key record, in key order.
func (b *Backend) Keys() (map[string]KeyRecord, []string, error) {
	recs := map[string]KeyRecord{}
	var order []string
	err := b.ForEach(BucketKey, func(k string, v []byte) error {
		r, err := decodeKeyRecord(v)
		if err != nil {
			return err
		}
		recs[k] = r
		order = append(order, k)
		return nil
	})
	return recs, order, err
}

// Leases returns every stored lease record.
func (b *Backend) Leases() ([]LeaseRecord, error) {
	var out []LeaseRecord
	err := b.ForEach(BucketLease, func(_ string, v []byte) error {
		r, err := decodeLeaseRecord(v)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}
