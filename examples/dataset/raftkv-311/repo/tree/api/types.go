// Package api is the client-facing KV service of raftkvd, served over the rpc package.
package api

// Method names of the KV service.
const (
	MethodPut    = "kv.Put"
	MethodGet    = "kv.Get"
	MethodDelete = "kv.Delete"
	MethodStatus = "kv.Status"
)

// MaxKeySize and MaxValueSize bound what a client may write; raft entries stay small
// so that an append batch fits in one frame.
const (
	MaxKeySize   = 4 << 10
	MaxValueSize = 1 << 20
)

// PutRequest writes Value under Key.
type PutRequest struct {
	Key   string
	Value string
}

// PutResponse carries the index at which the put was applied on the serving node.
type PutResponse struct {
	AppliedIndex uint64
}

// GetRequest reads Key from the serving node's replica.
type GetRequest struct {
	Key string
}

// GetResponse is the value, if the key exists.
type GetResponse struct {
	Value        string
	Found        bool
	AppliedIndex uint64
}

// DeleteRequest removes Key.
type DeleteRequest struct {
	Key string
}

// DeleteResponse carries the applied index, like PutResponse.
type DeleteResponse struct {
	AppliedIndex uint64
}

// StatusRequest asks a node about itself. gob cannot encode a struct without exported
// fields, hence the flag.
type StatusRequest struct {
	IncludePeers bool
}

// StatusResponse describes one node.
type StatusResponse struct {
	ID          uint64
	Version     string
	LastApplied uint64
	Keys        int
	Peers       map[uint64]string
}
