package raft

// EntryType tells a normal command from a configuration change.
type EntryType int

const (
	EntryNormal EntryType = iota
	EntryConfChange
)

// Entry is one record of the replicated log.
type Entry struct {
	Term  uint64
	Index uint64
	Type  EntryType
	Data  []byte
}

// MessageType enumerates the RPCs between peers.
type MessageType int

const (
	MsgApp MessageType = iota
	MsgAppResp
	MsgVote
	MsgVoteResp
	MsgHeartbeat
	MsgHeartbeatResp
)

// Message is an RPC between peers. For MsgApp, Index and LogTerm name the entry that
// precedes Entries, and Commit is the leader's commit index.
type Message struct {
	Type    MessageType
	From    uint64
	To      uint64
	Term    uint64
	Index   uint64
	LogTerm uint64
	Commit  uint64
	Entries []Entry
	Reject  bool
	// RejectHint is the follower's last index when it rejects an append.
	RejectHint uint64
}

// StateType is the role of a node.
type StateType int

const (
	StateFollower StateType = iota
	StateCandidate
	StateLeader
)

func (s StateType) String() string {
	switch s {
	case StateFollower:
		return "follower"
	case StateCandidate:
		return "candidate"
	default:
		return "leader"
	}
}
