// leasekv is the command-line client of leasekvd.
//
//	leasekv [options] get KEY [--prefix] [--limit N]
//	leasekv [options] put KEY VALUE [--lease ID]
//	leasekv [options] del KEY
//	leasekv [options] watch KEY [--prefix]
//	leasekv [options] lease grant TTL | revoke ID | keep-alive ID | timetolive ID [--keys] | list
//
// Options may appear anywhere: --endpoint host:port, -w simple|json, --timeout 5s.
// Lease ids are hexadecimal, as the server logs print them in decimal.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"go.leasekv.dev/leasekv/api"
	"go.leasekv.dev/leasekv/client"
)

type options struct {
	endpoint string
	output   string
	timeout  time.Duration
	prefix   bool
	keys     bool
	limit    int
	lease    int64
}

// parseArgs separates options from positional arguments; options may follow them,
// as in `leasekv get KEY -w json`.
func parseArgs(args []string) (options, []string, error) {
	o := options{endpoint: "127.0.0.1:2479", output: "simple", timeout: 5 * time.Second}
	if env := os.Getenv("LEASEKV_ENDPOINT"); env != "" {
		o.endpoint = env
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s needs a value", a)
			}
			i++
			return args[i], nil
		}
		var err error
		var v string
		switch a {
		case "--endpoint":
			o.endpoint, err = value()
		case "-w", "--write-out":
			o.output, err = value()
		case "--timeout":
			if v, err = value(); err == nil {
				o.timeout, err = time.ParseDuration(v)
			}
		case "--limit":
			if v, err = value(); err == nil {
				o.limit, err = strconv.Atoi(v)
			}
		case "--lease":
			if v, err = value(); err == nil {
				o.lease, err = parseLeaseID(v)
			}
		case "--prefix":
			o.prefix = true
		case "--keys":
			o.keys = true
		default:
			if strings.HasPrefix(a, "-") && len(a) > 1 {
				return o, nil, fmt.Errorf("unknown option %s", a)
			}
			pos = append(pos, a)
		}
		if err != nil {
			return o, nil, err
		}
	}
	if o.output != "simple" && o.output != "json" {
		return o, nil, fmt.Errorf("-w must be simple or json")
	}
	return o, pos, nil
}

func parseLeaseID(s string) (int64, error) {
	id, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 63)
	if err != nil {
		return 0, fmt.Errorf("bad lease id %q (hexadecimal expected)", s)
	}
	return int64(id), nil
}

