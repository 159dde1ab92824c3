package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestParsePeers(t *testing.T) {
	m, err := ParsePeers("2=b:7002, 1=a:7001,3=c:7003")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.String(); got != "1=a:7001,2=b:7002,3=c:7003" {
		t.Fatalf("got %s", got)
	}
	for _, bad := range []string{"1", "x=a:1", "0=a:1", "1=a:1,1=b:2", "1="} {
		if _, err := ParsePeers(bad); err == nil {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func TestFileThenFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raftkvd.conf")
	os.WriteFile(path, []byte(`# node 2 of the staging cluster
id = 2
peers = 1=10.0.0.1:7001,2=10.0.0.2:7001,3=10.0.0.3:7001
max-inflight = 4
tick = 50ms
wal-segment-size = 16MiB
`), 0o640)

	c := Default()
	if err := c.LoadFile(path); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("raftkvd", flag.ContinueOnError)
	c.RegisterFlags(fs)
	if err := fs.Parse([]string{"--max-inflight", "16", "--client-addr", "10.0.0.2:7101"}); err != nil {
		t.Fatal(err)
	}
	if c.ID != 2 || c.MaxInflight != 16 || c.TickInterval != 50*time.Millisecond || c.WALSegmentSize != 16<<20 {
		t.Fatalf("config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadFileRejectsUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "raftkvd.conf")
	os.WriteFile(path, []byte("max-in-flight = 4\n"), 0o640)
	err := Default().LoadFile(path)
	if err == nil || !strings.Contains(err.Error(), `raftkvd.conf:1: unknown key "max-in-flight"`) {
		t.Fatalf("got %v", err)
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Default()
	c.ID = 4
	c.ElectionTicks = 2
	c.MaxInflight = 0
	err := c.Validate()
	if err == nil {
		t.Fatal("expected errors")
	}
	for _, want := range []string{"do not include this node's id 4", "election-ticks (2)", "max-inflight 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "512KiB": 512 << 10, "1GiB": 1 << 30, "4096": 4096, "10B": 10} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("%s: got %d, %v", in, got, err)
		}
	}
}
