// Package api is leasekvd's HTTP/JSON API. Every call is a POST of a JSON request to
// /v1/<group>/<call> that answers a JSON response; watches stream one JSON response per
// line.
package api

import (
	"errors"
	"net/http"

	"go.leasekv.dev/leasekv/lease"
)

// KeyValue is a key in responses.
type KeyValue struct {
	Key            string `json:"key"`
	Value          []byte `json:"value,omitempty"`
	CreateRevision int64  `json:"create_revision"`
	ModRevision    int64  `json:"mod_revision"`
	Lease          int64  `json:"lease,omitempty"`
}

type PutRequest struct {
	Key   string `json:"key"`
	Value []byte `json:"value"`
	Lease int64  `json:"lease,omitempty"`
}

type PutResponse struct {
	Revision int64 `json:"revision"`
}

type RangeRequest struct {
	Key    string `json:"key"`
	Prefix bool   `json:"prefix,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

type RangeResponse struct {
	KVs   []KeyValue `json:"kvs"`
	More  bool       `json:"more,omitempty"`
	Count int        `json:"count"`
}

type DeleteRequest struct {
	Key string `json:"key"`
}

type DeleteResponse struct {
	Deleted  int64 `json:"deleted"`
	Revision int64 `json:"revision"`
}

type LeaseGrantRequest struct {
	// ID is optional; the server picks one when it is 0.
	ID  int64 `json:"id,omitempty"`
	TTL int64 `json:"ttl"`
}

type LeaseGrantResponse struct {
	ID  int64 `json:"id"`
	TTL int64 `json:"ttl"`
}

type LeaseIDRequest struct {
	ID int64 `json:"id"`
}

type LeaseKeepAliveResponse struct {
	ID  int64 `json:"id"`
	TTL int64 `json:"ttl"`
}

type LeaseTimeToLiveRequest struct {
	ID   int64 `json:"id"`
	Keys bool  `json:"keys,omitempty"`
}

type LeaseTimeToLiveResponse struct {
	ID         int64    `json:"id"`
	TTL        int64    `json:"ttl"`
	GrantedTTL int64    `json:"granted_ttl"`
	Keys       []string `json:"keys,omitempty"`
}

type LeaseListResponse struct {
	Leases []LeaseTimeToLiveResponse `json:"leases"`
}

type WatchRequest struct {
	Key    string `json:"key"`
	Prefix bool   `json:"prefix,omitempty"`
}

type WatchEvent struct {
	Type string   `json:"type"` // PUT or DELETE
	KV   KeyValue `json:"kv"`
}

type WatchResponse struct {
	WatchID      int64        `json:"watch_id"`
	Revision     int64        `json:"revision"`
	Events       []WatchEvent `json:"events,omitempty"`
	Canceled     bool         `json:"canceled,omitempty"`
	CancelReason string       `json:"cancel_reason,omitempty"`
}

// ErrorResponse is the body of every failed call.
type ErrorResponse struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
}

// Errors the client maps back from ErrorResponse.Error.
var (
	ErrKeyEmpty        = errors.New("key is empty")
	ErrRequestTooLarge = errors.New("request is too large")
)

// statusOf maps an error of the server packages to an HTTP status.
func statusOf(err error) int {
	switch {
	case errors.Is(err, lease.ErrLeaseNotFound):
		return http.StatusNotFound
	case errors.Is(err, lease.ErrLeaseExists):
		return http.StatusConflict
	case errors.Is(err, lease.ErrNotPrimary):
		return http.StatusServiceUnavailable
	case errors.Is(err, lease.ErrLeaseTTLShort), errors.Is(err, ErrKeyEmpty):
		return http.StatusBadRequest
	case errors.Is(err, ErrRequestTooLarge):
		return http.StatusRequestEntityTooLarge
	default:
		return http.StatusInternalServerError
	}
}
