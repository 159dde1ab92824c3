// Package config holds raftkvd's settings: defaults, flags, an optional config file of
// `key = value` lines, and validation. Flags given on the command line win over the file.
package config

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is the complete configuration of one raftkvd process.
type Config struct {
	ID uint64
	// Peers maps every voter's id to its raft (peer) address.
	Peers PeerMap
	// ClientAddr is where the client API listens.
	ClientAddr  string
	MetricsAddr string
	DataDir     string

	TickInterval   time.Duration
	ElectionTicks  int
	HeartbeatTicks int
	MaxInflight    int

	// SnapshotCount is the number of applied entries after which the store is
	// snapshotted and the WAL purged.
	SnapshotCount   uint64
	SnapshotsToKeep int
	WALSegmentSize  int64

	// RequestTimeout bounds how long a write waits to be applied.
	RequestTimeout time.Duration
	LogLevel       string
}

// Default returns the defaults for a single local node.
func Default() *Config {
	return &Config{
		ID:              1,
		Peers:           PeerMap{1: "localhost:7001"},
		ClientAddr:      "localhost:7101",
		MetricsAddr:     "localhost:7201",
		DataDir:         "data",
		TickInterval:    100 * time.Millisecond,
		ElectionTicks:   10,
		HeartbeatTicks:  1,
		MaxInflight:     8,
		SnapshotCount:   10000,
		SnapshotsToKeep: 3,
		WALSegmentSize:  64 << 20,
		RequestTimeout:  5 * time.Second,
		LogLevel:        "info",
	}
}

// PeerMap is id -> address; as a flag it reads "1=host:port,2=host:port".
type PeerMap map[uint64]string

// ParsePeers parses "1=host:port,2=host:port".
func ParsePeers(s string) (PeerMap, error) {
	m := PeerMap{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		parts := strings.SplitN(p, "=", 2)
		if len(parts) != 2 || parts[1] == "" {
			return nil, fmt.Errorf("peer %q: want id=host:port", p)
		}
		id, err := strconv.ParseUint(parts[0], 10, 64)
		if err != nil || id == 0 {
			return nil, fmt.Errorf("peer %q: id must be a positive integer", p)
		}
		if _, dup := m[id]; dup {
			return nil, fmt.Errorf("peer id %d given twice", id)
		}
		m[id] = parts[1]
	}
	return m, nil
}

