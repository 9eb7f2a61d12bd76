// A plain pub/sub loop on the official NATS Go client, the native peer of msgscope's core-NATS engine
// (issue 13): one publisher and one subscriber connection, COUNT messages of SIZE bytes at full speed.
// The receive rate is measured as msgscope measures it: (received - 1) / (last arrival - first arrival).
// Prints one JSON line. Built by benchmarks/scripts/nats-peers.sh in GOPATH mode against Debian's
// golang-github-nats-io-go-nats-dev (no Go module proxy is reachable here).
// Usage: nats-go URL SUBJECT COUNT SIZE
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

func cpuNs() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func main() {
	url, subject := os.Args[1], os.Args[2]
	count, _ := strconv.Atoi(os.Args[3])
	size, _ := strconv.Atoi(os.Args[4])
	sc, err := nats.Connect(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats-go:", err)
		os.Exit(1)
	}
	pc, err := nats.Connect(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats-go:", err)
		os.Exit(1)
	}
	var received int64
	var first, last int64
	done := make(chan struct{})
	sub, _ := sc.Subscribe(subject, func(m *nats.Msg) {
		now := time.Now().UnixNano()
		n := atomic.AddInt64(&received, 1)
		if n == 1 {
			first = now
		}
		last = now
		if int(n) == count {
			close(done)
		}
	})
	sub.SetPendingLimits(-1, -1)
	sc.Flush()
	payload := make([]byte, size)
	cpu0 := cpuNs()
	start := time.Now().UnixNano()
	for i := 0; i < count; i++ {
		pc.Publish(subject, payload)
	}
	pc.Flush()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	}
	cpu := cpuNs() - cpu0
	n := atomic.LoadInt64(&received)
	rate := 0.0
	if n > 1 && last > first {
		rate = float64(n-1) / (float64(last-first) / 1e9)
	}
	delivered := 0.0
	if last > start {
		delivered = float64(n) / (float64(last-start) / 1e9)
	}
	out, _ := json.Marshal(map[string]interface{}{"sent": count, "received": n, "rate": rate,
		"delivered_rate": delivered, "cpu_ns_per_message": float64(cpu) / float64(count)})
	fmt.Println(string(out))
}
