// raftkvctl talks to a raftkv cluster and inspects a node's data directory offline.
//
//	raftkvctl [--endpoints a,b,c] put KEY VALUE
//	raftkvctl [--endpoints a,b,c] get KEY
//	raftkvctl [--endpoints a,b,c] del KEY
//	raftkvctl [--endpoints a,b,c] status
//	raftkvctl wal DIR [SNAP-INDEX SNAP-TERM]
//	raftkvctl snap FILE
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/raftkv/raftkv/client"
	"github.com/raftkv/raftkv/rpc"
	"github.com/raftkv/raftkv/storage/snap"
	"github.com/raftkv/raftkv/storage/wal"
)

func main() {
	endpoints := flag.String("endpoints", "localhost:7101", "client API addresses, comma separated")
	timeout := flag.Duration("timeout", 10*time.Second, "timeout of the whole command")
	jsonWire := flag.Bool("json-wire", false, "encode calls as JSON (for packet captures)")
	flag.Usage = usage
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		usage()
		os.Exit(2)
	}

	switch args[0] {
	case "wal":
		exit(dumpWAL(args[1:]))
		return
	case "snap":
		exit(inspectSnapshot(args[1:]))
		return
	}

	cfg := client.Config{Endpoints: strings.Split(*endpoints, ",")}
	if *jsonWire {
		cfg.Codec = rpc.JSONCodec{}
	}
	c, err := client.New(cfg)
	exit(err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	switch cmd, rest := args[0], args[1:]; {
	case cmd == "put" && len(rest) == 2:
		idx, err := c.Put(ctx, rest[0], rest[1])
		exit(err)
		fmt.Printf("OK (applied at %d)\n", idx)
	case cmd == "get" && len(rest) == 1:
		v, ok, err := c.Get(ctx, rest[0])
		exit(err)
		if !ok {
			fmt.Fprintf(os.Stderr, "%s: not found\n", rest[0])
			os.Exit(1)
		}
		fmt.Println(v)
	case cmd == "del" && len(rest) == 1:
		exit(c.Delete(ctx, rest[0]))
		fmt.Println("OK")
	case cmd == "status" && len(rest) == 0:
		exit(printStatus(ctx, c, cfg.Endpoints))
	default:
		usage()
		os.Exit(2)
	}
}

func printStatus(ctx context.Context, c *client.Client, endpoints []string) error {
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ENDPOINT\tID\tVERSION\tAPPLIED\tKEYS\tERROR")
	var failed int
	for _, ep := range endpoints {
		st, err := c.Status(ctx, ep)
		if err != nil {
			failed++
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t%v\n", ep, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%d\t\n", ep, st.ID, st.Version, st.LastApplied, st.Keys)
	}
	tw.Flush()
	if failed == len(endpoints) {
		return fmt.Errorf("no endpoint answered")
	}
	return nil
}

// dumpWAL prints the hard state and entries of a WAL directory. The node must be
// stopped: the dump truncates nothing but opens the tail segment for writing.
func dumpWAL(args []string) error {
	if len(args) != 1 && len(args) != 3 {
		return fmt.Errorf("usage: raftkvctl wal DIR [SNAP-INDEX SNAP-TERM]")
	}
	var at wal.SnapshotMark
	if len(args) == 3 {
		var err error
		if at.Index, err = strconv.ParseUint(args[1], 10, 64); err != nil {
			return err
		}
		if at.Term, err = strconv.ParseUint(args[2], 10, 64); err != nil {
			return err
		}
	}
	w, err := wal.Open(args[0], at, wal.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer w.Close()
	md, st, ents, err := w.ReadAll()
	if err != nil {
		return err
	}
	fmt.Printf("metadata: %q\nhard state: term=%d vote=%d commit=%d\n", md, st.Term, st.Vote, st.Commit)
	fmt.Printf("%d entries after snapshot %d/%d\n", len(ents), at.Index, at.Term)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tTERM\tTYPE\tBYTES")
	for _, e := range ents {
		typ := "normal"
		if e.Type != 0 {
			typ = "conf-change"
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%d\n", e.Index, e.Term, typ, len(e.Data))
	}
	return tw.Flush()
}

func inspectSnapshot(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: raftkvctl snap FILE")
	}
	s, err := snap.Inspect(args[0])
	if err != nil {
		return err
	}
	fmt.Printf("index %d, term %d, peers %v, %d bytes of data\n", s.Metadata.Index, s.Metadata.Term, s.Metadata.Peers, len(s.Data))
	return nil
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage: raftkvctl [flags] put KEY VALUE | get KEY | del KEY | status
       raftkvctl wal DIR [SNAP-INDEX SNAP-TERM]
       raftkvctl snap FILE`)
	flag.PrintDefaults()
}

func exit(err error) {
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "raftkvctl:", err)
	if rpc.CodeOf(err) == rpc.NotLeader || rpc.CodeOf(err) == rpc.DeadlineExceeded {
		os.Exit(3)
	}
	os.Exit(1)
}