// IDs returns the peer ids in ascending order.
func (m PeerMap) IDs() []uint64 {
	ids := make([]uint64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (m PeerMap) String() string {
	parts := make([]string, 0, len(m))
	for _, id := range m.IDs() {
		parts = append(parts, fmt.Sprintf("%d=%s", id, m[id]))
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value.
func (m *PeerMap) Set(s string) error {
	parsed, err := ParsePeers(s)
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

// RegisterFlags binds the flags of raftkvd to c; parse the flags after loading a file so
// that the command line wins.
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.Uint64Var(&c.ID, "id", c.ID, "node id")
	fs.Var(&c.Peers, "peers", "raft peers as id=host:port,...")
	fs.StringVar(&c.ClientAddr, "client-addr", c.ClientAddr, "client API listen address")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "metrics listen address (empty disables)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "directory for the WAL and snapshots")
	fs.DurationVar(&c.TickInterval, "tick", c.TickInterval, "raft tick")
	fs.IntVar(&c.ElectionTicks, "election-ticks", c.ElectionTicks, "ticks without a leader before a campaign")
	fs.IntVar(&c.HeartbeatTicks, "heartbeat-ticks", c.HeartbeatTicks, "ticks between heartbeats")
	fs.IntVar(&c.MaxInflight, "max-inflight", c.MaxInflight, "max append messages in flight per follower")
	fs.Uint64Var(&c.SnapshotCount, "snapshot-count", c.SnapshotCount, "applied entries between snapshots")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", c.RequestTimeout, "how long a write waits to be applied")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error")
}

// setters maps config file keys to the fields they set.
func (c *Config) setters() map[string]func(string) error {
	dur := func(p *time.Duration) func(string) error {
		return func(v string) error {
			d, err := time.ParseDuration(v)
			*p = d
			return err
		}
	}
	integer := func(p *int) func(string) error {
		return func(v string) error {
			n, err := strconv.Atoi(v)
			*p = n
			return err
		}
	}
	str := func(p *string) func(string) error {
		return func(v string) error { *p = v; return nil }
	}
	return map[string]func(string) error{
		"id": func(v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			c.ID = n
			return err
		},
		"peers":           c.Peers.Set,
		"client-addr":     str(&c.ClientAddr),
		"metrics-addr":    str(&c.MetricsAddr),
		"data-dir":        str(&c.DataDir),
		"tick":            dur(&c.TickInterval),
		"election-ticks":  integer(&c.ElectionTicks),
		"heartbeat-ticks": integer(&c.HeartbeatTicks),
		"max-inflight":    integer(&c.MaxInflight),
		"snapshot-count": func(v string) error {
			n, err := strconv.ParseUint(v, 10, 64)
			c.SnapshotCount = n
			return err
		},
		"snapshots-to-keep": integer(&c.SnapshotsToKeep),
		"wal-segment-size": func(v string) error {
			n, err := ParseSize(v)
			c.WALSegmentSize = n
			return err
		},
		"request-timeout": dur(&c.RequestTimeout),
		"log-level":       str(&c.LogLevel),
	}
}

// LoadFile reads `key = value` lines into c. Blank lines and lines starting with # are
// skipped; an unknown key is an error so that typos do not go unnoticed.
func (c *Config) LoadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	set := c.setters()
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		if !ok {
			return fmt.Errorf("%s:%d: want key = value", filepath.Base(path), line)
		}
		key, value = strings.TrimSpace(key), strings.Trim(strings.TrimSpace(value), `"`)
		setter, known := set[key]
		if !known {
			return fmt.Errorf("%s:%d: unknown key %q", filepath.Base(path), line, key)
		}
		if err := setter(value); err != nil {
			return fmt.Errorf("%s:%d: %s: %v", filepath.Base(path), line, key, err)
		}
	}
	return sc.Err()
}

// ParseSize parses a byte size such as 64MiB, 512KiB or 1048576.
func ParseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("bad size %q", s)
			}
			return n * u.mult, nil
		}
	}
	return strconv.ParseInt(s, 10, 64)
}

// Validate reports every problem of c at once.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.ID == 0 {
		bad("id must be positive")
	}
	if len(c.Peers) == 0 {
		bad("peers must list at least this node")
	} else if _, ok := c.Peers[c.ID]; !ok {
		bad("peers %s do not include this node's id %d", c.Peers, c.ID)
	}
	if c.ClientAddr == "" {
		bad("client-addr is required")
	}
	for id, addr := range c.Peers {
		if addr == c.ClientAddr {
			bad("peer %d and the client API share the address %s", id, addr)
		}
	}
	if c.TickInterval < time.Millisecond {
		bad("tick %v is too short", c.TickInterval)
	}
	if c.HeartbeatTicks < 1 {
		bad("heartbeat-ticks must be at least 1")
	}
	// A follower must hear several heartbeats before it gives up on the leader.
	if c.ElectionTicks < 3*c.HeartbeatTicks {
		bad("election-ticks (%d) must be at least 3 x heartbeat-ticks (%d)", c.ElectionTicks, c.HeartbeatTicks)
	}
	if c.MaxInflight < 1 || c.MaxInflight > 1024 {
		bad("max-inflight %d must be in [1, 1024]", c.MaxInflight)
	}
	if c.SnapshotsToKeep < 1 {
		bad("snapshots-to-keep must be at least 1")
	}
	if c.WALSegmentSize < 1<<20 {
		bad("wal-segment-size %d is below 1MiB", c.WALSegmentSize)
	}
	if c.RequestTimeout <= 0 {
		bad("request-timeout must be positive")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("log-level %q is not one of debug, info, warn, error", c.LogLevel)
	}
	return errors.Join(errs...)
}

// WALDir and SnapDir are the subdirectories of the data directory.
func (c *Config) WALDir() string  { return filepath.Join(c.DataDir, "wal") }
func (c *Config) SnapDir() string { return filepath.Join(c.DataDir, "snap") }

// ElectionTimeout is the wall-clock time of the election timeout, for log lines.
func (c *Config) ElectionTimeout() time.Duration {
	return time.Duration(c.ElectionTicks) * c.TickInterval
}