func main() {
	o, args, err := parseArgs(os.Args[1:])
	if err != nil || len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: leasekv [options] get|put|del|watch|lease ...")
		if err != nil {
			fmt.Fprintln(os.Stderr, "leasekv:", err)
		}
		os.Exit(2)
	}
	c := client.New(o.endpoint, o.timeout)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, c, o, args); err != nil {
		fmt.Fprintln(os.Stderr, "leasekv:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c *client.Client, o options, args []string) error {
	cmd, rest := args[0], args[1:]
	need := func(n int) error {
		if len(rest) != n {
			return fmt.Errorf("%s takes %d argument(s)", cmd, n)
		}
		return nil
	}
	switch cmd {
	case "get":
		if err := need(1); err != nil {
			return err
		}
		return get(ctx, c, o, rest[0])
	case "put":
		if err := need(2); err != nil {
			return err
		}
		rev, err := c.Put(ctx, rest[0], []byte(rest[1]), o.lease)
		if err != nil {
			return err
		}
		return print(o, map[string]int64{"revision": rev}, "OK")
	case "del":
		if err := need(1); err != nil {
			return err
		}
		deleted, err := c.Delete(ctx, rest[0])
		if err != nil {
			return err
		}
		return print(o, map[string]bool{"deleted": deleted}, map[bool]string{true: "1", false: "0"}[deleted])
	case "watch":
		if err := need(1); err != nil {
			return err
		}
		return watch(ctx, c, o, rest[0])
	case "lease":
		if len(rest) == 0 {
			return errors.New("lease needs a subcommand: grant, revoke, keep-alive, timetolive, list")
		}
		return leaseCmd(ctx, c, o, rest[0], rest[1:])
	}
	return fmt.Errorf("unknown command %q", cmd)
}

func get(ctx context.Context, c *client.Client, o options, key string) error {
	r := &api.RangeResponse{KVs: []api.KeyValue{}}
	if o.prefix {
		var err error
		if r, err = c.Range(ctx, key, o.limit); err != nil {
			return err
		}
	} else {
		kv, ok, err := c.Get(ctx, key)
		if err != nil {
			return err
		}
		if ok {
			r.KVs, r.Count = append(r.KVs, kv), 1
		}
	}
	if o.output == "json" {
		return json.NewEncoder(os.Stdout).Encode(r)
	}
	for _, kv := range r.KVs {
		fmt.Printf("%s\n%s\n", kv.Key, kv.Value)
	}
	return nil
}

func watch(ctx context.Context, c *client.Client, o options, key string) error {
	ch, err := c.Watch(ctx, key, o.prefix)
	if err != nil {
		return err
	}
	for wr := range ch {
		if o.output == "json" {
			json.NewEncoder(os.Stdout).Encode(wr)
			continue
		}
		for _, ev := range wr.Events {
			fmt.Printf("%s\n%s\n%s\n", ev.Type, ev.KV.Key, ev.KV.Value)
		}
		if wr.Canceled {
			return fmt.Errorf("watch canceled: %s", wr.CancelReason)
		}
	}
	return nil
}

func leaseCmd(ctx context.Context, c *client.Client, o options, sub string, args []string) error {
	arg := func() (int64, error) {
		if len(args) != 1 {
			return 0, fmt.Errorf("lease %s takes one argument", sub)
		}
		if sub == "grant" {
			return strconv.ParseInt(args[0], 10, 64)
		}
		return parseLeaseID(args[0])
	}
	if sub == "list" {
		ls, err := c.Leases(ctx)
		if err != nil {
			return err
		}
		if o.output == "json" {
			return json.NewEncoder(os.Stdout).Encode(ls)
		}
		fmt.Printf("found %d leases\n", len(ls))
		for _, l := range ls {
			fmt.Printf("%016x\n", l.ID)
		}
		return nil
	}
	n, err := arg()
	if err != nil {
		return err
	}
	switch sub {
	case "grant":
		g, err := c.Grant(ctx, 0, n)
		if err != nil {
			return err
		}
		return print(o, g, fmt.Sprintf("lease %016x granted with TTL(%ds)", g.ID, g.TTL))
	case "revoke":
		if err := c.Revoke(ctx, n); err != nil {
			return err
		}
		return print(o, map[string]int64{"id": n}, fmt.Sprintf("lease %016x revoked", n))
	case "keep-alive":
		g, err := c.TimeToLive(ctx, n, false)
		if err != nil {
			return err
		}
		fmt.Printf("lease %016x keepalived with TTL(%d)\n", n, g.GrantedTTL)
		err = c.KeepAlive(ctx, n, g.GrantedTTL, client.KeepAliveOptions{})
		if errors.Is(err, client.ErrLeaseNotFound) {
			return fmt.Errorf("lease %016x expired or revoked", n)
		}
		return err
	case "timetolive":
		info, err := c.TimeToLive(ctx, n, o.keys)
		if errors.Is(err, client.ErrLeaseNotFound) {
			fmt.Printf("lease %016x already expired\n", n)
			return nil
		}
		if err != nil {
			return err
		}
		text := fmt.Sprintf("lease %016x granted with TTL(%ds), remaining(%ds)", info.ID, info.GrantedTTL, info.TTL)
		if o.keys {
			text += fmt.Sprintf(", attached keys(%v)", info.Keys)
		}
		return print(o, info, text)
	}
	return fmt.Errorf("unknown lease subcommand %q", sub)
}

func print(o options, v any, simple string) error {
	if o.output == "json" {
		return json.NewEncoder(os.Stdout).Encode(v)
	}
	_, err := fmt.Println(simple)
	return err
}
